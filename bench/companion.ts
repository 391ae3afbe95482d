/**
 * What a companion waits for. Prints one JSON object.
 *
 *   npm run bench:companion -- [--episodes 10000,100000] [--facts 0] [--calls 200] [--queries 40] [--home-base DIR] [--owner ID]
 *
 * - addMemory: the acknowledgement of `add_memory` over stdio — a real `nemori mcp` process driven by the
 *   MCP SDK's own Client, one exchange (two turns) per call — p50/p95 of the round trip.
 * - loadContext, on stores of each size (a synthetic corpus ingested through the API; a store already
 *   under --home-base is topped up, not rebuilt): p50/p95 with the query vectors embedded beforehand
 *   (query embedding is reported apart), called in process; and the same through a forwarding client —
 *   what another process (the CLI, a second MCP server) sees while this one holds the store.
 * - With `--facts N`, each store also holds N synthetic facts of the owner (written through
 *   `upsertKnowledge`, as a companion's `memorize` would; a store that has them is left as it is):
 *   their writes' p50/p95 (the last thousand), and `remember` p50/p95 beside loadContext.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Embedder } from '../core/embed/embedder.js';
import { TINY_MODEL_ID } from '../core/embed/model-specs.js';
import { connectOrOpenEngine, type ConnectedEngine } from '../core/engine/connect.js';
import { openEngine } from '../core/engine/open-engine.js';
import { loopback } from '../core/http/holder-transport.js';
import { TINY_MODEL_DIR } from '../test/fixtures/tiny-model/index.js';
import { benchEmbedder } from './embedder.js';
import { argValue, percentile, round } from './stats.js';
import { syntheticQueries } from './synthetic.js';
import { cachedQueries, fillFacts, fillStore, timeQueries } from './synthetic-store.js';

const argv = process.argv.slice(2);
const sizes = (argValue(argv, 'episodes') ?? '10000,100000').split(',').map(Number);
const calls = Number(argValue(argv, 'calls') ?? 200);
const queryCount = Number(argValue(argv, 'queries') ?? 40);
const factCount = Number(argValue(argv, 'facts') ?? 0);
const homeBase = argValue(argv, 'home-base') ?? fs.mkdtempSync(path.join(os.tmpdir(), 'nemori-companion-'));
// Another owner measures a store another benchmark built: `--owner scale` with bench:scale's folder
// linked as DIR/episodes-N.
const ownerId = argValue(argv, 'owner') ?? 'companion';
const log = (m: string) => process.stderr.write(`[companion] ${m}\n`);
const ms = (xs: number[]) => ({ p50: round(percentile(xs, 50), 2), p95: round(percentile(xs, 95), 2) });

/** add_memory's acknowledgement over stdio, as a desktop MCP client sees it. */
async function addMemoryOverStdio(): Promise<{ p50: number; p95: number; calls: number }> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'nemori-companion-mcp-'));
  const env = Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => !e[0].startsWith('NEMORI_') && e[1] !== undefined),
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(import.meta.dirname, '..', 'bin', 'nemori.mjs'), '--home', home, 'mcp'],
    env: { ...env, NEMORI_ALLOW_DOWNLOAD: '0', NEMORI_MODEL_DIR: path.dirname(TINY_MODEL_DIR), NEMORI_EMBEDDING_MODEL: TINY_MODEL_ID },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'nemori-bench', version: '1.0.0' });
  await client.connect(transport);
  const times: number[] = [];
  let conversationId: string | undefined;
  const start = Date.parse('2025-03-01T09:00:00Z');
  try {
    for (let i = 0; i < calls; i++) {
      const time = (k: number) => new Date(start + (2 * i + k) * 20_000).toISOString();
      const messages = [
        {
          speaker: 'Alice',
          role: 'user',
          text: `Exchange ${i}: I watered the basil and booked the dentist for the ${(i % 28) + 1}th.`,
          time: time(0),
        },
        { speaker: 'Nemo', role: 'assistant', text: `Noted, the dentist on the ${(i % 28) + 1}th.`, time: time(1) },
      ];
      const t = performance.now();
      const r = (await client.callTool({
        name: 'add_memory',
        arguments: { ...(conversationId ? { conversation_id: conversationId } : {}), messages },
      })) as {
        structuredContent?: { conversationId?: string };
        isError?: boolean;
      };
      times.push(performance.now() - t);
      if (r.isError) throw new Error('add_memory failed');
      conversationId ??= r.structuredContent?.conversationId;
    }
  } finally {
    await client.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
  return { ...ms(times.slice(5)), calls };
}

