/**
 * LoCoMo evidence recall (a question is a hit when the results that fit in the word budget cover all its evidence). Prints one JSON object:
 * {"recall": {"500": x, ...}, "byCategory": {...}, "latencyMs": {"p50", "p95"}, "questions": n, ...}
 *
 *   npm run bench:locomo -- --data PATH [--budgets 500,1000,2000] [--mode hybrid|bm25|vector] [--model product|tiny]
 *                          [--fusion weighted|rrf] [--alpha 0.7] [--config '{"segment":{…}}']
 *                          [--forget] [--age-days N] [--llm [--llm-base-url URL] [--llm-model NAME]]
 *                          [--facts observations] [--kind all|episodic|semantic]
 *
 * Forgetting: `--forget` runs a forgetting pass right after ingest, with every memory fresh
 * (it must lose no recall); `--age-days N` moves the engine clock N days past the ingest with no access
 * in between, runs the pass, and only then asks the questions. Both report the tiers after the pass.
 *
 * LLM: `--llm` builds episodes with the configured endpoint (NEMORI_LLM_BASE_URL /
 * NEMORI_LLM_MODEL / NEMORI_LLM_API_KEY, or the flags) and adds an "llm" block: requests, tokens and
 * time, in total and per 1,000 messages. Never in CI: it needs a real model. Without `--llm` the LLM is
 * off whatever the environment says, so the default numbers stay comparable.
 *
 * Semantic memory: `--facts observations` runs knowledge discovery after ingest against a
 * stand-in LLM that answers with LoCoMo's annotated observations (bench/observation-llm.ts), so facts
 * compete with episodes in the results: a fact's text costs budget like any item, and it covers the
 * turns it was drawn from. `--kind` chooses what search returns (default all). With `--llm`, discovery
 * runs with the real endpoint instead.
 */
import path from 'node:path';
import { openEngine } from '../core/engine/open-engine.js';
import type { Clock } from '../core/context/engine-context.js';
import { llmConfigFromEnv } from '../core/llm/config.js';
import type { SearchMode } from '../core/domain/search.js';
import type { OpOutput } from '../core/api/contract.js';
import { benchEmbedder, type BenchModel } from './embedder.js';
import { hit, questionsOf, retrieve, summarize, type Outcome, type Through } from './locomo-eval.js';
import { startObservationLlm } from './observation-llm.js';
import { loadLocomo } from './locomo-data.js';
import { argValue, percentile, round } from './stats.js';

const argv = process.argv.slice(2);
const data = path.resolve(argValue(argv, 'data') ?? path.join(import.meta.dirname, '..', '..', 'shared', 'bench', 'locomo-dev.json'));
const budgets = (argValue(argv, 'budgets') ?? '500,1000,2000').split(',').map(Number);
const mode = (argValue(argv, 'mode') ?? 'hybrid') as SearchMode;
const retrieveLimit = Number(argValue(argv, 'limit') ?? 60);
const through = (argValue(argv, 'through') ?? 'search') as Through;
if (!['search', 'pack', 'load-context'].includes(through)) throw new Error(`--through knows search, pack and load-context, got ${through}`);
const kind = (argValue(argv, 'kind') ?? 'all') as 'all' | 'episodic' | 'semantic';
const factsFrom = argValue(argv, 'facts');
if (factsFrom !== undefined && factsFrom !== 'observations') throw new Error(`--facts knows only "observations", got ${factsFrom}`);
const fusion = argValue(argv, 'fusion') as 'weighted' | 'rrf' | undefined;
const alpha = argValue(argv, 'alpha');
const retrievalConfig = { ...(fusion ? { fusion } : {}), ...(alpha ? { alpha: Number(alpha) } : {}) };
// Any engine setting, as JSON: --config '{"segment":{"maxMessages":8}}'
const extraConfig = JSON.parse(argValue(argv, 'config') ?? '{}') as { segment?: object; retrieval?: object; forgetting?: object };
const ageDays = Number(argValue(argv, 'age-days') ?? 0);
const forget = argv.includes('--forget') || ageDays > 0;
if (!Number.isFinite(ageDays) || ageDays < 0) throw new Error(`--age-days wants a number of days, got ${argValue(argv, 'age-days')}`);
// The engine's clock, moved by hand: ingest happens "now", the pass N days later (never the system time).
let clockMs = Date.parse('2025-01-01T00:00:00Z');
const clock: Clock = { now: () => new Date(clockMs) };

