/**
 * Scale benchmark: a deterministic mixed English/Chinese corpus ingested through the API, then search
 * latency per mode against raw SQL baselines on the same tables. Prints one JSON object.
 *
 *   npm run bench:scale -- --episodes 100000 [--home DIR] [--queries 60] [--model tiny|product]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { relevanceFloor } from '../core/retrieval/relevance-floor.js';
import { openEngine } from '../core/engine/open-engine.js';
import type { Embedder } from '../core/embed/embedder.js';
import { tokenize } from '../core/text/tokenize.js';
import { Store } from '../core/store/store.js';
import { benchEmbedder } from './embedder.js';
import { argValue, percentile, round } from './stats.js';
import { syntheticConversation, syntheticQueries } from './synthetic.js';

const argv = process.argv.slice(2);
const target = Number(argValue(argv, 'episodes') ?? 10_000);
const queryCount = Number(argValue(argv, 'queries') ?? 60);
const sessionsPerConversation = 100;
const home = argValue(argv, 'home') ?? fs.mkdtempSync(path.join(os.tmpdir(), 'nemori-scale-'));
const ownerId = 'scale';
const log = (m: string) => process.stderr.write(`[scale] ${m}\n`);

/** Serves pre-computed query vectors, so search timings exclude query embedding (reported apart). */
function cachedQueries(inner: Embedder, cache: Map<string, Float32Array>): Embedder {
  return {
    modelId: inner.modelId,
    dimensions: inner.dimensions,
    embed: async (texts, kind) => (kind === 'query' && texts.every((t) => cache.has(t)) ? texts.map((t) => cache.get(t)!) : inner.embed(texts, kind)),
    dispose: () => inner.dispose(),
  };
}

const { embedder: base, status } = await benchEmbedder((argValue(argv, 'model') ?? 'tiny') as 'product' | 'tiny');
if (!base) throw new Error(`the scale benchmark needs an embedding model: ${status.reason}`);
const queries = syntheticQueries(queryCount);
const embedTimes: number[] = [];
const cache = new Map<string, Float32Array>();
for (const q of queries) {
  const t = performance.now();
  cache.set(q, (await base.embed([q], 'query'))[0]!);
  embedTimes.push(performance.now() - t);
}
const embedder = cachedQueries(base, cache);

// Ingest through the API, conversation by conversation, as an import would.
// Engine settings as JSON, e.g. --config '{"retrieval":{"rerankDepth":0}}'
const config = JSON.parse(argValue(argv, 'config') ?? '{}') as object;
let engine = await openEngine({ home, embedder, embeddingStatus: status, config });
const existing = (await engine.call('stats', { ownerId })).owners[0]?.episodes ?? 0;
const ingestStarted = performance.now();
let messages = 0;
let built = existing;
for (let i = Math.floor(existing / sessionsPerConversation); built < target; i++) {
  const sessions = Math.min(sessionsPerConversation, target - built);
  const r = await engine.call('ingestConversation', { ownerId, source: 'synthetic', conversation: syntheticConversation(i, sessions) });
  messages += r.messagesAdded;
  built += r.episodesCreated;
  if (i % 50 === 0) log(`${built}/${target} episodes, ${round((performance.now() - ingestStarted) / 1000, 1)} s`);
}
const ingestSeconds = (performance.now() - ingestStarted) / 1000;
// The model's relevance floor is measured on first use with passage embeddings, which the query cache
// below cannot serve once the model is disposed: measure it now (remembered per embedder).
await relevanceFloor(embedder);
await engine.close();

// DB open time on an existing store: what a person waits for at app start.
const opens: number[] = [];
for (let i = 0; i < 3; i++) {
  const s = await Store.open({ dir: path.join(home, 'db') });
  opens.push(s.openMs);
  await s.close();
}

engine = await openEngine({ home, embedder, embeddingStatus: status, config });
const store = engine.context.store;
const time = async (fn: (q: string) => Promise<unknown>) => {
  for (const q of queries.slice(0, 5)) await fn(q); // warm caches and plans
  const ms: number[] = [];
  for (const q of queries) {
    const t = performance.now();
    await fn(q);
    ms.push(performance.now() - t);
  }
  return { p50: round(percentile(ms, 50), 2), p95: round(percentile(ms, 95), 2) };
};

const search: Record<string, { p50: number; p95: number }> = {};
for (const mode of ['bm25', 'vector', 'hybrid'] as const) {
  search[mode] = await time((q) => engine.call('search', { ownerId, query: q, mode, limit: 10 }));
}
const raw = {
  bm25Sql: await time((q) => store.read.baseline.bm25(ownerId, tokenize(q), 40)),
  knnSql: await time((q) => store.read.baseline.knn(ownerId, embedder.modelId, embedder.dimensions, cache.get(q)!, 40)),
};
const sizeBytes = await store.sizeOnDisk();
await engine.close();

console.log(
  JSON.stringify(
    {
      episodes: built,
      messages: messages || null,
      embeddingModel: status.modelId,
      ingest: { seconds: round(ingestSeconds, 1), episodesPerSecond: round((built - existing) / ingestSeconds, 1), messagesPerSecond: round(messages / ingestSeconds, 1) },
      dbOpenMs: { runs: opens.map((x) => round(x, 0)), median: round(percentile(opens, 50), 0) },
      onDiskMB: sizeBytes === null ? null : round(sizeBytes / 1e6, 1),
      rssMB: round(process.memoryUsage().rss / 1e6, 0),
      queryEmbeddingMs: { p50: round(percentile(embedTimes, 50), 2), p95: round(percentile(embedTimes, 95), 2) },
      searchMs: search,
      rawSqlMs: raw,
      overheadRatio: {
        bm25: round(search.bm25!.p50 / raw.bm25Sql.p50, 2),
        vector: round(search.vector!.p50 / raw.knnSql.p50, 2),
        hybrid: round(search.hybrid!.p50 / (raw.bm25Sql.p50 + raw.knnSql.p50), 2),
      },
      home,
    },
    null,
    2,
  ),
);
