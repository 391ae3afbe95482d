/**
 * Leave-one-conversation-out selection of the packer's parameters: every conversation is
 * ingested once, the first stage (episode search) is run once per question, and then every candidate
 * configuration of a grid packs evidence for every question. For each conversation, the configuration
 * with the best mean recall (over the budgets) on the *other* conversations is chosen and measured on
 * the held-out one; the pooled held-out hits are the honest estimate. Prints one JSON object.
 *
 *   npx tsx bench/locomo-loo.ts [--data PATH] [--model product|tiny|use-lite] [--mode hybrid|bm25]
 *                               [--budgets 500,1000,2000] [--grid NAME] [--base '{"depth":60}']
 *                               [--message-vectors [--message-bits | --message-top N]]
 *
 * Only the packer's settings (retrieval.pack) are searched here; the first stage runs with the engine's
 * retrieval settings (`--config` as in bench/locomo.ts).
 */
import path from 'node:path';
import { layerConfig } from '../core/context/engine-context.js';
import { PackConfig } from '../core/context/retrieval-config.js';
import type { SearchMode } from '../core/domain/search.js';
import { packRanked, rankMessages, type Stage } from '../core/retrieval/pack.js';
import type { BenchModel } from './embedder.js';
import { loadLocomo } from './locomo-data.js';
import { hit, questionsOf, summarize, type Outcome, type Question } from './locomo-eval.js';
import { argValue, round } from './stats.js';
import { GRIDS } from './locomo-grids.js';
import { locomoStages } from './locomo-stages.js';

const argv = process.argv.slice(2);
const data = path.resolve(argValue(argv, 'data') ?? path.join(import.meta.dirname, '..', '..', 'shared', 'bench', 'locomo-dev.json'));
const budgets = (argValue(argv, 'budgets') ?? '500,1000,2000').split(',').map(Number);
const mode = (argValue(argv, 'mode') ?? 'hybrid') as SearchMode;
const model = (argValue(argv, 'model') ?? 'product') as BenchModel;
const gridName = argValue(argv, 'grid') ?? 'default';
const base = JSON.parse(argValue(argv, 'base') ?? '{}') as Record<string, unknown>;
const extraConfig = JSON.parse(argValue(argv, 'config') ?? '{}') as { segment?: object; retrieval?: object };
const grid = GRIDS[gridName];
// An experiment, not the product: every message embedded too (the store keeps episode vectors only).
const messageVectors = argv.includes('--message-vectors');
// How the message vectors would be kept: as they are, or one sign bit per dimension (48–64 bytes a
// message, compared by Hamming distance: what a store could afford without an index).
const messageBits = argv.includes('--message-bits');
// Or embedded at query time: only the best N candidates by keywords get a similarity (a cost per query
// instead of per message stored).
const messageTop = Number(argValue(argv, 'message-top') ?? 0);
if (!grid) throw new Error(`unknown grid ${gridName}; known: ${Object.keys(GRIDS).join(', ')}`);

const samples = loadLocomo(data);
const {
  engine,
  ctx,
  modelId,
  docsOf,
  stats,
  stageFor: firstStageFor,
  modeUsed,
  warnings,
} = await locomoStages(samples, {
  model,
  mode,
  config: extraConfig,
});
const questions = questionsOf(samples);

async function stageFor(q: Question, depth: number): Promise<Stage> {
  const stage = await firstStageFor(q, depth);
  if (messageVectors && ctx.embedder) {
    let sims = similarities.get(q);
    if (!sims) {
      const [qv] = await ctx.embedder.embed([q.question], 'query');
      const query = messageBits ? qv!.map((x) => (x >= 0 ? 1 : -1) / Math.sqrt(qv!.length)) : qv!;
      sims = new Map(docsOf.get(q.conversation)!.map((d) => [d.message.id, dot(query, vectorOf.get(d.message.id)!)]));
      similarities.set(q, sims);
    }
    stage.similarity = sims;
  }
  return stage;
}
const similarities = new Map<Question, Map<string, number>>();
const vectorOf = new Map<string, Float32Array>();
const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
if (messageVectors && ctx.embedder) {
  const docs = [...docsOf.values()].flat();
  const vs = await ctx.embedder.embed(
    docs.map((d) => d.text),
    'passage',
  );
  // Sign bits as a ±1/√d vector: its dot product with another is 1 − 2·Hamming/d.
  const bits = (v: Float32Array) => v.map((x) => (x >= 0 ? 1 : -1) / Math.sqrt(v.length));
  docs.forEach((d, i) => vectorOf.set(d.message.id, messageBits ? bits(vs[i]!) : vs[i]!));
}

