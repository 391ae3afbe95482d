import type { ForgettingReason } from '../domain/forgetting-reason.js';
import type { ForgettingConfig } from '../context/forgetting-config.js';

/**
 * The decay score and the importance dynamics, as pure functions of a memory's access
 * record and the time: no store, no clock. Everything a pass decides comes from here, and every
 * number it uses is returned so the decision can be explained.
 */

/** The kinds of memory that fade: episodes and semantic facts (each a target in targets.ts). */
export type MemoryKind = 'episode' | 'semantic';
export const MEMORY_KINDS: readonly MemoryKind[] = ['episode', 'semantic'];

export type Tier = 'active' | 'archived' | 'trash';
export const TIERS: readonly Tier[] = ['active', 'archived', 'trash'];

/** What the decay of one memory depends on. */
export interface AccessRecord {
  kind: MemoryKind;
  /** The importance a builder, an LLM or the person set (not the dynamic value). */
  baseImportance: number;
  recallCount: number;
  lastAccessed: Date | null;
  createdAt: Date;
  tier: Tier;
  tierChangedAt: Date | null;
  /** true = the person marked it important, false = not important, null = no opinion. */
  marked: boolean | null;
}

export interface Decay {
  /** Decay score: higher = closer to being forgotten. */
  score: number;
  /** Dynamic importance (recall raises it, time lowers it), what the store shows and filters on. */
  importance: number;
  /** Days since the memory was last touched: accessed, created, or brought back from archive/trash. */
  elapsedDays: number;
  /** The person marked it important: it never moves down. */
  exempt: boolean;
}

const DAY_MS = 86_400_000;

/**
 * When the memory's decay clock started: its last access, its creation, or — for an active memory
 * that came back from the archive or the trash — the moment it came back (otherwise a restore would
 * be undone by the next pass).
 */
export function decayReference(r: AccessRecord): Date {
  let t = r.createdAt.getTime();
  if (r.lastAccessed) t = Math.max(t, r.lastAccessed.getTime());
  if (r.tier === 'active' && r.tierChangedAt) t = Math.max(t, r.tierChangedAt.getTime());
  return new Date(t);
}

/**
 * Importance dynamics:
 *   boosted    = base + (1 − base) · boostMax · (1 − e^(−recalls / boostScale))   frequent recall raises it
 *   fade       = floor + (1 − floor) · 2^(−elapsedDays / halfLife)                   time lowers it
 *   importance = boosted · fade
 * The person's mark wins: important → 1, not important → `notImportant`, whatever the use.
 */
export function dynamicImportance(r: AccessRecord, elapsedDays: number, c: ForgettingConfig): number {
  if (r.marked === true) return 1;
  if (r.marked === false) return c.importance.notImportant;
  const base = Math.min(1, Math.max(0, r.baseImportance));
  const im = c.importance;
  const boosted = base + (1 - base) * im.recallBoostMax * (1 - Math.exp(-Math.max(0, r.recallCount) / im.recallBoostScale));
  const fade = im.fadeFloor + (1 - im.fadeFloor) * 2 ** (-elapsedDays / c.kinds[r.kind].importanceHalfLifeDays);
  return boosted * fade;
}

/**
 * The usual decay formula, made finite and unit-explicit:
 *
 *   score = (elapsedDays / decayUnitDays[kind]) / ((1 + ln(1 + recalls)) · (importance + 10 · markedImportant))
 *
 * - The usual form divides by log(access_count + 1), which is 0 for a memory never recalled: every unread
 *   memory would score ∞ and be forgotten at once. `1 + ln(1 + n)` is 1 for an unread memory and grows
 *   with the same logarithm after that.
 * - Time is counted in units of `decayUnitDays` (a week for episodes, ten weeks for semantic facts),
 *   which is how semantic memory decays much more slowly than episodic memory.
 * - `importance` is the dynamic importance above; it never reaches 0 (floors and `notImportant` > 0).
 */
export function decayOf(r: AccessRecord, now: Date, c: ForgettingConfig): Decay {
  const elapsedDays = Math.max(0, (now.getTime() - decayReference(r).getTime()) / DAY_MS);
  const importance = dynamicImportance(r, elapsedDays, c);
  const marked = r.marked === true ? 1 : 0;
  const recall = 1 + Math.log(1 + Math.max(0, r.recallCount));
  const denominator = recall * Math.max(importance + c.markedImportantWeight * marked, 1e-6);
  const score = elapsedDays / c.kinds[r.kind].decayUnitDays / denominator;
  return { score, importance, elapsedDays, exempt: r.marked === true };
}

/** Where a memory goes in a pass, and why. `null` = it stays where it is. */
export interface TierDecision {
  to: Tier | 'purged';
  reason: ForgettingReason;
}

/**
 * The tier rules, for one memory:
 * - marked important by the person → exempt: never moves down; archived or trashed → back to active;
 * - in the trash longer than the retention period → purged;
 * - score ≥ trash threshold → trash (from active or archived);
 * - score ≥ archive threshold → archived (from active);
 * - archived but score back under the archive threshold (it was recalled again, or the settings
 *   changed) → active again.
 * The trash is otherwise left alone: only the person restores from it.
 */
export function decideTier(r: AccessRecord, d: Decay, now: Date, c: ForgettingConfig): TierDecision | null {
  const { archive, trash } = c.thresholds;
  if (d.exempt) {
    return r.tier === 'active' ? null : { to: 'active', reason: { kind: 'important' } };
  }
  if (r.tier === 'trash') {
    const since = r.tierChangedAt ?? r.createdAt;
    const days = (now.getTime() - since.getTime()) / DAY_MS;
    return days >= c.trashRetentionDays
      ? { to: 'purged', reason: { kind: 'retention', days: Math.floor(days), retentionDays: c.trashRetentionDays } }
      : null;
  }
  const inputs = { score: d.score, days: Math.floor(d.elapsedDays), importance: d.importance, recalls: Math.max(0, r.recallCount) };
  if (d.score >= trash) return { to: 'trash', reason: { kind: 'decay', threshold: 'trash', limit: trash, ...inputs } };
  if (d.score >= archive)
    return r.tier === 'active' ? { to: 'archived', reason: { kind: 'decay', threshold: 'archive', limit: archive, ...inputs } } : null;
  if (r.tier === 'archived') return { to: 'active', reason: { kind: 'recovered', score: d.score, limit: archive } };
  return null;
}