const useLlm = argv.includes('--llm');
const llmSetup = useLlm
  ? llmConfigFromEnv(process.env, { baseUrl: argValue(argv, 'llm-base-url'), model: argValue(argv, 'llm-model') })
  : { config: null, warning: null };
if (useLlm && !llmSetup.config)
  throw new Error(
    `--llm needs an endpoint: set NEMORI_LLM_MODEL (and NEMORI_LLM_BASE_URL unless it is a local Ollama), or pass --llm-model${llmSetup.warning ? ` (${llmSetup.warning})` : ''}`,
  );
const llmWarnings = new Set<string>();

const samples = loadLocomo(data);
const model = (argValue(argv, 'model') ?? 'product') as BenchModel;
const { embedder, status } = await benchEmbedder(model);
const engine = await openEngine({
  home: null,
  embedder,
  embeddingStatus: status,
  clock,
  llm: llmSetup.config,
  warn: (m) => llmWarnings.add(m),
  config: {
    segment: extraConfig.segment ?? {},
    retrieval: { ...retrievalConfig, ...extraConfig.retrieval },
    forgetting: extraConfig.forgetting ?? {},
  },
});

const latencies: number[] = [];
const modesUsed = new Set<string>();
const warnings = new Set<string>();
const itemsSeen = { episode: 0, semantic: 0 };
let episodes = 0;
let messages = 0;
const ingestStarted = performance.now();
let ingestMs = 0;

for (const s of samples) {
  const t0 = performance.now();
  const r = await engine.call('ingestConversation', { ownerId: s.id, source: 'locomo', conversation: s.conversation });
  ingestMs += performance.now() - t0;
  episodes += r.episodesCreated;
  messages += r.messagesAdded;
}
const ingestWallMs = performance.now() - ingestStarted;

// What building with the LLM cost, from the usage log (one row per HTTP request, retries included).
async function llmReport() {
  const sum = { requests: 0, failed: 0, tokensIn: 0, tokensOut: 0, llmMs: 0 };
  const episodesBy = { llm: 0, heuristicNeedsRebuild: 0 };
  for (const s of samples) {
    const u = (await engine.call('llmUsage', { ownerId: s.id, limit: 0 })).totals;
    sum.requests += u.requests;
    sum.failed += u.failed;
    sum.tokensIn += u.tokensIn;
    sum.tokensOut += u.tokensOut;
    sum.llmMs += u.latencyMs;
    for (const e of (await engine.call('listEpisodes', { ownerId: s.id, limit: 1000 })).episodes) {
      if (e.builder === 'llm') episodesBy.llm++;
      else if (e.processingStatus === 'needs_rebuild') episodesBy.heuristicNeedsRebuild++;
    }
  }
  const per1000 = (x: number) => round(messages ? (x * 1000) / messages : 0, 1);
  const d = engine.context.llm?.describe();
  return {
    model: d?.model ?? null,
    baseUrl: d?.baseUrl ?? null,
    ...sum,
    episodes: episodesBy,
    ingestWallMs: round(ingestWallMs, 0),
    per1000Messages: {
      requests: per1000(sum.requests),
      tokensIn: per1000(sum.tokensIn),
      tokensOut: per1000(sum.tokensOut),
      wallMs: per1000(ingestWallMs),
    },
    warnings: [...llmWarnings].slice(0, 5),
  };
}
const llm = useLlm ? await llmReport() : null;

