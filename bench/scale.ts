/**
 * Scale benchmark: a deterministic mixed English/Chinese corpus ingested through the API, then search
 * latency per mode against raw SQL baselines on the same tables. Prints one JSON object.
 *
 *   npm run bench:scale -- --episodes 100000 [--home DIR] [--owner ID] [--queries 60] [--model tiny|product|none]
 *
 * `--owner` measures another owner's memories, e.g. a store `bench:companion` built (its owner is "companion").
 * `--model none` imports and searches as the app does without an embedding model: keywords only.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { relevanceFloor } from '../core/retrieval/relevance-floor.js';
import { openEngine } from '../core/engine/open-engine.js';
import { withVectorIndexDeferred } from '../core/episodes/vector-index.js';
import { tokenize } from '../core/text/tokenize.js';
import { Store } from '../core/store/store.js';
import { benchEmbedder } from './embedder.js';
import { argValue, collectGarbage, memoryAfterGc, percentile, round } from './stats.js';
import { syntheticQueries } from './synthetic.js';
import { cachedQueries, fillStore, timeQueries } from './synthetic-store.js';

const argv = process.argv.slice(2);
const target = Number(argValue(argv, 'episodes') ?? 10_000);
const queryCount = Number(argValue(argv, 'queries') ?? 60);
const home = argValue(argv, 'home') ?? fs.mkdtempSync(path.join(os.tmpdir(), 'nemori-scale-'));
const ownerId = argValue(argv, 'owner') ?? 'scale';
const log = (m: string) => process.stderr.write(`[scale] ${m}\n`);

const model = argValue(argv, 'model') ?? 'tiny';
const { embedder: base, status } =
  model === 'none' ? { embedder: null, status: undefined } : await benchEmbedder(model as 'product' | 'tiny');
if (!base && status) throw new Error(`no ${model} embedding model here: ${status.reason}`);
const queries = syntheticQueries(queryCount);
const { embedder, cache, embedMs: embedTimes } = base ? await cachedQueries(base, queries) : { embedder: null, cache: null, embedMs: [] };

// Ingest through the API, conversation by conversation, as an import would: like importFiles, with the
// vector index deferred to the end of the whole import (core/episodes/vector-index.ts), whose build the
// ingest time includes.
// Engine settings as JSON, e.g. --config '{"retrieval":{"rerankDepth":0}}'
const config = JSON.parse(argValue(argv, 'config') ?? '{}') as object;
// The engine's open is what a companion waits for (after a crash it also counts integrity: core/episodes/repair.ts).
const openTimed = async () => {
  const started = performance.now();
  const opened = await openEngine({ home, embedder, ...(status ? { embeddingStatus: status } : {}), config });
  return { opened, ms: performance.now() - started };
};
let { opened: engine, ms: engineOpenMs } = await openTimed();
// The WAL's high-water mark while importing: what a person's disk must hold at worst.
let walPeak = 0;
const ingestStarted = performance.now();
const filled = await withVectorIndexDeferred(engine.context, ownerId, () =>
  fillStore(engine, ownerId, target, log, async () => {
    walPeak = Math.max(walPeak, await engine.context.store.walBytes());
  }),
);
// As importFiles ends: a vacuum of what the import left behind (core/ingest/import.ts), counted as ingest.
if (filled.added > 0) await engine.context.store.maintain(true);
const { episodes: built, messages } = filled;
const ingestSeconds = (performance.now() - ingestStarted) / 1000;
// The model's relevance floor is measured on first use with passage embeddings, which the query cache
// below cannot serve once the model is disposed: measure it now (remembered per embedder).
if (embedder) await relevanceFloor(embedder, '');
// A store just filled is opened again, as after a restart; one that was full already is searched by the
// engine that found it so. The closed engine's database memory is collected before the reopen: a
// restarted app holds none of it, and a reading taken while it waits for collection counted ~110 MB
// of it as the searching process's.
if (filled.added > 0) {
  await engine.close();
  await collectGarbage();
  ({ opened: engine, ms: engineOpenMs } = await openTimed());
}
const store = engine.context.store;
const time = (fn: (q: string) => Promise<unknown>) => timeQueries(queries, fn);

const search: Record<string, Awaited<ReturnType<typeof timeQueries>>> = {};
// The machine's load while searching: wall times are only comparable between runs under similar load.
const loadBefore = os.loadavg()[0]!;
for (const mode of embedder ? (['bm25', 'vector', 'hybrid'] as const) : (['bm25'] as const)) {
  search[mode] = await time((q) => engine.call('search', { ownerId, query: q, mode, limit: 10 }));
}
// Searches and journal pages of a period, from a day to all of it, ending at the newest episode
// or a year before: each period's calls one after another, as a person's come. A statement Postgres
// keeps one plan for after five runs must not read every period with the last one's plan (a search
// over twenty years of 100k episodes ran on a year's plan in 1.4 s).
const newest = (await engine.call('listEpisodes', { ownerId, limit: 1 })).episodes[0];
const periods: Record<string, { search: Awaited<ReturnType<typeof timeQueries>>; page: Awaited<ReturnType<typeof timeQueries>> }> = {};
if (newest) {
  const day = 86_400_000;
  for (const [back, ago] of [
    [0, 'latest'],
    [365, 'a year back'],
  ] as const) {
    const until = new Date(Date.parse(newest.end) - back * day);
    for (const days of [1, 30, 365, 7300]) {
      const since = new Date(until.getTime() - days * day);
      periods[`${days === 1 ? 'a day' : `${days} days`}, ${ago}`] = {
        search: await timeQueries(queries.slice(0, 8), (q) =>
          engine.call('search', { ownerId, query: q, mode: embedder ? 'hybrid' : 'bm25', since, until, limit: 10 }),
        ),
        page: await timeQueries(queries.slice(0, 8), () => engine.call('listEpisodes', { ownerId, since, until, limit: 50 })),
      };
    }
  }
}
const raw = {
  bm25Sql: await time((q) => store.read.baseline.bm25(ownerId, tokenize(q), 40)),
  ...(embedder && cache
    ? { knnSql: await time((q) => store.read.baseline.knn(ownerId, embedder.modelId, embedder.dimensions, cache.get(q)!, 40)) }
    : {}),
};
const loadAverage = { before: round(loadBefore, 1), after: round(os.loadavg()[0]!, 1), cores: os.cpus().length };
const sizeBytes = await store.sizeOnDisk();
const walBytes = await store.walBytes();
const tables = await store.tableSizes();
const searchRssMB = round(process.memoryUsage().rss / 1e6, 0);
const afterGc = await memoryAfterGc();
// PGlite's share of it: its WebAssembly memory, which only grows.
const databaseMemoryMB = round(store.databaseMemoryBytes() / 1e6, 0);
await engine.close();

// DB open time on an existing store: what a person waits for at app start.
const opens: number[] = [];
for (let i = 0; i < 3; i++) {
  const s = await Store.open({ dir: path.join(home, 'db') });
  opens.push(s.openMs);
  await s.close();
}
const mb = (n: number) => round(n / 1e6, 1);

console.log(
  JSON.stringify(
    {
      episodes: built,
      messages: messages || null,
      embeddingModel: status?.modelId ?? null,
      ingest: {
        seconds: round(ingestSeconds, 1),
        episodesPerSecond: round(filled.added / ingestSeconds, 1),
        messagesPerSecond: round(messages / ingestSeconds, 1),
      },
      dbOpenMs: { runs: opens.map((x) => round(x, 0)), median: round(percentile(opens, 50), 0) },
      engineOpenMs: round(engineOpenMs, 0),
      onDiskMB: sizeBytes === null ? null : mb(sizeBytes),
      bytesPerMessage: sizeBytes === null || !messages ? null : round(sizeBytes / messages, 0),
      walMB: { end: mb(walBytes), peakWhileImporting: mb(walPeak) },
      tablesMB: Object.fromEntries(
        tables.filter((t) => t.bytes >= 1e5).map((t) => [t.table, { total: mb(t.bytes), indexes: mb(t.indexBytes) }]),
      ),
      rssMB: searchRssMB,
      rssAfterGcMB: round(afterGc.rss / 1e6, 0),
      heapAfterGcMB: round(afterGc.heapUsed / 1e6, 1),
      databaseMemoryMB,
      loadAverage,
      queryEmbeddingMs: embedder ? { p50: round(percentile(embedTimes, 50), 2), p95: round(percentile(embedTimes, 95), 2) } : null,
      searchMs: search,
      periodsMs: periods,
      rawSqlMs: raw,
      overheadRatio: {
        bm25: round(search.bm25!.p50 / raw.bm25Sql.p50, 2),
        ...(raw.knnSql && {
          vector: round(search.vector!.p50 / raw.knnSql.p50, 2),
          hybrid: round(search.hybrid!.p50 / (raw.bm25Sql.p50 + raw.knnSql.p50), 2),
        }),
      },
      home,
    },
    null,
    2,
  ),
);
