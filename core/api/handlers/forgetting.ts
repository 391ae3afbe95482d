import type { EngineContext } from '../../context/engine-context.js';
import { forgetAbout } from '../../forgetting/about.js';
import { explainDecay, listTier, markMemory, purgeAfter, purgeTrash, restoreMemory } from '../../forgetting/actions.js';
import { runForgetting } from '../../forgetting/run.js';
import type { TierItem } from '../../forgetting/target.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import type { Handlers, HandlerEnv } from '../handler.js';

const iso = (d: Date | null) => d?.toISOString() ?? null;

async function page(ctx: EngineContext, ownerId: string, tier: 'archived' | 'trash', limit: number, cursor: string | undefined) {
  const items = await listTier(ctx, ownerId, tier, { limit: limit + 1, ...(cursor ? { before: decodeCursor(cursor) } : {}) });
  const more = items.length > limit;
  const shown = items.slice(0, limit);
  const last = shown.at(-1);
  return {
    items: shown.map((x: TierItem) => ({
      kind: x.kind,
      id: x.id,
      title: x.title,
      summary: x.summary,
      start: iso(x.start),
      tier: x.tier,
      since: iso(x.since),
      reason: x.reason,
      purgeAfter: tier === 'trash' ? iso(purgeAfter(ctx, x.since)) : null,
      importance: x.importance,
      recallCount: x.recallCount,
      lastAccessed: iso(x.lastAccessed),
      marked: x.marked,
    })),
    nextCursor: more && last?.since ? encodeCursor(last.since, last.id) : null,
  };
}

export function forgettingHandlers({
  ctx,
}: HandlerEnv): Handlers<
  | 'runForgetting'
  | 'listArchive'
  | 'restoreFromArchive'
  | 'listTrash'
  | 'restoreFromTrash'
  | 'purgeTrash'
  | 'markMemory'
  | 'explainDecay'
  | 'forgetAbout'
> {
  return {
    async runForgetting(i) {
      const r = await runForgetting(ctx, i.ownerId, { dryRun: i.dryRun, ...(i.now ? { now: i.now } : {}) });
      for (const w of r.warnings) ctx.warn(w);
      return { ...r, now: r.now.toISOString() };
    },

    listArchive: (i) => page(ctx, i.ownerId, 'archived', i.limit, i.cursor),
    listTrash: (i) => page(ctx, i.ownerId, 'trash', i.limit, i.cursor),

    async restoreFromArchive(i) {
      const r = await restoreMemory(ctx, i.ownerId, i.id, 'archived');
      for (const w of r.warnings) ctx.warn(w);
      return { ...r, tier: 'active' as const };
    },

    async restoreFromTrash(i) {
      const r = await restoreMemory(ctx, i.ownerId, i.id, 'trash');
      for (const w of r.warnings) ctx.warn(w);
      return { ...r, tier: 'active' as const };
    },

    async purgeTrash(i) {
      const ids = await purgeTrash(ctx, i.ownerId, i.ids);
      return { purged: ids.length, ids };
    },

    markMemory: (i) => markMemory(ctx, i.ownerId, i.id, i.important),

    async explainDecay(i) {
      const x = await explainDecay(ctx, i.ownerId, i.id);
      return {
        kind: x.kind,
        id: x.id,
        tier: x.tier,
        score: x.decay.score,
        importance: x.decay.importance,
        baseImportance: x.baseImportance,
        elapsedDays: x.decay.elapsedDays,
        recallCount: x.recallCount,
        lastAccessed: iso(x.lastAccessed),
        marked: x.marked,
        exempt: x.decay.exempt,
        thresholds: x.thresholds,
        projected: { archive: iso(x.projected.archive), trash: iso(x.projected.trash) },
      };
    },

    forgetAbout: (i) => forgetAbout(ctx, i.ownerId, i.about, { dryRun: i.dryRun }),
  };
}
