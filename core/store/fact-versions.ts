import type { DiscoveryMethod, FactVersion, VersionLink } from '../domain/fact.js';
import type { Sql } from './sql.js';

/**
 * A fact's history (table `semantic_versions`): every value it ever had, version 1 included, with the
 * time, the episode that caused it and the messages it was drawn from. Version n+1 `updates` (the
 * world changed) or `corrects` (the person said it was wrong) version n.
 */

export interface NewFactVersion {
  version: number;
  value: string;
  context: string;
  confidence: number;
  link: VersionLink | null;
  method: DiscoveryMethod;
  episodeId: string | null;
  sourceMessageIds: readonly string[];
}

/** The part of a fact a version holds. */
export type FactValue = Pick<FactVersion, 'version' | 'value' | 'context' | 'confidence'>;

/** A fact as of a moment: the version it had then, and the messages that version was drawn from. */
export interface FactThen {
  value: FactValue;
  sourceMessageIds: string[];
}

export function factVersionReads(q: Sql) {
  return {
    /** A fact's kept versions, oldest first. */
    async list(ownerId: string, factId: string): Promise<FactVersion[]> {
      const r = await q.query<FactVersion>(
        `SELECT node_id AS "nodeId", version, value, context, confidence, link, corrected, method, episode_id AS "episodeId",
                source_message_ids AS "sourceMessageIds", created_at AS "createdAt"
         FROM semantic_versions WHERE owner_id = $1 AND node_id = $2 ORDER BY version`,
        [ownerId, factId],
      );
      return r.rows;
    },

    /**
     * What each of these facts said at moment `at`: its newest kept version said by then — when the last
     * of its source messages was sent, else when its episode ended. A version drawn from neither (stated
     * through memorize or an upsert) has no date and counts as known at any moment. A fact none of whose
     * kept versions was said by then is left out: it was not known yet.
     */
    async asOf(ownerId: string, factIds: readonly string[], at: Date): Promise<Map<string, FactThen>> {
      const out = new Map<string, FactThen>();
      if (factIds.length === 0) return out;
      const r = await q.query<{ node_id: string; source_message_ids: string[] } & FactValue>(
        `SELECT DISTINCT ON (v.node_id) v.node_id, v.version, v.value, v.context, v.confidence, v.source_message_ids
         FROM semantic_versions v LEFT JOIN episodes e ON e.id = v.episode_id AND e.owner_id = v.owner_id
         WHERE v.owner_id = $1 AND v.node_id = ANY($2::uuid[])
           AND COALESCE((SELECT max(m.sent_at) FROM messages m WHERE m.owner_id = $1 AND m.id = ANY(v.source_message_ids)),
                        e.end_at, '-infinity') <= $3
         ORDER BY v.node_id, v.version DESC`,
        [ownerId, factIds, at],
      );
      for (const { node_id, source_message_ids, ...value } of r.rows) out.set(node_id, { value, sourceMessageIds: source_message_ids });
      return out;
    },

    /**
     * Source messages per fact: of every kept version (the provenance of a fact), or of the version that
     * holds its current value only.
     */
    async sourceMessages(ownerId: string, factIds: readonly string[], versions: 'all' | 'current' = 'all'): Promise<Map<string, string[]>> {
      const out = new Map<string, string[]>();
      if (factIds.length === 0) return out;
      const current =
        versions === 'current' ? 'JOIN semantic_nodes n ON n.id = v.node_id AND n.owner_id = v.owner_id AND n.version = v.version' : '';
      const r = await q.query<{ node_id: string; ids: string[] }>(
        `SELECT v.node_id, array_agg(DISTINCT m) AS ids FROM semantic_versions v ${current} CROSS JOIN unnest(v.source_message_ids) AS m
         WHERE v.owner_id = $1 AND v.node_id = ANY($2::uuid[]) GROUP BY v.node_id`,
        [ownerId, factIds],
      );
      for (const row of r.rows) out.set(row.node_id, row.ids);
      return out;
    },
  };
}

export function factVersionWrites(q: Sql) {
  return {
    /** Adds a version to one of the owner's facts (another owner's fact gets nothing). */
    async add(ownerId: string, factId: string, v: NewFactVersion, now: Date): Promise<void> {
      await q.query(
        `INSERT INTO semantic_versions (node_id, owner_id, version, value, context, confidence, link, method, episode_id, source_message_ids, created_at)
         SELECT n.id, n.owner_id, $3, $4, $5, $6, $7, $8, $9, $10::uuid[], $11 FROM semantic_nodes n WHERE n.id = $1 AND n.owner_id = $2`,
        [factId, ownerId, v.version, v.value, v.context, v.confidence, v.link, v.method, v.episodeId, v.sourceMessageIds, now],
      );
    },

    /** A correction leaves the wrong value in the history, with its confidence lowered to at most `confidence`. */
    async markCorrected(ownerId: string, factId: string, version: number, confidence: number): Promise<void> {
      await q.query(
        `UPDATE semantic_versions SET corrected = true, confidence = LEAST(confidence, $4) WHERE owner_id = $1 AND node_id = $2 AND version = $3`,
        [ownerId, factId, version, confidence],
      );
    },

    /** Keeps the newest `keep` versions (the retention limit on history); returns how many older ones went. */
    async prune(ownerId: string, factId: string, keep: number): Promise<number> {
      const r = await q.query(
        `DELETE FROM semantic_versions WHERE owner_id = $1 AND node_id = $2
           AND version <= (SELECT max(version) FROM semantic_versions WHERE owner_id = $1 AND node_id = $2) - $3`,
        [ownerId, factId, keep],
      );
      return r.affectedRows ?? 0;
    },
  };
}
