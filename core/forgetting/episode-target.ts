import type { EngineContext } from '../context/engine-context.js';
import { entityKey } from '../episodes/entity-names.js';
import { bm25Doc, embeddingText } from '../retrieval/indexing.js';
import { chunks } from '../store/sql.js';
import type { Tier } from './decay.js';
import { asRecord, tierItem, type ApplyOutcome, type ForgettingTarget, type Move } from './target.js';
import { quantity } from '../text/describe.js';

/** Moves per transaction: a crash loses at most one batch's progress, never half a move. */
const BATCH = 256;

/**
 * Re-embeds episodes coming back to the active tier. The model runs before any transaction opens
 * (it is slow, and the database must not wait on it); without a model the episode comes back
 * keyword-only and `nemori rebuild` embeds it later (`vectors.stale` lists it).
 */
async function vectorsFor(ctx: EngineContext, ownerId: string, ids: readonly string[]): Promise<Map<string, Float32Array>> {
  const out = new Map<string, Float32Array>();
  if (!ctx.embedder || ids.length === 0) return out;
  const episodes = await ctx.store.read.episodes.getMany(ownerId, ids);
  const vectors = await ctx.embedder.embed(episodes.map(embeddingText), 'passage');
  episodes.forEach((e, i) => out.set(e.id, vectors[i]!));
  return out;
}

async function restore(ctx: EngineContext, ownerId: string, moves: readonly Move[], now: Date, out: ApplyOutcome): Promise<void> {
  const ids = moves.map((m) => m.id);
  // A trashed episode edited while in the trash has stale parked entries: index it afresh instead
  // (moving it to the trash set updated_at = tier_changed_at; only a later edit moves it past).
  const records = new Map((await ctx.store.read.forgetting.episodeDecayRows(ownerId, ids)).map((r) => [r.id, r]));
  const stale = moves
    .filter((m) => {
      const r = records.get(m.id);
      return m.from === 'trash' && r !== undefined && r.tierChangedAt !== null && r.updatedAt > r.tierChangedAt;
    })
    .map((m) => m.id);
  const staleDocs = stale.length ? (await ctx.store.read.episodes.getMany(ownerId, stale)).map(bm25Doc) : [];
  const vectors = await vectorsFor(ctx, ownerId, ids);
  const embedder = ctx.embedder;
  await ctx.store.transaction(async (r) => {
    // Active first: vectors and keyword entries are only written for active episodes.
    await r.forgetting.setEpisodeTier(ownerId, 'active', moves, now);
    const fromTrash = moves.filter((m) => m.from === 'trash').map((m) => m.id);
    await r.bm25.dropParked(ownerId, stale);
    await r.bm25.unpark(
      ownerId,
      fromTrash.filter((id) => !stale.includes(id)),
    );
    if (staleDocs.length) await r.bm25.add(ownerId, staleDocs, ctx.config.retrieval.bm25);
    if (embedder && vectors.size > 0) {
      await r.vectors.ensureIndex({ modelId: embedder.modelId, dimensions: embedder.dimensions });
      await r.vectors.upsert(
        ownerId,
        embedder.modelId,
        [...vectors].map(([episodeId, vector]) => ({ episodeId, vector })),
      );
    }
  });
  out.reembedded += vectors.size;
  if (!embedder)
    out.warnings.push(
      `${quantity(moves.length, 'episode')} restored without vectors (no embedding model): run \`nemori rebuild\` once the model is available`,
    );
  out.done.push(...ids);
}

