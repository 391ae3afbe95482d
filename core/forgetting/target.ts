import type { EngineContext } from '../context/engine-context.js';
import type { ForgettingReason } from '../domain/forgetting-reason.js';
import type { TierStanding } from '../store/forgetting.js';
import type { AccessRecord, MemoryKind, Tier } from './decay.js';

/**
 * The seam between the forgetting logic (decay, tier rules, the pass, restore, mark) and the memory
 * kinds it applies to. Each kind is one `ForgettingTarget`; the logic never touches a kind's tables
 * or indexes directly. Each target owns its kind's indexes (vectors, keyword entries, links, versions).
 */

/** One memory as the forgetting logic sees it. */
export interface MemoryRecord extends AccessRecord {
  id: string;
  /** The stored (dynamic) importance, to tell whether a pass needs to write a new one. */
  importance: number;
  updatedAt: Date;
}

/** A kind's decay row as the logic sees it. */
export function asRecord(kind: MemoryKind): (r: Omit<MemoryRecord, 'kind'>) => MemoryRecord {
  return (r) => ({ ...r, kind });
}

/** A tier change the logic decided; `reason` is stored with the memory and shown to the person. */
export interface Move {
  id: string;
  from: Tier;
  to: Tier | 'purged';
  reason: ForgettingReason;
}

export interface ApplyOutcome {
  /** Ids whose move was carried out (purge of an id already gone is not; neither are batches after an abort). */
  done: string[];
  reembedded: number;
  warnings: string[];
}

/** A line of the archive or trash view. */
export interface TierItem {
  kind: MemoryKind;
  id: string;
  title: string;
  summary: string;
  /** When the remembered thing happened (episodes); null for kinds without a time. */
  start: Date | null;
  tier: Tier;
  since: Date | null;
  reason: ForgettingReason | null;
  importance: number;
  recallCount: number;
  lastAccessed: Date | null;
  marked: boolean | null;
}

/** A line of the archive or trash view: what the memory is, in its kind's words, and where its row says it stands. */
export function tierItem(kind: MemoryKind, x: TierStanding, shown: Pick<TierItem, 'title' | 'summary' | 'start'>): TierItem {
  return {
    kind,
    id: x.id,
    ...shown,
    tier: x.tier,
    since: x.tierChangedAt,
    reason: x.tierReason,
    importance: x.importance,
    recallCount: x.recallCount,
    lastAccessed: x.lastAccessed,
    marked: x.marked,
  };
}

export interface ForgettingTarget {
  readonly kind: MemoryKind;
  /** Every memory of the owner, in every tier (one read; passes work from this snapshot). */
  records(ctx: EngineContext, ownerId: string, ids?: readonly string[]): Promise<MemoryRecord[]>;
  titles(ctx: EngineContext, ownerId: string, ids: readonly string[]): Promise<Map<string, string>>;
  tierCounts(ctx: EngineContext, ownerId: string): Promise<Record<Tier, number>>;
  /**
   * Carries out moves, each batch in one transaction together with its index changes:
   * → archived drops the vector; → trash also takes the keyword entries out of the index (kept aside
   * for a restore); → active puts them back and re-embeds; → purged deletes the memory, its links,
   * index entries and vectors for good.
   */
  apply(ctx: EngineContext, ownerId: string, moves: readonly Move[], now: Date, signal?: AbortSignal): Promise<ApplyOutcome>;
  setImportance(ctx: EngineContext, ownerId: string, rows: readonly { id: string; importance: number }[]): Promise<void>;
  /** Records the person's mark and the importance that follows from it. False when the id is unknown. */
  mark(ctx: EngineContext, ownerId: string, id: string, marked: boolean | null, importance: number, now: Date): Promise<boolean>;
  list(
    ctx: EngineContext,
    ownerId: string,
    tier: Exclude<Tier, 'active'>,
    page: { limit: number; before?: { at: Date; id: string } },
  ): Promise<TierItem[]>;
  /**
   * "Delete everything about X": memories of any tier that mention `about` (confirmed with
   * `matches`), plus those derived from `sourceEpisodes` — episodes built from messages that mention
   * it (for episodes: those episodes themselves; for semantic nodes: facts distilled from them).
   */
  mentioning(
    ctx: EngineContext,
    ownerId: string,
    about: string,
    matches: (text: string) => boolean,
    sourceEpisodes: readonly string[],
  ): Promise<{ id: string; title: string; tier: Tier }[]>;
  /** Deletes memories for good whatever their tier: links, index entries, vectors, and the text of their sources. */
  erase(ctx: EngineContext, ownerId: string, ids: readonly string[]): Promise<string[]>;
}
