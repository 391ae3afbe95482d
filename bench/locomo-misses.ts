/**
 * Why the evidence packer misses the questions it misses: for every question of the chosen categories
 * whose evidence the packed text at `--budget` words does not cover, each evidence turn with whether it
 * was packed, its place in the message ranking (−1: its episode never reached the candidates), its
 * score and matched terms, and its episode's place in the first stage by keywords, by vectors and
 * fused. Ends with a summary per category. Prints one JSON object.
 *
 *   npx tsx bench/locomo-misses.ts [--data PATH] [--model product|tiny|use-lite] [--mode hybrid|bm25]
 *                                  [--budget 1000] [--categories 1,2,3,4] [--pack '{"depth":60}']
 */
import path from 'node:path';
import { layerConfig } from '../core/context/engine-context.js';
import { PackConfig } from '../core/context/retrieval-config.js';
import type { SearchMode } from '../core/domain/search.js';
import { firstStage, packRanked, rankMessages } from '../core/retrieval/pack.js';
import type { BenchModel } from './embedder.js';
import { loadLocomo } from './locomo-data.js';
import { hit, questionsOf } from './locomo-eval.js';
import { locomoStages } from './locomo-stages.js';
import { argValue, percentile } from './stats.js';

const argv = process.argv.slice(2);
const data = path.resolve(argValue(argv, 'data') ?? path.join(import.meta.dirname, '..', '..', 'shared', 'bench', 'locomo-dev.json'));
const budget = Number(argValue(argv, 'budget') ?? 1000);
const categories = (argValue(argv, 'categories') ?? '1,2,3,4').split(',').map(Number);
const mode = (argValue(argv, 'mode') ?? 'hybrid') as SearchMode;
const model = (argValue(argv, 'model') ?? 'product') as BenchModel;
const cfg = PackConfig.parse(
  layerConfig(PackConfig.parse({}) as never, JSON.parse(argValue(argv, 'pack') ?? '{}') as Record<string, unknown>),
);

const samples = loadLocomo(data);
const { engine, ctx, modelId, docsOf, stats, stageFor } = await locomoStages(samples, { model, mode });
/** Where an episode stands in a first stage run this deep (−1: not in it). */
const EPISODE_DEPTH = 200;

const misses = [];
const perCategory = new Map<number, { questions: number; missed: number; notCandidates: number; ranks: number[] }>();
for (const q of questionsOf(samples).filter((x) => categories.includes(x.category))) {
  const c = perCategory.get(q.category) ?? { questions: 0, missed: 0, notCandidates: 0, ranks: [] };
  perCategory.set(q.category, c);
  c.questions++;
  const stage = await stageFor(q, cfg.depth);
  const ranked = await rankMessages(stage, q.question, stats.get(q.conversation)!, cfg);
  const blocks = packRanked(ranked, budget, cfg);
  if (hit(q, { items: blocks.map((b) => ({ text: b.text, covers: b.messages.map((m) => m.externalId) })) }, budget)) continue;
  c.missed++;
  const packed = new Set(blocks.flatMap((b) => b.messages.map((m) => m.externalId)));
  const episodeRanks = Object.fromEntries(
    await Promise.all(
      (['bm25', 'vector', 'hybrid'] as const).map(async (m) => {
        const hits = (await firstStage(ctx, q.conversation, q.question, EPISODE_DEPTH, m)).hits;
        return [m, (id: string | null) => hits.findIndex((h) => h.id === id)] as const;
      }),
    ),
  );
  const evidence = q.evidence.map((id) => {
    const doc = docsOf.get(q.conversation)!.find((d) => d.message.externalId === id);
    const rank = ranked.findIndex((r) => r.doc.message.externalId === id);
    if (!packed.has(id)) {
      if (rank < 0) c.notCandidates++;
      else c.ranks.push(rank);
    }
    const episodeId = doc?.message.episodeId ?? null;
    return {
      id,
      packed: packed.has(id),
      rank,
      score: rank >= 0 ? Math.round(ranked[rank]!.score * 1000) / 1000 : null,
      matched: rank >= 0 ? ranked[rank]!.matched : [],
      episodeRank: {
        bm25: episodeRanks.bm25!(episodeId),
        vector: episodeRanks.vector!(episodeId),
        hybrid: episodeRanks.hybrid!(episodeId),
      },
      line: doc ? `${doc.message.speaker}: ${doc.text}` : null,
    };
  });
  misses.push({ conversation: q.conversation, category: q.category, question: q.question, evidence });
}

console.log(
  JSON.stringify(
    {
      data: path.basename(data),
      model: modelId,
      mode,
      budget,
      pack: cfg,
      // Per category: the questions missed, their evidence turns that never became candidates, and the
      // ranks of the others that were left out (quartiles).
      summary: Object.fromEntries(
        [...perCategory].map(([k, v]) => [
          k,
          {
            questions: v.questions,
            missed: v.missed,
            evidenceNotCandidates: v.notCandidates,
            evidenceLeftOut: v.ranks.length,
            rankP25: percentile(v.ranks, 25),
            rankP50: percentile(v.ranks, 50),
            rankP75: percentile(v.ranks, 75),
          },
        ]),
      ),
      misses,
    },
    null,
    2,
  ),
);
await engine.close();
