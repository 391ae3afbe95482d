/**
 * `nemori mcp` as an MCP client starts it: a child process on a temp data folder, driven by the SDK's
 * own Client over stdio (so stdout must carry nothing but the protocol). Three days of conversation go
 * in through add_memory; on day four load_context brings back the relevant episodes with their dates,
 * and search_memory finds what was said moments before.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoadContextOutput } from '../../core/api/companion-contract.js';
import { READ_TOOLS, WRITE_TOOLS } from '../../core/mcp/server.js';
import { estimateTokens } from '../../core/text/fact-text.js';
import { tempDir } from '../helpers/engine.js';
import { nemoriMcpTransport } from '../helpers/mcp.js';

interface Running {
  client: Client;
  stderr: () => string;
  close(): Promise<void>;
}

/** Starts `nemori --home HOME mcp …` the way a desktop client does, offline, with the tiny model. */
async function startMcp(home: string, ...args: string[]): Promise<Running> {
  const transport = nemoriMcpTransport(home, args);
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'nemori-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

type ToolResult = { content: { type: string; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };
async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  const r = (await client.callTool({ name, arguments: args })) as ToolResult;
  if (r.isError) throw new Error(`${name}: ${r.content[0]?.text}`);
  return r;
}

async function eventually<T>(read: () => Promise<T>, check: (v: T) => boolean, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (check(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}

const at = (day: number, hh: number, mm: number) =>
  `2024-01-0${day}T${String(hh).padStart(2, '0')}:${String(mm).padStart(2, '0')}:00+01:00`;

/** Three days of Alice talking with her companion Nemo. */
const DAYS: [string, string][][] = [
  [
    ['Alice', 'I adopted a beagle puppy today! His name is Biscuit. He already chewed the leg of my desk.'],
    ['Nemo', 'Congratulations on Biscuit! Beagles are curious chewers; chew toys and a crate help.'],
    ['Alice', 'I ordered a rubber chew toy and a crate for Biscuit.'],
    ['Nemo', 'Good plan. Praise him when he chews the toy instead of the furniture.'],
  ],
  [
    ['Alice', 'Long run this morning, 18 kilometres along the river. My left knee aches a little.'],
    ['Nemo', 'That is a big distance. Is the knee pain sharp or dull?'],
    ['Alice', 'Dull. The Berlin marathon is in April so I cannot stop training now.'],
    ['Nemo', 'Maybe rest two days and stretch; see a physio if it continues.'],
  ],
  [
    ['Alice', 'My sister Clara visits next weekend. I want to cook her a vegetarian lasagna.'],
    ['Nemo', 'Lovely. Spinach and ricotta lasagna is a classic vegetarian choice.'],
    ['Alice', 'Clara hates mushrooms, so no mushrooms in the sauce.'],
    ['Nemo', 'Noted: a mushroom-free spinach and ricotta lasagna for Clara.'],
  ],
];

describe('nemori mcp over stdio', { timeout: 300_000 }, () => {
  let server: Running;
  beforeAll(async () => {
    server = await startMcp(tempDir('nemori-mcp-'));
  }, 180_000);
  afterAll(async () => {
    await server?.close();
  });

  it('lists its tools, each description saying when to call it', async () => {
    const { tools } = await server.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...READ_TOOLS, ...WRITE_TOOLS].sort());
    for (const t of tools) {
      expect(t.description, t.name).toMatch(/^Call this (at|after|when|only when) /);
      expect(t.inputSchema.type).toBe('object');
    }
    expect(tools.find((t) => t.name === 'load_context')?.description).toContain('at the start of every conversation');
    expect(tools.find((t) => t.name === 'add_memory')?.description).toContain('after each exchange');
    expect(tools.find((t) => t.name === 'search_memory')?.annotations).toMatchObject({ readOnlyHint: true });
    expect(tools.find((t) => t.name === 'forget')?.annotations).toMatchObject({ destructiveHint: true });
    expect(server.client.getInstructions()).toContain('load_context');
  });

  it('remembers three days of conversation, and on day four loads the relevant episodes with their dates within the budget', async () => {
    const { client } = server;
    for (const [d, turns] of DAYS.entries()) {
      let conversationId: string | undefined;
      let key: string | undefined;
      // One exchange (the person's message and the reply) per call, as a companion sends them.
      for (let n = 0; n < turns.length; n += 2) {
        const messages = turns
          .slice(n, n + 2)
          .map(([speaker, text], k) => ({ speaker, role: speaker === 'Alice' ? 'user' : 'assistant', text, time: at(d + 1, 9, n + k) }));
        const r = await tool(client, 'add_memory', { ...(conversationId ? { conversation_id: conversationId } : {}), messages });
        expect(r.structuredContent).toMatchObject({ stored: 2 });
        conversationId = r.structuredContent!.conversationId as string;
        key = r.structuredContent!.key as string;
        expect(r.content[0]!.text).toContain(conversationId);
      }
      expect(key).toBe(`chat-2024-01-0${d + 1}`);
    }

    const opening = 'Biscuit chewed my shoes again, what should I do?';
    const context = await eventually(
      async () => await tool(client, 'load_context', { query: opening, budget_tokens: 500, now: '2024-01-04T08:30:00+01:00' }),
      // Episodes are built behind add_memory: wait until every day's is there.
      (r) =>
        (r.structuredContent as LoadContextOutput).sections.related.some(
          (x) => x.kind === 'episode' && x.when.startsWith('Monday, 1 January 2024'),
        ) && ['Tuesday, 2 January 2024', 'Wednesday, 3 January 2024'].every((day) => r.content[0]!.text.includes(day)),
    );
    const out = context.structuredContent as LoadContextOutput;
    const text = context.content[0]!.text;
    expect(text).toBe(out.markdown);
    expect(out.tokens).toBeLessThanOrEqual(500);
    expect(estimateTokens(text)).toBeLessThanOrEqual(500);
    expect(text).toContain('now is Thursday, 4 January 2024, 08:30 (all times UTC+01:00 unless marked)');
    expect(text).toContain(`### Related to “${opening}”`);
    // The Biscuit episode, with its date, among what relates to the opening.
    const biscuit = out.sections.related.find((x) => x.kind === 'episode' && x.title.includes('Biscuit'));
    expect(biscuit).toMatchObject({ kind: 'episode', when: 'Monday, 1 January 2024, 09:00–09:03 (UTC+01:00)' });
    expect(text).toContain('Monday, 1 January 2024, 09:00–09:03 — **');
    expect(text).toMatch(/Biscuit/);
    // The other days are there too, dated (as what happened recently, or as related: never twice).
    expect(text).toContain('Wednesday, 3 January 2024');
    expect(text).toContain('Tuesday, 2 January 2024');

    // Day four: a turn added just now is found by search.
    const added = await tool(client, 'add_memory', {
      messages: [
        {
          speaker: 'Alice',
          role: 'user',
          text: 'I booked the vet for Biscuit on Friday at five, for his vaccinations.',
          time: '2024-01-04T08:31:00+01:00',
        },
        { speaker: 'Nemo', role: 'assistant', text: 'Good, I will remind you on Friday.', time: '2024-01-04T08:31:30+01:00' },
      ],
    });
    expect(added.structuredContent).toMatchObject({ key: 'chat-2024-01-04', stored: 2 });
    const found = await eventually(
      () => tool(client, 'search_memory', { query: 'vet vaccinations', kind: 'episodes' }),
      // The header repeats the query: wait for the turn itself.
      (r) => r.content[0]!.text.includes('Thursday, 4 January 2024, 08:31'),
    );
    const said = found.content[0]!.text;
    expect(said).toMatch(/^\d+ memories for “vet vaccinations”/);
    expect(said).toContain('Thursday, 4 January 2024, 08:31 (UTC+01:00)');
    // Under the episode's day and zone, its messages by their time alone.
    expect(said).toContain('Sources: Alice 08:31; Nemo 08:31');

    // The episode opens with its exact messages.
    const result = said
      .split(/\n(?=\d+\. )/)
      .slice(1)
      .find((r) => r.includes('vaccinations'))!;
    const id = /id `([0-9a-f-]{36})`/.exec(result)![1]!;
    const episode = await tool(client, 'get_episode', { id });
    expect(episode.content[0]!.text).toContain(
      '- 2024-01-04 08:31 UTC+01:00 **Alice**: I booked the vet for Biscuit on Friday at five, for his vaccinations.',
    );
  });

  it('lets the person attach what it remembers: the load_context prompt, and the context and the latest episodes as resources', async () => {
    const { client } = server;
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['load_context']);
    expect(prompts[0]!.arguments).toEqual([expect.objectContaining({ name: 'query', required: false })]);
    const prompt = await client.getPrompt({ name: 'load_context', arguments: { query: 'cooking for Clara' } });
    expect(prompt.messages).toHaveLength(1);
    expect(prompt.messages[0]!.role).toBe('user');
    const attached = (prompt.messages[0]!.content as { type: 'text'; text: string }).text;
    expect(attached).toMatch(/^This is what you remember about me from our past conversations/);
    expect(attached).toContain('## What I remember — now is');
    expect(attached).toContain('### Related to “cooking for Clara”');
    expect(attached).toMatch(/lasagna/);

    const { resources } = await client.listResources();
    expect(resources[0]).toMatchObject({ uri: 'nemori://context', name: 'context', mimeType: 'text/markdown' });
    // Then the latest episodes, newest first, each named by its title and dated.
    const episodes = resources.slice(1);
    expect(episodes.length).toBeGreaterThanOrEqual(4);
    for (const e of episodes) expect(e.uri).toMatch(/^nemori:\/\/episodes\/[0-9a-f-]{36}$/);
    expect(episodes[0]!.description).toMatch(/^Thursday, 4 January 2024, 08:31/);
    expect(episodes.at(-1)!.description).toMatch(/^Monday, 1 January 2024, 09:00/);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['nemori://episodes/{id}']);

    const read = async (uri: string) => {
      const { contents } = await client.readResource({ uri });
      expect(contents).toEqual([{ uri, mimeType: 'text/markdown', text: expect.any(String) }]);
      return (contents[0] as { text: string }).text;
    };
    expect(await read('nemori://context')).toMatch(/^## What I remember — now is /);
    expect(await read(episodes[0]!.uri)).toContain(
      '- 2024-01-04 08:31 UTC+01:00 **Alice**: I booked the vet for Biscuit on Friday at five, for his vaccinations.',
    );
    await expect(client.readResource({ uri: 'nemori://episodes/not-an-id' })).rejects.toThrow(/not an episode id/);
  });

  it('memorizes a fact, recalls it, shows its history, and forgets it to the trash', async () => {
    const { client } = server;
    await tool(client, 'memorize', { key: 'person:clara', value: "Clara is Alice's sister; she hates mushrooms" });
    const second = await tool(client, 'memorize', {
      key: 'person:clara',
      value: "Clara is Alice's sister; she is vegetarian and hates mushrooms",
    });
    expect(second.content[0]!.text).toMatch(/^Updated the fact/);
    const recalled = await tool(client, 'remember', { prompt: 'Clara mushrooms' });
    expect(recalled.content[0]!.text).toContain('Fact `person:clara` (version 2');
    const history = await tool(client, 'fact_history', { key: 'person:clara' });
    expect(history.content[0]!.text).toMatch(/- v1, .*learnt: Clara is Alice's sister; she hates mushrooms/);
    expect(history.content[0]!.text).toMatch(/- v2, .*updated the one before: Clara is Alice's sister; she is vegetarian/);
    const gone = await tool(client, 'forget', { fact_key: 'person:clara' });
    expect(gone.content[0]!.text).toBe('Moved to the trash (restorable): `person:clara`.');
    const none = await client.callTool({ name: 'forget', arguments: {} });
    expect(none).toMatchObject({ isError: true });
    const bad = (await client.callTool({ name: 'get_episode', arguments: { id: 'not-an-id' } })) as ToolResult;
    expect(bad.isError).toBe(true);
    expect(bad.content[0]!.text).toContain('not an episode id');
  });

  it('--read-only serves only the tools that read memory', async () => {
    const readOnly = await startMcp(tempDir('nemori-mcp-ro-'), '--read-only');
    try {
      const { tools } = await readOnly.client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([...READ_TOOLS].sort());
      // Attaching memory only reads it.
      expect((await readOnly.client.listPrompts()).prompts.map((p) => p.name)).toEqual(['load_context']);
      const refused = await readOnly.client.callTool({
        name: 'add_memory',
        arguments: { messages: [{ speaker: 'A', role: 'user', text: 'x' }] },
      });
      expect(refused).toMatchObject({ isError: true });
    } finally {
      await readOnly.close();
    }
  });
});
