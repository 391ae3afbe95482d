/**
 * What bench/locomo-loo.ts and bench/locomo-misses.ts share: every LoCoMo conversation ingested once
 * into an in-memory engine, every message prepared for scoring once, a term-statistics cache per
 * conversation, and the first stage (episode search) run once per question and depth.
 */
import { openEngine, type Engine } from '../core/engine/open-engine.js';
import type { EngineContext } from '../core/context/engine-context.js';
import type { SearchMode } from '../core/domain/search.js';
import type { EpisodeHeader } from '../core/store/episodes.js';
import { messageDocs, type MessageDoc } from '../core/retrieval/messages.js';
import { firstStage, stageFrom, type FirstStage, type Stage, type TermStats } from '../core/retrieval/pack.js';
import { benchEmbedder, type BenchModel } from './embedder.js';
import type { LocomoSample } from './locomo-data.js';
import type { Question } from './locomo-eval.js';

export interface LocomoStages {
  engine: Engine;
  ctx: EngineContext;
  modelId: string | null;
  /** Per conversation: every message of its episodes, prepared once. */
  docsOf: Map<string, MessageDoc[]>;
  /** Per conversation: document frequencies, read from the store once per term. */
  stats: Map<string, TermStats>;
  /** The first stage of a question at a depth (cached), as the packer's candidates. */
  stageFor(q: Question, depth: number): Promise<Stage>;
  modeUsed(): string;
  warnings: Set<string>;
}

export async function locomoStages(
  samples: readonly LocomoSample[],
  o: { model: BenchModel; mode: SearchMode; config?: { segment?: object; retrieval?: object } },
): Promise<LocomoStages> {
  const { embedder, status } = await benchEmbedder(o.model);
  const engine = await openEngine({
    home: null,
    embedder,
    embeddingStatus: status,
    config: { segment: o.config?.segment ?? {}, retrieval: o.config?.retrieval ?? {} },
  });
  const ctx = engine.context;
  for (const s of samples) await engine.call('ingestConversation', { ownerId: s.id, source: 'locomo', conversation: s.conversation });

  const docsOf = new Map<string, MessageDoc[]>();
  const stats = new Map<string, TermStats>();
  for (const s of samples) {
    const ids = await ctx.store.read.episodes.ids(s.id);
    const headers: EpisodeHeader[] = await ctx.store.read.episodes.headers(s.id, ids);
    const messages = await ctx.store.read.conversations.messagesOfEpisodes(s.id, ids);
    docsOf.set(s.id, messageDocs(messages, new Map(headers.map((h) => [h.id, h]))));
    const cache = new Map<string, number>();
    let docCount = -1;
    stats.set(s.id, async (terms) => {
      const missing = terms.filter((t) => !cache.has(t));
      if (missing.length || docCount < 0) {
        const r = await ctx.store.read.bm25.termStats(s.id, missing);
        docCount = r.docCount;
        for (const t of missing) cache.set(t, r.df.get(t) ?? 0);
      }
      return { docCount, df: new Map(terms.map((t) => [t, cache.get(t)!])) };
    });
  }

  // The first stage depends only on the depth: run once per question and depth.
  const firstStages = new Map<string, FirstStage>();
  let modeUsed = '';
  const warnings = new Set<string>();
  const stageFor = async (q: Question, depth: number): Promise<Stage> => {
    const key = `${depth}\u0000${q.conversation}\u0000${q.question}`;
    let first = firstStages.get(key);
    if (!first) {
      first = await firstStage(ctx, q.conversation, q.question, depth, o.mode);
      firstStages.set(key, first);
      modeUsed = first.modeUsed;
      for (const w of first.warnings) warnings.add(w);
    }
    const keep = new Set(first.hits.map((h) => h.id));
    return stageFrom(
      first,
      docsOf.get(q.conversation)!.filter((d) => d.message.episodeId !== null && keep.has(d.message.episodeId)),
    );
  };
  return {
    engine,
    ctx,
    modelId: status.available ? status.modelId : null,
    docsOf,
    stats,
    stageFor,
    modeUsed: () => modeUsed,
    warnings,
  };
}
