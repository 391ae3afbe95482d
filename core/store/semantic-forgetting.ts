import { parseReason, serializeReason, type ForgettingReason } from '../domain/forgetting-reason.js';
import type { SemanticNode } from '../domain/semantic.js';
import { chunks, type Sql } from './sql.js';

/**
 * SQL the forgetting logic needs for semantic facts and the semantic repository does not have: every
 * fact's access record in one read, tier counts, the archive/trash view in the order of the episode one
 * (most recently moved first, so the two merge into one list), and a reason per tier move. Tier moves
 * themselves, importance, marks and deletes go through `semantic.ts` (core/semantic/tiers.ts moves vectors).
 */

type Tier = SemanticNode['tier'];

/** A fact as the forgetting logic sees it: its access record, plus what the archive/trash view shows. */
export interface FactTierRow {
  id: string;
  label: string;
  value: string;
  tier: Tier;
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

interface DbRow {
  id: string;
  label: string;
  value: string;
  tier: Tier;
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

const columns = `id, label, value, tier, tier_changed_at, tier_reason, importance, COALESCE(base_importance, importance) AS base,
  access_count, last_accessed, marked_important, created_at, updated_at`;

const toRow = (r: DbRow): FactTierRow => ({
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

export function semanticForgettingRepo(q: Sql) {
  return {
    /** Every fact of the owner in every tier, or the given ones. */
    async rows(ownerId: string, ids?: readonly string[]): Promise<FactTierRow[]> {
      const r = ids
        ? await q.query<DbRow>(`SELECT ${columns} FROM semantic_nodes WHERE owner_id = $1 AND id = ANY($2::uuid[])`, [ownerId, ids])
        : await q.query<DbRow>(`SELECT ${columns} FROM semantic_nodes WHERE owner_id = $1`, [ownerId]);
      return r.rows.map(toRow);
    },

    async tierCounts(ownerId: string): Promise<Record<Tier, number>> {
      const r = await q.query<{ tier: Tier; n: number }>(`SELECT tier, count(*)::int AS n FROM semantic_nodes WHERE owner_id = $1 GROUP BY tier`, [ownerId]);
      const out: Record<Tier, number> = { active: 0, archived: 0, trash: 0 };
      for (const x of r.rows) out[x.tier] = x.n;
      return out;
    },

    /** The archive or trash view, most recently moved first; keyset-paged on (tier_changed_at, id) like the episodes'. */
    async inTier(ownerId: string, tier: Tier, o: { limit: number; before?: { at: Date; id: string } | undefined }): Promise<FactTierRow[]> {
      const params: unknown[] = [ownerId, tier, o.limit];
      let cursor = '';
      if (o.before) {
        params.push(o.before.at, o.before.id);
        cursor = ` AND (COALESCE(tier_changed_at, created_at), id) < ($4, $5::uuid)`;
      }
      const r = await q.query<DbRow>(
        `SELECT ${columns} FROM semantic_nodes WHERE owner_id = $1 AND tier = $2${cursor}
         ORDER BY COALESCE(tier_changed_at, created_at) DESC, id DESC LIMIT $3`,
        params,
      );
      return r.rows.map(toRow);
    },

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
export type SemanticForgettingRepo = ReturnType<typeof semanticForgettingRepo>;
