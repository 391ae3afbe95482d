import { NemoriError } from '../domain/errors.js';
import type { Episode, EpisodeDraft, EpisodePatch } from '../domain/episode.js';
import type { EngineContext } from '../context/engine-context.js';
import { bm25Doc, embeddingText, indexEpisodes, unindexEpisodes } from '../retrieval/indexing.js';
import type { Bm25Corpus } from '../store/bm25.js';
import { redactValue } from '../privacy/redact.js';

/**
 * The episode lifecycle as plain functions: every write to an episode rewrites its index
 * entries in the same transaction, so search never sees an episode its indexes disagree with.
 */

async function vectorFor(ctx: EngineContext, e: Pick<Episode, 'title' | 'summary' | 'content'>) {
  if (!ctx.embedder) return null;
  const [v] = await ctx.embedder.embed([embeddingText(e)], 'passage');
  return { modelId: ctx.embedder.modelId, dimensions: ctx.embedder.dimensions, vector: v! };
}

export async function createEpisode(ctx: EngineContext, ownerId: string, given: EpisodeDraft): Promise<Episode> {
  // Written by hand (or by a program): filtered for secrets as messages are (core/privacy).
  const draft = redactValue(given, ctx.config.privacy).value;
  const v = await vectorFor(ctx, draft);
  const id = await ctx.store.transaction(async (r) => {
    const id = await r.episodes.insert(ownerId, null, draft, ctx.clock.now());
    if (v) await r.vectors.ensureIndex(v);
    await indexEpisodes(
      r,
      ownerId,
      [{ id, ...draft }],
      v ? { modelId: v.modelId, rows: [{ episodeId: id, vector: v.vector }] } : null,
      ctx.config.retrieval.bm25,
    );
    await r.discoveryQueue.enqueue(ownerId, [id], ctx.clock.now());
    return id;
  });
  return (await ctx.store.read.episodes.get(ownerId, id))!;
}

export async function updateEpisode(ctx: EngineContext, ownerId: string, id: string, edit: EpisodePatch): Promise<Episode> {
  const patch = redactValue(edit, ctx.config.privacy).value;
  const before = await ctx.store.read.episodes.get(ownerId, id);
  if (!before) throw new NemoriError('NOT_FOUND', `no episode ${id}`);
  const after = { ...before, ...patch };
  const textChanged = ['title', 'summary', 'content'].some((k) => k in patch);
  const v = textChanged ? await vectorFor(ctx, after) : null;
  await ctx.store.transaction(async (r) => {
    await r.episodes.update(ownerId, id, patch, ctx.clock.now());
    await r.bm25.remove(ownerId, [id]);
    if (textChanged) await r.vectors.remove(ownerId, [id]);
    if (v) await r.vectors.ensureIndex(v);
    await indexEpisodes(
      r,
      ownerId,
      [after],
      v ? { modelId: v.modelId, rows: [{ episodeId: id, vector: v.vector }] } : null,
      ctx.config.retrieval.bm25,
    );
    // A rewritten story may teach something new: it is read for knowledge again.
    if (textChanged) await r.discoveryQueue.enqueue(ownerId, [id], ctx.clock.now());
  });
  return (await ctx.store.read.episodes.get(ownerId, id))!;
}

export async function deleteEpisode(ctx: EngineContext, ownerId: string, id: string): Promise<void> {
  const found = await ctx.store.transaction(async (r) => {
    await unindexEpisodes(r, ownerId, [id]);
    return r.episodes.delete(ownerId, id);
  });
  if (!found) throw new NemoriError('NOT_FOUND', `no episode ${id}`);
}

/** Reading an episode is recalling it (access tracking). */
export async function recallEpisode(ctx: EngineContext, ownerId: string, id: string): Promise<Episode> {
  await ctx.store.transaction((r) => r.episodes.recordAccess(ownerId, [id], ctx.clock.now()));
  const e = await ctx.store.read.episodes.get(ownerId, id);
  if (!e) throw new NemoriError('NOT_FOUND', `no episode ${id}`);
  return e;
}

/**
 * Rebuilds an owner's keyword index from the stored episodes. Read in batches (memory holds the
 * vocabulary, not the episodes), but written in one transaction — cleared and refilled inside it — so
 * a crash or kill -9 part way leaves the old index whole, never an empty or partial one; then the
 * space of the index it replaced is given back.
 */
export async function rebuildKeywordIndex(
  ctx: EngineContext,
  ownerId: string,
  ids: readonly string[],
  onProgress?: (done: number) => void,
): Promise<void> {
  const batch = 256;
  // Impacts normalise by average field lengths: measure the whole corpus first, so every document is
  // normalised against the same, final averages (an incremental index drifts slightly; this resets it).
  const corpus: Bm25Corpus = { docCount: 0, lengths: [0, 0, 0, 0, 0] };
  for (let i = 0; i < ids.length; i += batch) {
    for (const e of await ctx.store.read.episodes.getMany(ownerId, ids.slice(i, i + batch))) {
      corpus.docCount++;
      bm25Doc(e).lengths.forEach((l, f) => (corpus.lengths[f] = corpus.lengths[f]! + l));
    }
  }
  await ctx.store.transaction(async (r) => {
    const index = await r.bm25.rebuild(ownerId, { ...ctx.config.retrieval.bm25, corpus });
    for (let i = 0; i < ids.length; i += batch) {
      await index.add((await r.episodes.getMany(ownerId, ids.slice(i, i + batch))).map(bm25Doc));
      onProgress?.(Math.min(i + batch, ids.length));
    }
    await index.finish();
  });
  await ctx.store.compactKeywordIndex();
}

/**
 * Rebuilds every index of an owner: the keyword index (above), then vectors for episodes whose vector
 * is missing or from another model (all of them with `reembed`), batch by batch — each an upsert, so
 * an interrupted run leaves every old vector in place.
 */
export async function rebuildIndexes(
  ctx: EngineContext,
  ownerId: string,
  o: { reembed?: boolean; onProgress?: (done: number, total: number) => void } = {},
): Promise<{ episodes: number; embedded: number }> {
  const ids = await ctx.store.read.episodes.ids(ownerId);
  const stale = new Set(
    ctx.embedder && !o.reembed ? await ctx.store.read.vectors.stale(ownerId, ctx.embedder.modelId, ids.length || 1) : ids,
  );
  const total = ids.length + (ctx.embedder ? stale.size : 0);
  await rebuildKeywordIndex(ctx, ownerId, ids, (done) => o.onProgress?.(done, total));
  let embedded = 0;
  if (ctx.embedder) {
    const embedder = ctx.embedder;
    const toEmbed = ids.filter((id) => stale.has(id));
    for (let i = 0; i < toEmbed.length; i += 256) {
      const episodes = await ctx.store.read.episodes.getMany(ownerId, toEmbed.slice(i, i + 256));
      const vectors = await embedder.embed(episodes.map(embeddingText), 'passage');
      await ctx.store.transaction(async (r) => {
        await r.vectors.ensureIndex({ modelId: embedder.modelId, dimensions: embedder.dimensions });
        await r.vectors.upsert(
          ownerId,
          embedder.modelId,
          episodes.map((e, j) => ({ episodeId: e.id, vector: vectors[j]! })),
        );
      });
      embedded += episodes.length;
      o.onProgress?.(ids.length + embedded, total);
    }
  }
  await ctx.store.maintain(true);
  return { episodes: ids.length, embedded };
}
