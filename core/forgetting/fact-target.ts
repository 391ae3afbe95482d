import type { EngineContext } from '../context/engine-context.js';
import type { Fact } from '../domain/fact.js';
import { moveFacts } from '../facts/tiers.js';
import { chunks } from '../store/sql.js';
import type { Tier } from './decay.js';
import { asRecord, tierItem, type ApplyOutcome, type ForgettingTarget, type Move } from './target.js';
import { quantity } from '../text/describe.js';

/**
 * Semantic facts under the forgetting logic. Simpler than episodes: a trashed fact keeps its keyword
 * entries (fact search skips the trash by its tier, so nothing is parked), only active facts have a
 * vector (`moveFacts` drops and re-embeds them), and a fact owns no messages, so a purge deletes the
 * fact with its versions, links, relationships, keyword entries and vector (foreign-key cascades) and
 * leaves the conversations it was learnt from to the episodes built from them.
 */

/** Moves per transaction: a crash loses at most one batch's progress, never half a move. */
const BATCH = 256;

const title = (n: Pick<Fact, 'label' | 'key'>) => n.label || n.key;

/** Moves one batch with `moveFacts`, each fact keeping its own reason (its score is in it). */
async function move(ctx: EngineContext, ownerId: string, batch: readonly Move[], tier: Tier, now: Date) {
  const ids = batch.map((m) => m.id);
  if (tier === 'active') {
    // Re-embedding must not hold the database, and `moveFacts` embeds before its own transaction only:
    // the reasons follow in a second, one-statement write.
    const out = await moveFacts(ctx, ownerId, await ctx.store.read.facts.byIds(ownerId, ids), tier, null, now);
    await ctx.store.transaction((r) => r.factForgetting.setReasons(ownerId, batch));
    return out;
  }
  return ctx.store.transaction(async (r) => {
    const out = await moveFacts(ctx, ownerId, await r.facts.byIds(ownerId, ids), tier, null, now, r);
    await r.factForgetting.setReasons(ownerId, batch);
    return out;
  });
}

/** Deletes facts for good, a batch per transaction; returns the ids that existed. */
async function deleteFacts(ctx: EngineContext, ownerId: string, ids: readonly string[], signal?: AbortSignal): Promise<string[]> {
  const deleted: string[] = [];
  for (const batch of chunks(ids, BATCH)) {
    if (signal?.aborted) break;
    deleted.push(...(await ctx.store.transaction((r) => r.facts.delete(ownerId, batch))));
  }
  return deleted;
}

export const factTarget: ForgettingTarget = {
  kind: 'semantic',

  async records(ctx, ownerId, ids) {
    const rows = await ctx.store.read.factForgetting.rows(ownerId, ids);
    return rows.map(asRecord('semantic'));
  },

  async titles(ctx, ownerId, ids) {
    return new Map((await ctx.store.read.facts.byIds(ownerId, ids)).map((n) => [n.id, title(n)]));
  },

  tierCounts: (ctx, ownerId) => ctx.store.read.factForgetting.tierCounts(ownerId),

  async apply(ctx, ownerId, moves, now, signal) {
    const out: ApplyOutcome = { done: [], reembedded: 0, warnings: [] };
    let restored = 0;
    // Each batch is whole or not at all; an abort (the engine closing) stops before the next one.
    for (const to of ['archived', 'trash', 'purged', 'active'] as const) {
      const ofTarget = moves.filter((m) => m.to === to);
      if (to === 'purged') {
        out.done.push(
          ...(await deleteFacts(
            ctx,
            ownerId,
            ofTarget.map((m) => m.id),
            signal,
          )),
        );
        continue;
      }
      for (const batch of chunks(ofTarget, BATCH)) {
        if (signal?.aborted) break;
        const { moved, reembedded } = await move(ctx, ownerId, batch, to, now);
        out.done.push(...moved);
        out.reembedded += reembedded;
        if (to === 'active') restored += moved.length;
      }
    }
    // Nothing re-embeds facts later (rebuild is for episodes); learning the fact again gives it its vector back.
    if (restored > 0 && !ctx.embedder) {
      out.warnings.push(
        `${quantity(restored, 'fact')} restored without vectors (no embedding model): found by keyword only until nemori rebuild runs with the model available`,
      );
    }
    return out;
  },

  async setImportance(ctx, ownerId, rows) {
    await ctx.store.transaction((r) => r.facts.setImportance(ownerId, rows));
  },

  mark: (ctx, ownerId, id, marked, importance) => ctx.store.transaction((r) => r.facts.mark(ownerId, id, marked, importance)),

  async mentioning(ctx, ownerId, about, matches, sourceEpisodes) {
    const read = ctx.store.read;
    const found = new Map<string, Fact>();
    // The database pre-selects by substring, over the current text and every kept version; `matches`
    // confirms the word ("Tom" is not in "tomorrow"), old values included: a fact that once said X goes.
    for (const n of await read.factForgetting.mentioning(ownerId, about)) {
      const versions = await read.factVersions.list(ownerId, n.id);
      if (matches([n.label, n.value, n.context, ...versions.flatMap((v) => [v.value, v.context])].join('\n'))) found.set(n.id, n);
    }
    // A fact distilled from an episode built from a message about X goes with the message.
    for (const n of await read.factForgetting.derivedFrom(ownerId, sourceEpisodes)) found.set(n.id, n);
    return [...found.values()].map((n) => ({ id: n.id, title: title(n), tier: n.tier }));
  },

  erase: (ctx, ownerId, ids) => deleteFacts(ctx, ownerId, ids),

  async list(ctx, ownerId, tier, page) {
    const rows = await ctx.store.read.factForgetting.inTier(ownerId, tier, page);
    return rows.map((x) => tierItem('semantic', x, { title: x.label, summary: x.value, start: null }));
  },
};
