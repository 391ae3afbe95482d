import type { EngineContext } from '../context/engine-context.js';
import type { ForgettingReason } from '../domain/forgetting-reason.js';
import type { Store } from '../store/store.js';
import { decayOf, decideTier, type MemoryKind, type Tier } from './decay.js';
import type { Move } from './target.js';
import { activeTargets } from './targets.js';
import { chunks } from '../store/sql.js';

export interface PlannedMove {
  kind: MemoryKind;
  id: string;
  title: string;
  from: Tier;
  to: Tier | 'purged';
  score: number;
  importance: number;
  reason: ForgettingReason;
}

/** What a pass did (or, dry, would do), and why. */
export interface ForgettingReport {
  ownerId: string;
  now: Date;
  dryRun: boolean;
  evaluated: number;
  moved: { archived: number; trashed: number; purged: number; restored: number };
  /** Memories whose dynamic importance moved enough to be written. */
  importanceUpdated: number;
  /** Memories per tier after the pass (for a dry run: what they would be). */
  tiers: Record<Tier, number>;
  moves: PlannedMove[];
  reembedded: number;
  warnings: string[];
}

export interface RunOptions {
  /** List what would move where and why, change nothing. */
  dryRun?: boolean;
  /** The pass's "now" (default: the engine clock), e.g. to preview what a date would bring. */
  now?: Date;
  /** Stops between batches (the engine closing); each batch already applied stays applied, and is reported. */
  signal?: AbortSignal;
}

/** Importances written per transaction (~50 ms at 100k episodes). */
const IMPORTANCE_BATCH = 1000;

/** One pass at a time per owner: the scheduler and an on-demand run never interleave their moves. */
const running = new WeakMap<Store, Map<string, Promise<unknown>>>();

async function exclusive<T>(store: Store, ownerId: string, fn: () => Promise<T>): Promise<T> {
  let m = running.get(store);
  if (!m) running.set(store, (m = new Map()));
  const previous = m.get(ownerId) ?? Promise.resolve();
  const next = previous.catch(() => {}).then(fn);
  m.set(ownerId, next);
  try {
    return await next;
  } finally {
    if (m.get(ownerId) === next) m.delete(ownerId);
  }
}

/** Where moves go, in the order a pass applies them (cheapest and most reversible first). */
const ORDER: (Tier | 'purged')[] = ['active', 'archived', 'trash', 'purged'];

/**
 * The forgetting pass (decay score and tiers, importance that learns from use) for one owner: computes every
 * memory's dynamic importance and decay score, decides its tier, and — unless dry — writes the new
 * importances and carries out the moves, each batch in one transaction with its index changes.
 */
export async function runForgetting(ctx: EngineContext, ownerId: string, o: RunOptions = {}): Promise<ForgettingReport> {
  const now = o.now ?? ctx.clock.now();
  const c = ctx.config.forgetting;
  const dryRun = Boolean(o.dryRun) || !c.enabled;
  return exclusive(ctx.store, ownerId, async () => {
    const report: ForgettingReport = {
      ownerId,
      now,
      dryRun,
      evaluated: 0,
      moved: { archived: 0, trashed: 0, purged: 0, restored: 0 },
      importanceUpdated: 0,
      tiers: { active: 0, archived: 0, trash: 0 },
      moves: [],
      reembedded: 0,
      warnings: c.enabled ? [] : ['forgetting is turned off in the settings: nothing was moved'],
    };

    for (const target of activeTargets()) {
      const records = await target.records(ctx, ownerId);
      report.evaluated += records.length;
      const moves: (Move & { score: number; importance: number })[] = [];
      const importance: { id: string; importance: number }[] = [];
      for (const r of records) {
        const d = decayOf(r, now, c);
        const decision = decideTier(r, d, now, c);
        if (decision)
          moves.push({ id: r.id, from: r.tier, to: decision.to, reason: decision.reason, score: d.score, importance: d.importance });
        const staysOrReturns = decision ? decision.to !== 'purged' : r.tier !== 'trash';
        if (staysOrReturns && Math.abs(d.importance - r.importance) >= c.importance.writeEpsilon) {
          importance.push({ id: r.id, importance: Math.round(d.importance * 1000) / 1000 });
        }
      }
      const titles = await target.titles(
        ctx,
        ownerId,
        moves.map((m) => m.id),
      );
      moves.sort((a, b) => ORDER.indexOf(a.to) - ORDER.indexOf(b.to) || b.score - a.score);
      let applied = new Set(moves.map((m) => m.id));
      if (!dryRun) {
        // A transaction a chunk: the first pass after a big import writes every memory's importance
        // (100k episodes: 5 s), and a companion's call waits for one chunk, not for all of them.
        for (const batch of chunks(importance, IMPORTANCE_BATCH)) await target.setImportance(ctx, ownerId, batch);
        applied = new Set();
        for (const to of ORDER) {
          if (o.signal?.aborted) {
            report.warnings.push('the pass was stopped before it finished; the next pass picks up the rest');
            break;
          }
          const outcome = await target.apply(
            ctx,
            ownerId,
            moves.filter((m) => m.to === to),
            now,
            o.signal,
          );
          for (const id of outcome.done) applied.add(id);
          report.reembedded += outcome.reembedded;
          report.warnings.push(...outcome.warnings);
        }
      }
      report.importanceUpdated += importance.length;
      for (const m of moves) {
        if (!applied.has(m.id)) continue;
        report.moves.push({
          kind: target.kind,
          id: m.id,
          title: titles.get(m.id) ?? '',
          from: m.from,
          to: m.to,
          score: m.score,
          importance: m.importance,
          reason: m.reason,
        });
        if (m.to === 'archived') report.moved.archived++;
        else if (m.to === 'trash') report.moved.trashed++;
        else if (m.to === 'purged') report.moved.purged++;
        else report.moved.restored++;
      }
      // Tiers after the pass: counted for real, or projected from the plan for a dry run.
      const tiers = dryRun ? project(records, moves) : await target.tierCounts(ctx, ownerId);
      for (const t of ['active', 'archived', 'trash'] as const) report.tiers[t] += tiers[t];
    }

    if (!dryRun) {
      // Purged is gone: out of the table files and the log, not just unreachable.
      if (report.moved.purged > 0) await ctx.store.erase();
      else if (report.moves.length > 0) await ctx.store.maintain();
      // The log keeps ids, tiers and reasons only: never the text of what was forgotten.
      await ctx.store.transaction((r) =>
        r.forgetting.recordRun(ownerId, now, {
          evaluated: report.evaluated,
          moved: report.moved,
          importanceUpdated: report.importanceUpdated,
          moves: report.moves
            .slice(0, 1000)
            .map((m) => ({ kind: m.kind, id: m.id, from: m.from, to: m.to, score: m.score, reason: m.reason })),
          truncated: report.moves.length > 1000,
        }),
      );
    }
    return report;
  });
}

function project(records: readonly { id: string; tier: Tier }[], moves: readonly Move[]): Record<Tier, number> {
  const to = new Map(moves.map((m) => [m.id, m.to]));
  const out: Record<Tier, number> = { active: 0, archived: 0, trash: 0 };
  for (const r of records) {
    const t = to.get(r.id) ?? r.tier;
    if (t !== 'purged') out[t]++;
  }
  return out;
}