const { embedder: base, status } = await benchEmbedder('tiny');
if (!base) throw new Error(`the companion benchmark needs an embedding model: ${status.reason}`);
const queries = syntheticQueries(queryCount);
/**
 * Openings that name a period, in both languages: each reads the episodes of the days it names, a
 * search of its own (at 100k episodes these took 195–400 ms when that search walked the whole index).
 */
const PERIOD_OPENINGS = [
  'dinner last week',
  'what did we talk about yesterday',
  'the trip two weeks ago',
  'coffee on Monday',
  'books last month',
  '上周的晚饭',
  '昨天聊了什么',
  '上个月的会议',
];
const { embedder: model, embedMs } = await cachedQueries(base, [...queries, ...PERIOD_OPENINGS]);
// An engine disposes its model when it closes: the stores' engines share this one, disposed at the end.
const embedder: Embedder = { ...model, dispose: async () => {} };

log(`add_memory over stdio, ${calls} calls`);
const addMemory = calls > 0 ? await addMemoryOverStdio() : null;

const stores = [];
for (const size of sizes) {
  const home = path.join(homeBase, `episodes-${size}`);
  // This process holds the store; a second connection to the same folder is a client of it over loopback.
  const connect = async (): Promise<ConnectedEngine> => {
    const e = await connectOrOpenEngine({
      home,
      transport: loopback,
      open: ({ lock }) => openEngine({ home, embedder, embeddingStatus: status, lock }),
    });
    await e.ready;
    return e;
  };
  const engine = await connect();
  try {
    const filled = await fillStore(engine, ownerId, size, log);
    const facts = factCount > 0 ? await fillFacts(engine, ownerId, factCount, log) : null;
    const budgetTokens = 1200;
    const inProcess = await timeQueries(queries, (q) => engine.call('loadContext', { ownerId, query: q, budgetTokens }));
    const namingPeriods = await timeQueries([...PERIOD_OPENINGS, ...PERIOD_OPENINGS, ...PERIOD_OPENINGS], (q) =>
      engine.call('loadContext', { ownerId, query: q, budgetTokens }),
    );
    const remember = facts ? await timeQueries(queries, (q) => engine.call('remember', { ownerId, prompt: q })) : null;
    const client = await connect();
    if (client.role !== 'client') throw new Error('the second connection should have been a client of the first');
    let throughClient;
    try {
      throughClient = await timeQueries(queries, (q) => client.call('loadContext', { ownerId, query: q, budgetTokens }));
    } finally {
      await client.close();
    }
    stores.push({
      episodes: filled.episodes,
      ingestSeconds: round(filled.seconds, 1),
      ...(facts && {
        facts: facts.facts,
        factWriteSeconds: round(facts.seconds, 1),
        factWriteMs: facts.writeMs.length > 0 ? ms(facts.writeMs.slice(-1000)) : null,
        rememberMs: remember,
      }),
      loadContextMs: inProcess,
      namingPeriodsMs: namingPeriods,
      throughForwardingClientMs: throughClient,
      loopbackCostMs: { p50: round(throughClient.p50 - inProcess.p50, 2), p95: round(throughClient.p95 - inProcess.p95, 2) },
    });
  } finally {
    await engine.close();
  }
}
await model.dispose();

console.log(
  JSON.stringify(
    {
      embeddingModel: status.modelId,
      addMemoryAckOverStdioMs: addMemory,
      queryEmbeddingMs: ms(embedMs),
      loadContext: stores,
      homeBase,
    },
    null,
    2,
  ),
);