// Knowledge discovery: with the real LLM it already runs behind each ingest (runDiscovery waits for it);
// with --facts observations, against the stand-in, switched on for this phase only.
async function discover() {
  const total: OpOutput<'runDiscovery'>['facts'] & { episodes: number; failed: number; llmCalls: number; facts: number } = {
    created: 0,
    evolved: 0,
    corrected: 0,
    reinforced: 0,
    merged: 0,
    episodes: 0,
    failed: 0,
    llmCalls: 0,
    facts: 0,
  };
  const standIn = factsFrom ? await startObservationLlm(samples) : null;
  const started = performance.now();
  if (standIn) await engine.call('setLlmSettings', { baseUrl: standIn.url, model: standIn.model, backoffMs: 1 });
  try {
    for (const s of samples) {
      const r = await engine.call('runDiscovery', { ownerId: s.id });
      for (const k of ['created', 'evolved', 'corrected', 'reinforced', 'merged'] as const) total[k] += r.facts[k];
      total.episodes += r.episodes;
      total.failed += r.failed;
      total.llmCalls += r.llmCalls;
      total.facts += (await engine.call('knowledgeCapacity', { ownerId: s.id })).items;
    }
  } finally {
    if (standIn) {
      await engine.call('setLlmSettings', { enabled: false });
      await standIn.close();
    }
  }
  return {
    source: standIn ? 'LoCoMo observations through a stand-in LLM (oracle facts)' : 'the configured LLM',
    ...total,
    wallMs: round(performance.now() - started, 0),
  };
}
const semantic = factsFrom || useLlm ? await discover() : null;

// Questions are asked only after every conversation is in and (optionally) the pass has run, so all
// owners age the same N days and searching never counts as access (markAccessed is off).
const forgetting = {
  ageDays,
  passes: 0,
  moved: { archived: 0, trashed: 0, purged: 0, restored: 0 },
  tiers: { active: 0, archived: 0, trash: 0 },
};
if (forget) {
  clockMs += ageDays * 86_400_000;
  for (const s of samples) {
    const pass = await engine.call('runForgetting', { ownerId: s.id });
    forgetting.passes++;
    for (const k of ['archived', 'trashed', 'purged', 'restored'] as const) forgetting.moved[k] += pass.moved[k];
    for (const k of ['active', 'archived', 'trash'] as const) forgetting.tiers[k] += pass.tiers[k];
  }
}

const outcomes: Outcome[] = [];
for (const q of questionsOf(samples)) {
  const r = await retrieve(engine, engine.context, q.conversation, q.question, budgets, { through, mode, kind, limit: retrieveLimit });
  latencies.push(r.ms);
  if (r.modeUsed) modesUsed.add(r.modeUsed);
  for (const w of r.warnings) warnings.add(w);
  for (const k of r.kinds) itemsSeen[k as 'episode' | 'semantic']++;
  outcomes.push({ question: q, hits: new Map(budgets.map((b) => [b, hit(q, r.byBudget.get(b)!, b)])) });
}
const questions = outcomes.length;
await engine.close();

const summary = summarize(outcomes, budgets);
console.log(
  JSON.stringify(
    {
      data: path.basename(data),
      mode,
      modeUsed: [...modesUsed].join(','),
      retrieval: engine.context.config.retrieval,
      embeddingModel: status.available ? status.modelId : null,
      warnings: [...warnings, ...(status.reason ? [status.reason] : [])],
      through,
      ...summary,
      latencyMs: { p50: round(percentile(latencies, 50), 1), p95: round(percentile(latencies, 95), 1) },
      questions,
      conversations: samples.length,
      messages,
      episodes,
      ...(forget ? { forgetting } : {}),
      ...(llm ? { llm } : {}),
      kind,
      ...(semantic
        ? { semantic: { ...semantic, resultShare: round(itemsSeen.semantic / Math.max(1, itemsSeen.semantic + itemsSeen.episode)) } }
        : {}),
      ingestMs: round(ingestMs, 0),
      wallMs: round(performance.now() - ingestStarted, 0),
    },
    null,
    2,
  ),
);
