import { parseReason, serializeReason, type ForgettingReason } from '../domain/forgetting-reason.js';
import type { Fact } from '../domain/fact.js';
import { queryFacts, type FactTier } from './facts.js';
import { tierCounts } from './forgetting.js';
import { chunks, type Sql } from './sql.js';

/**
 * What forgetting and the capacity limit ask of facts: every fact's access record in one read, tier
 * counts, the archive/trash view in the order of the episode one (most recently moved first, so the
 * two merge into one list), a reason per tier move, capacity usage and eviction order, the picks of
 * the forget instructions, and the facts "forget everything about X" reaches. Tier moves themselves,
 * importance, marks and deletes are the facts repository's; a tier move takes the fact's vector with it
 * (fact-vectors.ts) in the caller's transaction.
 */

/** A fact as the forgetting logic sees it: its access record, plus what the archive/trash view shows. */
export interface FactTierRow {
  id: string;
  label: string;
  value: string;
  tier: FactTier;
  tierChangedAt: Date | null;
  tierReason: ForgettingReason | null;
  importance: number;
  baseImportance: number;
  recallCount: number;
  lastAccessed: Date | null;
  marked: boolean | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface FactUsage {
  items: number;
  tokens: number;
  protected: number;
  lowImportance: number;
  versions: number;
  trashed: number;
}

interface TierDbRow {
  id: string;
  label: string;
  value: string;
  tier: FactTier;
  tier_changed_at: Date | null;
  tier_reason: string | null;
  importance: number;
  base: number;
  access_count: number;
  last_accessed: Date | null;
  marked_important: boolean | null;
  created_at: Date;
  updated_at: Date;
}

const tierColumns = `id, label, value, tier, tier_changed_at, tier_reason, importance, COALESCE(base_importance, importance) AS base,
  access_count, last_accessed, marked_important, created_at, updated_at`;

const toTierRow = (r: TierDbRow): FactTierRow => ({
  id: r.id,
  label: r.label,
  value: r.value,
  tier: r.tier,
  tierChangedAt: r.tier_changed_at,
  tierReason: parseReason(r.tier_reason),
  importance: r.importance,
  baseImportance: r.base,
  recallCount: r.access_count,
  lastAccessed: r.last_accessed,
  marked: r.marked_important,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export function factForgettingReads(q: Sql) {
  return {
    /** Every fact of the owner in every tier, or the given ones. */
    async rows(ownerId: string, ids?: readonly string[]): Promise<FactTierRow[]> {
      const r = ids
        ? await q.query<TierDbRow>(`SELECT ${tierColumns} FROM semantic_nodes WHERE owner_id = $1 AND id = ANY($2::uuid[])`, [ownerId, ids])
        : await q.query<TierDbRow>(`SELECT ${tierColumns} FROM semantic_nodes WHERE owner_id = $1`, [ownerId]);
      return r.rows.map(toTierRow);
    },

    tierCounts: (ownerId: string) => tierCounts(q, 'semantic_nodes', ownerId),

    /** The archive or trash view, most recently moved first; keyset-paged on (tier_changed_at, id) like the episodes'. */
    async inTier(
      ownerId: string,
      tier: FactTier,
      o: { limit: number; before?: { at: Date; id: string } | undefined },
    ): Promise<FactTierRow[]> {
      const params: unknown[] = [ownerId, tier, o.limit];
      let cursor = '';
      if (o.before) {
        params.push(o.before.at, o.before.id);
        cursor = ` AND (COALESCE(tier_changed_at, created_at), id) < ($4, $5::uuid)`;
      }
      const r = await q.query<TierDbRow>(
        `SELECT ${tierColumns} FROM semantic_nodes WHERE owner_id = $1 AND tier = $2${cursor}
         ORDER BY COALESCE(tier_changed_at, created_at) DESC, id DESC LIMIT $3`,
        params,
      );
      return r.rows.map(toTierRow);
    },

    /** What counts against the capacity limit (facts outside the trash), and how much of it is protected. */
    async usage(ownerId: string, high: number, low: number): Promise<FactUsage> {
      const r = await q.query<{ items: number; tokens: number; protected: number; low: number; versions: number; trashed: number }>(
        `SELECT count(*) FILTER (WHERE tier <> 'trash')::int AS items,
                COALESCE(sum(tokens) FILTER (WHERE tier <> 'trash'), 0)::int AS tokens,
                count(*) FILTER (WHERE tier <> 'trash' AND (importance >= $2 OR marked_important IS TRUE))::int AS protected,
                count(*) FILTER (WHERE tier <> 'trash' AND importance < $3 AND marked_important IS NOT TRUE)::int AS low,
                COALESCE(sum(version) FILTER (WHERE tier <> 'trash'), 0)::int AS versions,
                count(*) FILTER (WHERE tier = 'trash')::int AS trashed
         FROM semantic_nodes WHERE owner_id = $1`,
        [ownerId, high, low],
      );
      const x = r.rows[0]!;
      return { items: x.items, tokens: x.tokens, protected: x.protected, lowImportance: x.low, versions: x.versions, trashed: x.trashed };
    },

    /**
     * Eviction order: unprotected facts (importance below `high`, not marked important), those below
     * `low` first, then least recently used, then least important. `exclude` keeps the fact being written.
     */
    async evictionOrder(ownerId: string, high: number, low: number, limit: number, exclude: readonly string[]): Promise<Fact[]> {
      return queryFacts(
        q,
        {
          where: `owner_id = $1 AND tier <> 'trash' AND importance < $2 AND marked_important IS NOT TRUE AND NOT (id = ANY($5::uuid[]))`,
          order: '(importance < $3) DESC, COALESCE(last_accessed, updated_at), importance, id',
          limit: '$4',
        },
        [ownerId, high, low, limit, exclude],
      );
    },

    /** The forget instructions `oldest`, `least important` and `before:<time>` pick from facts outside the trash. */
    async pick(ownerId: string, o: { order: 'lru' | 'importance'; limit: number } | { createdBefore: Date }): Promise<Fact[]> {
      if ('createdBefore' in o) {
        return queryFacts(q, { where: `owner_id = $1 AND tier <> 'trash' AND created_at < $2`, order: 'created_at, id' }, [
          ownerId,
          o.createdBefore,
        ]);
      }
      const order = o.order === 'lru' ? 'COALESCE(last_accessed, updated_at), id' : 'importance, COALESCE(last_accessed, updated_at), id';
      return queryFacts(q, { where: `owner_id = $1 AND tier <> 'trash'`, order, limit: '$2' }, [ownerId, o.limit]);
    },

    /** Every fact of the owner mentioning `needle` in its key, value, context or any version (forget-about). */
    async mentioning(ownerId: string, needle: string): Promise<Fact[]> {
      return queryFacts(
        q,
        {
          where: `n.owner_id = $1 AND (
           strpos(lower(n.label || ' ' || n.value || ' ' || n.context), lower($2)) > 0
           OR EXISTS (SELECT 1 FROM semantic_versions v WHERE v.node_id = n.id AND strpos(lower(v.value || ' ' || v.context), lower($2)) > 0))`,
        },
        [ownerId, needle],
      );
    },

    /** Facts drawn from these episodes (discovery or evolution), for forget-about. */
    async derivedFrom(ownerId: string, episodeIds: readonly string[]): Promise<Fact[]> {
      if (episodeIds.length === 0) return [];
      return queryFacts(
        q,
        {
          where: 'n.owner_id = $1 AND EXISTS (SELECT 1 FROM semantic_versions v WHERE v.node_id = n.id AND v.episode_id = ANY($2::uuid[]))',
        },
        [ownerId, episodeIds],
      );
    },
  };
}

export function factForgettingWrites(q: Sql) {
  return {
    /** `moveFacts` stores one reason for a whole move; a forgetting pass has one per fact (its own score). */
    async setReasons(ownerId: string, moves: readonly { id: string; reason: ForgettingReason }[]): Promise<void> {
      for (const batch of chunks(moves, 1000)) {
        await q.query(
          `UPDATE semantic_nodes n SET tier_reason = u.reason FROM unnest($2::uuid[], $3::text[]) AS u(id, reason) WHERE n.owner_id = $1 AND n.id = u.id`,
          [ownerId, batch.map((m) => m.id), batch.map((m) => serializeReason(m.reason))],
        );
      }
    },
  };
}
