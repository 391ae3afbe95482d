/**
 * What the person can put into a conversation themselves, in clients that let them: the `load_context`
 * prompt (a slash command in Claude Code, "Add from nemori" in Claude Desktop) and resources — what
 * Nemori remembers now, and each recent episode. Models do not always call a tool at the start of a
 * conversation, however its description asks; with these, the person can start it from memory anyway.
 */
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { OperationName, OpInput, OpOutput } from '../api/contract.js';
import { renderEpisode, span } from './render.js';

export const CONTEXT_URI = 'nemori://context';
const EPISODE_URI = 'nemori://episodes/{id}';
/** How many of the latest episodes a client is offered to attach. */
const LISTED_EPISODES = 30;

export interface AttachmentDeps {
  call<K extends OperationName>(name: K, input: OpInput<K>): Promise<OpOutput<K>>;
  /** Records the person's client reading memory, as a call of the tool that reads the same. */
  noteBehind(tool: 'load_context' | 'get_episode'): void;
}

const markdown = (uri: string, text: string) => ({ contents: [{ uri, mimeType: 'text/markdown', text }] });

export function registerAttachments(server: McpServer, d: AttachmentDeps): void {
  const context = async (query?: string) => {
    d.noteBehind('load_context');
    return (await d.call('loadContext', { query: query?.trim() || undefined })).markdown;
  };

  server.registerPrompt(
    'load_context',
    {
      title: 'What I remember',
      description:
        'Starts the conversation from your memory: what Nemori knows about you, what is coming up, what happened recently ' +
        'and, with a topic, the memories related to it.',
      argsSchema: { query: z.string().max(2000).optional().describe('what the conversation will be about (optional)') },
    },
    async ({ query }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text:
              'This is what you remember about me from our past conversations (from Nemori, my memory). Keep it in mind for the ' +
              `whole conversation, without repeating it back to me unless I ask.\n\n${await context(query)}`,
          },
        },
      ],
    }),
  );

  server.registerResource(
    'context',
    CONTEXT_URI,
    {
      title: 'What I remember',
      description: 'What Nemori knows about you, what is coming up and what happened recently, as of now.',
      mimeType: 'text/markdown',
    },
    async (uri) => markdown(uri.href, await context()),
  );

  server.registerResource(
    'episode',
    new ResourceTemplate(EPISODE_URI, {
      list: async () => {
        const { episodes } = await d.call('listEpisodes', { limit: LISTED_EPISODES });
        return {
          resources: episodes.map((e) => ({
            uri: EPISODE_URI.replace('{id}', e.id),
            name: e.title,
            description: span(e.start, e.end, e.utcOffsetMin),
            mimeType: 'text/markdown',
          })),
        };
      },
    }),
    {
      title: 'An episode',
      description: 'One episode of memory: its story and the exact messages it was built from, each with its time.',
      mimeType: 'text/markdown',
    },
    async (uri, { id }) => {
      d.noteBehind('get_episode');
      return markdown(uri.href, renderEpisode(await d.call('getEpisode', { id: String(id) })));
    },
  );
}