async function evaluate(cfg: PackConfig): Promise<Outcome[]> {
  const out: Outcome[] = [];
  for (const q of questions) {
    const stage = await stageFor(q, cfg.depth);
    let ranked = await rankMessages(
      messageTop > 0 ? { ...stage, similarity: undefined } : stage,
      q.question,
      stats.get(q.conversation)!,
      cfg,
    );
    if (messageTop > 0 && stage.similarity) {
      const sims = stage.similarity;
      // The rest count as least similar: unknown, not exempt.
      const top = new Map(ranked.slice(0, messageTop).map((r) => [r.doc.message.id, sims.get(r.doc.message.id)!]));
      const least = Math.min(...top.values());
      for (const r of ranked.slice(messageTop)) top.set(r.doc.message.id, least);
      ranked = await rankMessages({ ...stage, similarity: top }, q.question, stats.get(q.conversation)!, cfg);
    }
    const hits = new Map<number, boolean>();
    for (const b of budgets) {
      const blocks = packRanked(ranked, b, cfg);
      hits.set(b, hit(q, { items: blocks.map((x) => ({ text: x.text, covers: x.messages.map((m) => m.externalId) })) }, b));
    }
    out.push({ question: q, hits });
  }
  return out;
}

const mean = (outcomes: readonly Outcome[]) => {
  const r = summarize(outcomes, budgets).recall;
  return budgets.reduce((a, b) => a + r[String(b)]!, 0) / budgets.length;
};

const variants = grid.map((over) => ({ over, cfg: PackConfig.parse(layerConfig(layerConfig(PackConfig.parse({}) as never, base), over)) }));
const results: { over: Record<string, unknown>; outcomes: Outcome[] }[] = [];
const started = performance.now();
for (const [i, v] of variants.entries()) {
  results.push({ over: v.over, outcomes: await evaluate(v.cfg) });
  process.stderr.write(`\r${i + 1}/${variants.length} configurations (${round((performance.now() - started) / 1000, 0)} s)`);
}
process.stderr.write('\n');

const conversations = samples.map((s) => s.id);
const folds = conversations.map((held) => {
  const train = (o: Outcome[]) => o.filter((x) => x.question.conversation !== held);
  const test = (o: Outcome[]) => o.filter((x) => x.question.conversation === held);
  const best = results.reduce((a, b) => (mean(train(b.outcomes)) > mean(train(a.outcomes)) ? b : a));
  return {
    heldOut: held,
    chosen: best.over,
    train: summarize(train(best.outcomes), budgets).recall,
    heldOutRecall: summarize(test(best.outcomes), budgets).recall,
    heldOutOutcomes: test(best.outcomes),
  };
});
const pooled = folds.flatMap((f) => f.heldOutOutcomes);
const all = results.reduce((a, b) => (mean(b.outcomes) > mean(a.outcomes) ? b : a));
const baseline = results[0]!;

console.log(
  JSON.stringify(
    {
      data: path.basename(data),
      model: modelId,
      mode,
      modeUsed: modeUsed(),
      warnings: [...warnings],
      grid: gridName,
      base,
      configurations: variants.length,
      // The honest estimate: each conversation measured with what the other three chose.
      loo: { ...summarize(pooled, budgets), folds: folds.map(({ heldOutOutcomes: _, ...f }) => f) },
      // For reference only (tuned on all four): the first configuration of the grid, and the best one.
      first: { over: baseline.over, ...summarize(baseline.outcomes, budgets) },
      bestOnAll: { over: all.over, ...summarize(all.outcomes, budgets) },
      ranking: results
        .map((r) => {
          const s = summarize(r.outcomes, budgets);
          const byCategory = Object.fromEntries(Object.entries(s.byCategory).map(([k, v]) => [k, v.recall]));
          return { over: r.over, mean: round(mean(r.outcomes)), recall: s.recall, byCategory };
        })
        .sort((a, b) => b.mean - a.mean)
        .slice(0, 15),
      wallMs: round(performance.now() - started, 0),
    },
    null,
    2,
  ),
);
await engine.close();