export const episodeTarget: ForgettingTarget = {
  kind: 'episode',

  async records(ctx, ownerId, ids) {
    const rows = await ctx.store.read.forgetting.episodeDecayRows(ownerId, ids);
    return rows.map(asRecord('episode'));
  },

  titles: (ctx, ownerId, ids) => ctx.store.read.forgetting.episodeTitles(ownerId, ids),

  tierCounts: (ctx, ownerId) => ctx.store.read.forgetting.tierCounts(ownerId),

  async apply(ctx, ownerId, moves, now, signal) {
    const out: ApplyOutcome = { done: [], reembedded: 0, warnings: [] };
    // Each batch is whole or not at all; an abort (the engine closing) stops before the next one.
    const byTarget = (to: Tier | 'purged') => (signal?.aborted ? [] : moves.filter((m) => m.to === to));

    for (const batch of chunks(byTarget('archived'), BATCH)) {
      if (signal?.aborted) break;
      await ctx.store.transaction(async (r) => {
        const ids = batch.map((m) => m.id);
        await r.vectors.remove(ownerId, ids);
        await r.forgetting.setEpisodeTier(ownerId, 'archived', batch, now);
      });
      out.done.push(...batch.map((m) => m.id));
    }

    for (const batch of chunks(byTarget('trash'), BATCH)) {
      if (signal?.aborted) break;
      await ctx.store.transaction(async (r) => {
        const ids = batch.map((m) => m.id);
        await r.bm25.park(ownerId, ids, now);
        await r.vectors.remove(ownerId, ids);
        await r.forgetting.setEpisodeTier(ownerId, 'trash', batch, now);
      });
      out.done.push(...batch.map((m) => m.id));
    }

    for (const batch of chunks(byTarget('purged'), BATCH)) {
      if (signal?.aborted) break;
      const purged = await ctx.store.transaction(async (r) => {
        const ids = batch.map((m) => m.id);
        // Live entries exist only if something re-indexed a trashed episode behind our back; remove
        // them through bm25.remove so document frequencies stay exact, then delete for good.
        await r.bm25.remove(ownerId, ids);
        await r.vectors.remove(ownerId, ids);
        return r.forgetting.purgeEpisodes(ownerId, ids, ctx.config.forgetting.redactSourceMessages);
      });
      out.done.push(...purged);
    }

    for (const batch of chunks(byTarget('active'), BATCH)) {
      if (signal?.aborted) break;
      await restore(ctx, ownerId, batch, now, out);
    }
    return out;
  },

  async setImportance(ctx, ownerId, rows) {
    await ctx.store.transaction((r) => r.forgetting.setEpisodeImportance(ownerId, rows));
  },

  mark: (ctx, ownerId, id, marked, importance, now) =>
    ctx.store.transaction((r) => r.forgetting.markEpisode(ownerId, id, marked, importance, now)),

  async mentioning(ctx, ownerId, about, matches, sourceEpisodes) {
    const found = (await ctx.store.read.forgetting.episodesContaining(ownerId, about))
      .filter((e) => matches(`${e.title}\n${e.summary}\n${e.content}\n${e.labels}`))
      .map((e) => ({ id: e.id, title: e.title, tier: e.tier }));
    // An episode built from a message about X is derived from it: it goes with the message. An episode
    // the knowledge graph links to X goes too, even when its text calls X by another name ("Thomas").
    const known = new Set(found.map((e) => e.id));
    const linked = await ctx.store.read.graph.episodesOfEntityKey(ownerId, entityKey(about));
    const derived = [...sourceEpisodes, ...linked].filter((id) => !known.has(id));
    if (derived.length) {
      const rows = await ctx.store.read.forgetting.episodeDecayRows(ownerId, [...new Set(derived)]);
      const titles = await ctx.store.read.forgetting.episodeTitles(
        ownerId,
        rows.map((r) => r.id),
      );
      for (const r of rows) found.push({ id: r.id, title: titles.get(r.id) ?? '', tier: r.tier });
    }
    return found;
  },

  async erase(ctx, ownerId, ids) {
    const erased: string[] = [];
    for (const batch of chunks(ids, BATCH)) {
      erased.push(
        ...(await ctx.store.transaction(async (r) => {
          await r.bm25.remove(ownerId, batch);
          await r.vectors.remove(ownerId, batch);
          return r.forgetting.purgeEpisodes(ownerId, batch, true);
        })),
      );
    }
    return erased;
  },

  async list(ctx, ownerId, tier, page) {
    const rows = await ctx.store.read.forgetting.listEpisodesInTier(ownerId, tier, page);
    return rows.map((x) => tierItem('episode', x, { title: x.title, summary: x.summary, start: x.startAt }));
  },
};
