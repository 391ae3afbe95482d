/**
 * Nemori as an MCP server: the memory a companion (Claude Desktop, Claude Code, Cursor, VS Code, any
 * MCP client) reads at the start of a conversation and writes after each exchange. Built on anything
 * that runs contract operations — the engine in this process, or later a client forwarding to the app's
 * engine — so the tools are the same however they are reached (stdio: stdio.ts; HTTP: http.ts).
 *
 * Every tool's description says WHEN to call it: models do not call tools whose descriptions do not.
 * Results are Markdown text (dates absolute, sources named) plus the operation's output as
 * structuredContent.
 */
import { readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { PERSON_ONLY_OPERATIONS, UNNAMED_COMPANION, type CompanionView } from '../api/companion-access-contract.js';
import { DEFAULT_CONTEXT_BUDGET } from '../api/companion-contract.js';
import type { OperationName, OpInput, OpOutput } from '../api/contract.js';
import { isNemoriError, NemoriError } from '../domain/errors.js';
import { registerAttachments } from './attachments.js';
import { renderEpisode, renderHistory, renderRemember, renderSearch, renderVersion, renderWritten } from './render.js';
import { quantity } from '../text/describe.js';

/** What the tools need: contract operations, validated by whoever runs them (Engine satisfies it). */
export interface MemoryCaller {
  call<K extends OperationName>(name: K, input: OpInput<K>): Promise<OpOutput<K>>;
}

export interface McpServerOptions {
  /** The engine, or its opening: tools called while it opens wait for it. */
  engine: MemoryCaller | Promise<MemoryCaller>;
  /** Only the tools that read memory (load_context, search_memory, get_episode, remember, fact_history). */
  readOnly?: boolean;
  /** Whose memory (default: the default owner, like every other front end). */
  ownerId?: string;
  /** Unexpected failures (not a person's mistake) are logged here; stdout belongs to the protocol. */
  log?: (message: string) => void;
  /** How clients reach this server (what Settings → Companions shows); default stdio. */
  via?: 'stdio' | 'http';
  /**
   * Who is calling when the protocol session did not say (stateless HTTP: each request has its own
   * server, and only the `initialize` request names the client).
   */
  client?: () => CompanionInfo | undefined;
}

/** What a client says of itself at `initialize` (`clientInfo`). */
export interface CompanionInfo {
  name: string;
  title?: string | undefined;
  version?: string | undefined;
}

export const READ_TOOLS = ['load_context', 'search_memory', 'get_episode', 'remember', 'fact_history'] as const;
export const WRITE_TOOLS = ['add_memory', 'memorize', 'forget'] as const;
export type ToolName = (typeof READ_TOOLS)[number] | (typeof WRITE_TOOLS)[number];

function version(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

const text = (t: string, structured?: object): CallToolResult => ({
  content: [{ type: 'text', text: t }],
  ...(structured ? { structuredContent: structured as Record<string, unknown> } : {}),
});

/** `noteCompanion`'s input for a client (unnamed when it said nothing) calling `tool` (none: connecting). */
export function companionNote(c: CompanionInfo | undefined, via: 'stdio' | 'http', tool?: string): OpInput<'noteCompanion'> {
  return {
    name: c?.name.trim().slice(0, 200) || UNNAMED_COMPANION,
    ...(c?.title ? { title: c.title.slice(0, 200) } : {}),
    ...(c?.version ? { version: c.version.slice(0, 100) } : {}),
    via,
    ...(tool ? { tool } : {}),
  };
}

/** The answer to a writing tool called by a client the person made read-only. */
function readOnlyRefusal(c: CompanionView): CallToolResult {
  const name = c.title && c.title !== c.name ? `${c.title} (${c.name})` : c.name;
  return {
    isError: true,
    content: [
      {
        type: 'text',
        text:
          `Nothing was stored or changed: ${name} may only read this memory. The person turned writing off for it in the Nemori app, ` +
          'Settings → Companions ("may write"). If they want you to remember or forget something, tell them to allow writing there.',
      },
    ],
  };
}

const DateText = z.string().describe('YYYY-MM-DD, or an ISO 8601 time with UTC offset');

export function createMcpServer(o: McpServerOptions): McpServer {
  const server = new McpServer(
    { name: 'nemori', title: 'Nemori memory', version: version() },
    {
      instructions:
        'Nemori is the long-term memory of the person you talk with: their past conversations as dated episodes, and facts about them. ' +
        'Call load_context at the start of every conversation (with their opening message as query) and add_memory after each exchange. ' +
        'Search with search_memory when they refer to the past; use memorize when they tell you something to keep. Dates in memory are absolute: say them as the person would.',
    },
  );
  const log = o.log ?? ((m: string) => process.stderr.write(`[nemori mcp] ${m}\n`));
  const owner = o.ownerId ? { ownerId: o.ownerId } : {};
  const call = async <K extends OperationName>(name: K, input: OpInput<K>): Promise<OpOutput<K>> => {
    // A companion never changes its own access nor writes files on disk, whatever a tool is made to ask.
    if ((PERSON_ONLY_OPERATIONS as readonly string[]).includes(name))
      throw new NemoriError('INVALID_INPUT', `${name} is for the person, in the Nemori app`);
    return (await o.engine).call(name, { ...owner, ...input });
  };

  /** Who is calling: what the client said at `initialize`, else what the transport knows. */
  const who = (): CompanionInfo | undefined => server.server.getClientVersion() ?? o.client?.();
  /** Tells the engine the client connected or calls `tool`; its answer says whether it may write. */
  const note = async (tool?: ToolName): Promise<CompanionView> => {
    return (await o.engine).call('noteCompanion', companionNote(who(), o.via ?? 'stdio', tool));
  };
  let noteFailed = false;
  /** Reading tools do not wait for the note; a failure to keep it is logged once and costs the reader nothing. */
  const noteBehind = (tool: ToolName) =>
    void note(tool).catch((e: unknown) => {
      if (!noteFailed) log(`cannot record the companion's call: ${e instanceof Error ? e.message : String(e)}`);
      noteFailed = true;
    });
  // A client over stdio is listed as soon as it connects (over HTTP, mcpOverHttp notes the `initialize`).
  server.server.oninitialized = () => {
    if (server.server.getClientVersion()) void note().catch(() => {});
  };

  /** A tool's work; any failure is the tool's answer (isError), worded for the model to act on. */
  const guarded =
    <A>(tool: ToolName, work: (args: A) => Promise<CallToolResult>) =>
    async (args: A): Promise<CallToolResult> => {
      try {
        if (!(WRITE_TOOLS as readonly string[]).includes(tool)) {
          noteBehind(tool);
          return await work(args);
        }
        const companion = await note(tool);
        if (!companion.canWrite) return readOnlyRefusal(companion);
        return await work(args);
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        if (!isNemoriError(e) && !(e instanceof Error && 'code' in e && e.code === 'INVALID_INPUT'))
          log(`tool failed: ${e instanceof Error ? (e.stack ?? message) : message}`);
        return { isError: true, content: [{ type: 'text', text: message }] };
      }
    };
  const readOnly = { readOnlyHint: true, destructiveHint: false, openWorldHint: false } as const;

  server.registerTool(
    'load_context',
    {
      title: 'Load what I remember',
      description:
        "Call this at the start of every conversation, before your first reply, with the person's opening message as `query`. " +
        'Returns one Markdown block of what you remember about them, to keep in mind for the whole conversation: what you know about them ' +
        '(their most important facts), what is coming up (what they said of the days ahead: an interview tomorrow, a trip next week, a birthday on Thursday, ' +
        'each with anything said since that may have cancelled or moved it), what has just gone by without a word since (a plan of the last days to ask after), ' +
        'what happened recently (the last turns said and the latest episodes, with their dates), and the memories related to the opening message ' +
        '(episodes, facts and the exact messages, each dated), most useful first, within `budget_tokens`. ' +
        'Call it again when the conversation turns to a subject you have no context for.',
      inputSchema: {
        query: z.string().max(2000).optional().describe("the person's opening message, or what the conversation is about"),
        budget_tokens: z
          .number()
          .int()
          .min(100)
          .max(32000)
          .optional()
          .describe(`how many tokens the block may take (default ${DEFAULT_CONTEXT_BUDGET})`),
        now: z
          .string()
          .optional()
          .describe(
            "the current date and time (ISO 8601), if it is not this computer's clock; written with the person's UTC offset (not Z), it also says whose calendar today and tomorrow are on",
          ),
      },
      annotations: readOnly,
    },
    guarded('load_context', async (a) => {
      const out = await call('loadContext', { query: a.query || undefined, budgetTokens: a.budget_tokens, now: a.now });
      return text(out.markdown, out);
    }),
  );

  server.registerTool(
    'search_memory',
    {
      title: 'Search memory',
      description:
        'Call this when the person refers to something from the past ("remember when…", "what did I say about…", a name, place or plan ' +
        'that is not in your context), or before answering a question whose answer may lie in past conversations. ' +
        'Searches episodes (what happened, when, with whom) and facts (what is true about the person) by keywords and meaning together. ' +
        'Every result has its absolute date and its sources (who said it, when) and an id for get_episode or fact_history. ' +
        'A period in the query ("what did we plan last week", "in May 2023") is read on the person\'s clock and searched first; ' +
        'narrow it further with `kind`, `since`/`until` and `limit`.',
      inputSchema: {
        query: z.string().min(1).max(2000).describe("what to look for, in the person's words"),
        kind: z.enum(['all', 'episodes', 'facts']).optional().describe('episodes, facts, or both ranked together (default)'),
        since: DateText.optional().describe('only episodes from this date on'),
        until: DateText.optional().describe('only episodes before this date'),
        limit: z.number().int().min(1).max(50).optional().describe('how many results (default 8)'),
      },
      annotations: readOnly,
    },
    guarded('search_memory', async (a) => {
      const kind = a.kind === 'episodes' ? 'episodic' : a.kind === 'facts' ? 'semantic' : 'all';
      const out = await call('search', { query: a.query, kind, since: a.since, until: a.until, limit: a.limit ?? 8, markAccessed: true });
      return text(renderSearch(out), out);
    }),
  );

  server.registerTool(
    'get_episode',
    {
      title: 'Open an episode',
      description:
        'Call this when a search result or the context block names an episode and you need all of it: the full story and the exact ' +
        'messages it was built from, each with its time (for a quote, a detail, or when exactly something happened).',
      inputSchema: { id: z.string().describe('the episode id, as given in search results') },
      annotations: readOnly,
    },
    guarded('get_episode', async (a) => {
      const out = await call('getEpisode', { id: a.id });
      return text(renderEpisode(out), out);
    }),
  );

  server.registerTool(
    'remember',
    {
      title: 'Recall facts',
      description:
        'Call this when you need what you know about the person for what they ask: their preferences, the people in their life, their ' +
        'plans, places, health, work — e.g. before recommending, planning, or answering a question about them. Returns the current facts ' +
        'that answer the prompt, each with its key, version, date and sources.',
      inputSchema: {
        prompt: z.string().min(1).max(2000).describe('what you need to know, e.g. "food preferences" or the person\'s question'),
        limit: z.number().int().min(1).max(50).optional().describe('how many facts (default 10)'),
      },
      annotations: readOnly,
    },
    guarded('remember', async (a) => {
      const out = await call('remember', { prompt: a.prompt, limit: a.limit });
      return text(renderRemember(a.prompt, out), out);
    }),
  );

  server.registerTool(
    'fact_history',
    {
      title: 'History of a fact',
      description:
        'Call this when the person asks how something about them changed over time or since when it is so ("what did I use to…", ' +
        '"when did I start…"), or before you correct a fact. Returns every version of the fact, oldest first, with its date, whether it ' +
        'updated or corrected the one before, and the episode it was learnt from; with `version`, only that version.',
      inputSchema: {
        key: z
          .string()
          .min(1)
          .max(500)
          .describe("the fact's key (`entity_type:identifier`, e.g. `person:alice`) or id, as given by remember or search_memory"),
        version: z.number().int().min(1).optional().describe('one version only'),
      },
      annotations: readOnly,
    },
    guarded('fact_history', async (a) => {
      if (a.version !== undefined) {
        const out = await call('getKnowledgeVersion', { key: a.key, version: a.version });
        return text(renderVersion(out), out);
      }
      const out = await call('getKnowledge', { key: a.key });
      return text(renderHistory(out), out);
    }),
  );

  registerAttachments(server, { call, noteBehind });

  if (o.readOnly) return server;

  server.registerTool(
    'add_memory',
    {
      title: 'Remember this exchange',
      description:
        "Call this after each exchange — the person's message and your reply — so the conversation becomes memory. Send the messages " +
        'exactly as written, each with who said it, its role (`user` for the person, `assistant` for you) and, when you know it, the time ' +
        'it was said (ISO 8601 with UTC offset). Pass the `conversation_id` the first call returned with every later exchange of the same ' +
        'conversation. Returns as soon as the messages are stored; episodes and facts are made from them in the background.',
      inputSchema: {
        conversation_id: z
          .string()
          .min(1)
          .max(200)
          .optional()
          .describe('returned by the first add_memory of this conversation; omitted: a new conversation, whose id is returned'),
        messages: z
          .array(
            z.object({
              speaker: z.string().min(1).max(200).describe("who said it: the person's name, or yours"),
              role: z.enum(['user', 'assistant', 'other']).describe('`user`: the person; `assistant`: you; `other`: anyone else'),
              text: z.string().max(100000).describe('the message, exactly as written'),
              time: z
                .string()
                .optional()
                .describe(
                  "when it was said, ISO 8601 with the person's UTC offset (default: now; a time in Z is read on this machine's calendar)",
                ),
              id: z
                .string()
                .min(1)
                .max(200)
                .optional()
                .describe("the message's own id, if it has one: sending it again then stores nothing twice"),
            }),
          )
          .min(1)
          .max(1000),
        end: z
          .boolean()
          .optional()
          .describe('true when the conversation is over: what it held becomes episodes now rather than after a pause'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    guarded('add_memory', async (a) => {
      const out = await call('addMemory', { conversationId: a.conversation_id, messages: a.messages, ...(a.end ? { end: true } : {}) });
      const again = out.stored < a.messages.length ? ` (${a.messages.length - out.stored} were stored before)` : '';
      const secrets =
        out.redacted > 0
          ? ` ${quantity(out.redacted, 'secret')} ${out.redacted === 1 ? 'was' : 'were'} replaced with placeholders before storing.`
          : '';
      // A companion that named the conversation keeps using its own name; one that did not is given the id.
      const where = a.conversation_id
        ? `in conversation \`${a.conversation_id}\``
        : `in conversation \`${out.conversationId}\`; pass it as conversation_id with the next exchange`;
      return text(`Stored ${quantity(out.stored, 'message')}${again} ${where}.${secrets}`, out);
    }),
  );

  server.registerTool(
    'memorize',
    {
      title: 'Remember a fact',
      description:
        'Call this when the person tells you something about themselves worth keeping for good — a preference, a person in their life, ' +
        'a plan, a date, a detail of their life — or asks you to remember something, or tells you something you remembered is wrong ' +
        '(then set `correction`). Give the fact as one self-contained sentence. With a `key` (`entity_type:identifier`, e.g. ' +
        '`person:alice`, `preference:coffee`) a new value becomes the next version of that fact; without one, Nemori names it.',
      inputSchema: {
        value: z.string().min(1).max(10000).describe('the fact, as one self-contained sentence'),
        key: z.string().min(1).max(500).optional().describe('`entity_type:identifier`; optional'),
        context: z.string().max(2000).optional().describe('where or how you learnt it, in a sentence'),
        importance: z.number().min(0).max(1).optional().describe('0–1; 1 for what must never be forgotten'),
        correction: z.boolean().optional().describe('the value you had was wrong (not: it changed)'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    guarded('memorize', async (a) => {
      const out = await call('memorize', {
        value: a.value,
        key: a.key,
        metadata: { context: a.context, importance: a.importance, correction: a.correction, source: 'companion' },
      });
      return text(renderWritten(out), out);
    }),
  );

  server.registerTool(
    'forget',
    {
      title: 'Forget',
      description:
        'Call this only when the person asks you to forget something. A fact (`fact_key`) goes to the trash, where it can still be ' +
        'restored; an episode (`episode_id`) is marked unimportant and fades out of memory. Set `permanent: true` only when the person ' +
        'explicitly asks for permanent deletion: the fact or episode is then deleted for good, and `about` (a person, place or thing) ' +
        'deletes every memory of it. Without `permanent`, `about` only lists what would be deleted.',
      inputSchema: {
        fact_key: z.string().min(1).max(500).optional().describe("the fact's key or id"),
        episode_id: z.string().optional().describe("the episode's id"),
        about: z.string().min(1).max(200).optional().describe('a name or keyword: every memory of it'),
        permanent: z.boolean().optional().describe("delete for good instead of to the trash; only on the person's explicit request"),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    guarded('forget', async (a) => {
      const given = [a.fact_key, a.episode_id, a.about].filter((x) => x !== undefined).length;
      if (given !== 1)
        return { isError: true, content: [{ type: 'text', text: 'name exactly one thing to forget: fact_key, episode_id or about' }] };
      const permanent = a.permanent === true;
      if (a.fact_key !== undefined) {
        const out = await call('forgetKnowledge', { instruction: `key:${a.fact_key}`, mode: permanent ? 'hard' : 'soft' });
        const keys = out.forgotten.map((f) => `\`${f.key}\``).join(', ') || 'nothing';
        return text(permanent ? `Deleted for good: ${keys}.` : `Moved to the trash (restorable): ${keys}.`, out);
      }
      if (a.episode_id !== undefined) {
        if (permanent) {
          const out = await call('deleteEpisode', { id: a.episode_id });
          return text(`Deleted episode \`${a.episode_id}\` for good.`, out);
        }
        const out = await call('markMemory', { id: a.episode_id, important: false });
        return text(
          `Marked episode \`${a.episode_id}\` unimportant: it fades out of memory over the next forgetting passes (restorable until then).`,
          out,
        );
      }
      const out = await call('forgetAbout', { about: a.about!, dryRun: !permanent });
      const list = out.memories.map((m) => `- ${m.kind} “${m.title}” \`${m.id}\``).join('\n');
      const counts = `${quantity(out.memories.length, 'memory')}, ${quantity(out.messages, 'message')}, ${quantity(out.conversations, 'conversation')}`;
      return text(
        permanent
          ? `Deleted for good everything about “${out.about}”: ${counts}.`
          : `Forgetting “${out.about}” would delete for good: ${counts}.\n${list}\nCall again with permanent: true only if the person confirms.`,
        out,
      );
    }),
  );

  return server;
}
