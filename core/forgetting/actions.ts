import type { EngineContext } from '../context/engine-context.js';
import { NemoriError } from '../domain/errors.js';
import { decayOf, type Decay, type MemoryKind, type Tier } from './decay.js';
import type { MemoryRecord, Move, TierItem } from './target.js';
import { activeTargets, findMemory } from './targets.js';

/** What the person does by hand: restore, empty the trash, mark, browse the archive and the trash, ask why. */

export interface RestoreResult {
  kind: MemoryKind;
  id: string;
  from: Tier;
  reembedded: boolean;
  warnings: string[];
}

/** Brings a memory back from the archive or the trash (`from` says which one the caller meant). */
export async function restoreMemory(
  ctx: EngineContext,
  ownerId: string,
  id: string,
  from: Exclude<Tier, 'active'>,
): Promise<RestoreResult> {
  const found = await findMemory(ctx, ownerId, id);
  if (!found) throw new NemoriError('NOT_FOUND', `no memory ${id}`);
  const { target, record } = found;
  if (record.tier !== from) {
    const where =
      record.tier === 'active'
        ? 'is not archived or in the trash'
        : `is in the ${record.tier === 'trash' ? 'trash' : 'archive'}, not the ${from === 'trash' ? 'trash' : 'archive'}`;
    throw new NemoriError('INVALID_INPUT', `memory ${id} ${where}`);
  }
  const now = ctx.clock.now();
  const outcome = await target.apply(
    ctx,
    ownerId,
    [{ id, from: record.tier, to: 'active', reason: { kind: 'restored', from: from === 'trash' ? 'trash' : 'archive' } }],
    now,
  );
  return { kind: target.kind, id, from: record.tier, reembedded: outcome.reembedded > 0, warnings: outcome.warnings };
}

/** Empties the trash now (everything, or the given ids), whatever the retention period says. */
export async function purgeTrash(ctx: EngineContext, ownerId: string, ids?: readonly string[]): Promise<string[]> {
  const now = ctx.clock.now();
  const purged: string[] = [];
  for (const target of activeTargets()) {
    const records = await target.records(ctx, ownerId, ids);
    const moves = records
      .filter((r) => r.tier === 'trash')
      .map((r): Move => ({ id: r.id, from: r.tier, to: 'purged', reason: { kind: 'emptied' } }));
    purged.push(...(await target.apply(ctx, ownerId, moves, now)).done);
  }
  if (ids) {
    const missing = ids.filter((id) => !purged.includes(id));
    if (missing.length) ctx.warn(`not in the trash, left alone: ${missing.join(', ')}`);
  }
  // Purged is gone: out of the table files and the log, not just unreachable.
  if (purged.length) await ctx.store.erase();
  return purged;
}

export interface MarkResult {
  kind: MemoryKind;
  id: string;
  marked: boolean | null;
  importance: number;
  tier: Tier;
  restored: boolean;
}

/**
 * The person's word on a memory wins over use and time: important → importance 1 and exempt from
 * forgetting (and back from the archive or trash at once); not important → importance
 * `notImportant`, so it fades fast; null → the engine decides again from use and time.
 */
export async function markMemory(ctx: EngineContext, ownerId: string, id: string, marked: boolean | null): Promise<MarkResult> {
  const found = await findMemory(ctx, ownerId, id);
  if (!found) throw new NemoriError('NOT_FOUND', `no memory ${id}`);
  const { target, record } = found;
  const now = ctx.clock.now();
  const decay = decayOf({ ...record, marked }, now, ctx.config.forgetting);
  let restored = false;
  // Restore before recording the mark: the mark counts as a write, and a write after the move to the
  // trash would make the parked index entries look stale (see the episode target's restore).
  if (marked === true && record.tier !== 'active') {
    await target.apply(ctx, ownerId, [{ id, from: record.tier, to: 'active', reason: { kind: 'important' } }], now);
    restored = true;
  }
  await target.mark(ctx, ownerId, id, marked, Math.round(decay.importance * 1000) / 1000, now);
  return { kind: target.kind, id, marked, importance: decay.importance, tier: restored ? 'active' : record.tier, restored };
}

/** When the trash will be purged, for the trash view. */
export function purgeAfter(ctx: EngineContext, since: Date | null): Date | null {
  return since ? new Date(since.getTime() + ctx.config.forgetting.trashRetentionDays * 86_400_000) : null;
}

/** The archive or trash view across kinds, most recently moved first. */
export async function listTier(
  ctx: EngineContext,
  ownerId: string,
  tier: Exclude<Tier, 'active'>,
  page: { limit: number; before?: { at: Date; id: string } },
): Promise<TierItem[]> {
  const all: TierItem[] = [];
  for (const target of activeTargets()) all.push(...(await target.list(ctx, ownerId, tier, page)));
  const at = (x: TierItem) => x.since?.getTime() ?? 0;
  return all.sort((a, b) => at(b) - at(a) || b.id.localeCompare(a.id)).slice(0, page.limit);
}

export interface DecayExplanation {
  kind: MemoryKind;
  id: string;
  tier: Tier;
  decay: Decay;
  baseImportance: number;
  recallCount: number;
  lastAccessed: Date | null;
  marked: boolean | null;
  thresholds: { archive: number; trash: number };
  /** When, with no further recall, the score would cross each threshold (null: never, or already past). */
  projected: { archive: Date | null; trash: Date | null };
}

/** First moment the score reaches `threshold` with no further recall (the score only grows with time). */
function crossing(ctx: EngineContext, r: MemoryRecord, now: Date, threshold: number): Date | null {
  const c = ctx.config.forgetting;
  const at = (days: number) => decayOf(r, new Date(now.getTime() + days * 86_400_000), c).score;
  if (at(0) >= threshold) return null;
  let hi = 1;
  while (at(hi) < threshold) {
    hi *= 2;
    if (hi > 365 * 1000) return null;
  }
  let lo = 0;
  while (hi - lo > 1 / 24) {
    const mid = (lo + hi) / 2;
    if (at(mid) >= threshold) hi = mid;
    else lo = mid;
  }
  return new Date(now.getTime() + hi * 86_400_000);
}

/** Why a memory is where it is and where it is heading: every input and output of the formula. */
export async function explainDecay(ctx: EngineContext, ownerId: string, id: string): Promise<DecayExplanation> {
  const found = await findMemory(ctx, ownerId, id);
  if (!found) throw new NemoriError('NOT_FOUND', `no memory ${id}`);
  const { target, record } = found;
  const now = ctx.clock.now();
  const decay = decayOf(record, now, ctx.config.forgetting);
  const { archive, trash } = ctx.config.forgetting.thresholds;
  const moving = record.tier !== 'trash' && !decay.exempt;
  return {
    kind: target.kind,
    id,
    tier: record.tier,
    decay,
    baseImportance: record.baseImportance,
    recallCount: record.recallCount,
    lastAccessed: record.lastAccessed,
    marked: record.marked,
    thresholds: { archive, trash },
    projected: {
      archive: moving && record.tier === 'active' ? crossing(ctx, record, now, archive) : null,
      trash: moving ? crossing(ctx, record, now, trash) : null,
    },
  };
}
