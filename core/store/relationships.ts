import { randomUUID } from 'node:crypto';
import type { FactRelationship } from '../domain/fact.js';
import type { Sql } from './sql.js';

/** Typed, weighted relationships between two facts (table `semantic_relationships`). */

/** A relationship as it is first recorded: the store gives it its id and times. */
export type NewRelationship = Omit<FactRelationship, 'id' | 'createdAt' | 'lastReinforced'>;

export function relationshipReads(q: Sql) {
  return {
    /** Relationships touching any of the facts, in either direction, between facts not in the trash. */
    async of(ownerId: string, factIds: readonly string[]): Promise<FactRelationship[]> {
      if (factIds.length === 0) return [];
      const r = await q.query<FactRelationship>(
        `SELECT r.id, r.source_id AS "sourceId", r.target_id AS "targetId", r.type, r.strength, r.description,
                r.discovery_episode_id AS "discoveryEpisodeId", r.created_at AS "createdAt", r.last_reinforced AS "lastReinforced"
         FROM semantic_relationships r
         JOIN semantic_nodes s ON s.id = r.source_id AND s.tier <> 'trash'
         JOIN semantic_nodes t ON t.id = r.target_id AND t.tier <> 'trash'
         WHERE r.owner_id = $1 AND (r.source_id = ANY($2::uuid[]) OR r.target_id = ANY($2::uuid[]))
         ORDER BY r.strength DESC, r.created_at`,
        [ownerId, factIds],
      );
      return r.rows;
    },
  };
}

export function relationshipWrites(q: Sql) {
  return {
    /**
     * Inserts, or reinforces an existing one (keeps the stronger strength, refreshes last_reinforced).
     * Both ends must be the owner's facts: otherwise nothing is written.
     */
    async relate(ownerId: string, rel: NewRelationship, now: Date): Promise<void> {
      if (rel.sourceId === rel.targetId) return;
      await q.query(
        `INSERT INTO semantic_relationships (id, owner_id, source_id, target_id, type, strength, description, discovery_episode_id, created_at, last_reinforced)
         SELECT $1, $2, s.id, t.id, $5, $6, $7, e.id, $9, $9
         FROM semantic_nodes s JOIN semantic_nodes t ON t.owner_id = $2 AND t.id = $4
         LEFT JOIN episodes e ON e.owner_id = $2 AND e.id = $8::uuid
         WHERE s.owner_id = $2 AND s.id = $3
         ON CONFLICT (source_id, target_id, type) DO UPDATE SET
           strength = GREATEST(semantic_relationships.strength, EXCLUDED.strength), last_reinforced = EXCLUDED.last_reinforced,
           description = CASE WHEN EXCLUDED.description <> '' THEN EXCLUDED.description ELSE semantic_relationships.description END`,
        [randomUUID(), ownerId, rel.sourceId, rel.targetId, rel.type, rel.strength, rel.description, rel.discoveryEpisodeId, now],
      );
    },
  };
}
