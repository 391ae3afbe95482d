/**
 * What the scale and companion benchmarks share: query vectors embedded once (so timings exclude query
 * embedding, which is reported apart), a synthetic store filled through the API up to a number of
 * episodes (an existing one is topped up), and p50/p95 over a list of queries.
 */
import { askedHere, besidesPeriods, timeAnchors } from '../core/retrieval/query-time.js';
import type { Engine } from '../core/engine/open-engine.js';
import type { Embedder } from '../core/embed/embedder.js';
import { percentile, round } from './stats.js';
import { syntheticConversation, syntheticFact } from './synthetic.js';

const SESSIONS_PER_CONVERSATION = 100;

/** Embeds `queries` once; the returned embedder serves their vectors from the cache. */
export async function cachedQueries(
  inner: Embedder,
  queries: readonly string[],
): Promise<{ embedder: Embedder; cache: Map<string, Float32Array>; embedMs: number[] }> {
  const cache = new Map<string, Float32Array>();
  const embedMs: number[] = [];
  for (const q of queries) {
    const t = performance.now();
    cache.set(q, (await inner.embed([q], 'query'))[0]!);
    embedMs.push(performance.now() - t);
    // A search looks for a query without the words naming a period relative to now ("friday"): that text is embedded too.
    const topic = besidesPeriods(q, await timeAnchors(q, askedHere(new Date())));
    if (!cache.has(topic)) cache.set(topic, (await inner.embed([topic], 'query'))[0]!);
  }
  const embedder: Embedder = {
    modelId: inner.modelId,
    dimensions: inner.dimensions,
    embed: async (texts, kind) =>
      kind === 'query' && texts.every((t) => cache.has(t)) ? texts.map((t) => cache.get(t)!) : inner.embed(texts, kind),
    dispose: () => inner.dispose(),
  };
  return { embedder, cache, embedMs };
}

/** Conversations per `ingestConversations` call: stored one by one, then built together, as an import of a file of chats is. */
const CONVERSATIONS_PER_CALL = 10;

/** Ingests synthetic conversations through the API until the owner has `target` episodes. */
export async function fillStore(
  engine: Pick<Engine, 'call'>,
  ownerId: string,
  target: number,
  log: (m: string) => void,
  afterEach?: () => Promise<void>,
): Promise<{ episodes: number; added: number; messages: number; seconds: number }> {
  const existing = (await engine.call('stats', { ownerId })).owners[0]?.episodes ?? 0;
  const started = performance.now();
  let messages = 0;
  let built = existing;
  let logged = 0;
  for (let i = Math.floor(existing / SESSIONS_PER_CONVERSATION); built < target;) {
    const conversations = [];
    for (let left = target - built; left > 0 && conversations.length < CONVERSATIONS_PER_CALL; i++) {
      const sessions = Math.min(SESSIONS_PER_CONVERSATION, left);
      conversations.push(syntheticConversation(i, sessions));
      left -= sessions;
    }
    const r = await engine.call('ingestConversations', { ownerId, source: 'synthetic', conversations });
    for (const c of r.conversations) {
      messages += c.messagesAdded;
      built += c.episodesCreated;
    }
    await afterEach?.();
    if (built - logged >= 5000) {
      logged = built;
      log(`${built}/${target} episodes, ${round((performance.now() - started) / 1000, 1)} s`);
    }
  }
  return { episodes: built, added: built - existing, messages, seconds: (performance.now() - started) / 1000 };
}

/**
 * Stores synthetic facts through the API until the owner has `target` (an owner that has them is left
 * as it is); each write's time, in order.
 */
export async function fillFacts(
  engine: Pick<Engine, 'call'>,
  ownerId: string,
  target: number,
  log: (m: string) => void,
): Promise<{ facts: number; seconds: number; writeMs: number[] }> {
  const started = performance.now();
  const writeMs: number[] = [];
  let facts = (await engine.call('knowledgeCapacity', { ownerId })).items;
  for (let i = facts; facts < target; i++) {
    const t = performance.now();
    const r = await engine.call('upsertKnowledge', { ownerId, ...syntheticFact(i) });
    writeMs.push(performance.now() - t);
    if (r.action !== 'created') continue;
    facts++;
    if (facts % 2000 === 0) log(`${facts}/${target} facts, ${round((performance.now() - started) / 1000, 1)} s`);
  }
  return { facts, seconds: (performance.now() - started) / 1000, writeMs };
}

/**
 * p50/p95 in ms of `fn` over the queries, after a few warm-up runs (caches, plans); `cpuP50`/`cpuP95`:
 * this process's CPU time per call (user + system), which moves far less than wall time when other
 * processes share the machine, and leaves out work done in other processes.
 */
export async function timeQueries(
  queries: readonly string[],
  fn: (q: string) => Promise<unknown>,
): Promise<{ p50: number; p95: number; cpuP50: number; cpuP95: number }> {
  for (const q of queries.slice(0, 5)) await fn(q);
  const ms: number[] = [];
  const cpu: number[] = [];
  for (const q of queries) {
    const c = process.cpuUsage();
    const t = performance.now();
    await fn(q);
    ms.push(performance.now() - t);
    const used = process.cpuUsage(c);
    cpu.push((used.user + used.system) / 1000);
  }
  const at = (xs: number[], p: number) => round(percentile(xs, p), 2);
  return { p50: at(ms, 50), p95: at(ms, 95), cpuP50: at(cpu, 50), cpuP95: at(cpu, 95) };
}
