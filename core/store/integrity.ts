import type { Sql } from './sql.js';

/**
 * What `health` checks against the tables themselves rather than trusting them: that the indexes hold
 * every episode they should, and that messages and episodes point at each other. Each count is a
 * problem when it is not zero. (Foreign keys forbid most of these; a store written by two processes
 * at once, or by a crashed copy, breaks them anyway — which is why they are counted, not assumed.)
 */
export interface IntegrityCounts {
  /** Episodes out of the trash that the keyword index has no document for. */
  episodesWithoutDoc: number;
  /** Keyword index documents of episodes that do not exist. */
  docsWithoutEpisode: number;
  /** The keyword index's stored document count disagrees with its documents. */
  statsMismatch: boolean;
  /** Active episodes with no vector of the current model (null: no model to compare with). */
  episodesWithoutVector: number | null;
  /** Messages whose episode does not exist. */
  messagesWithoutEpisode: number;
  /** Episodes cut from a conversation that no message belongs to. */
  episodesWithoutMessages: number;
}

export function integrityReads(q: Sql) {
  return {
    /** Index-backed counts, cheap enough for every open (bm25.verify compares document frequencies too). */
    async counts(ownerId: string, modelId: string | null): Promise<IntegrityCounts> {
      const r = await q.query<{
        missing_doc: number;
        orphan_doc: number;
        stats: boolean;
        no_vector: number;
        orphan_messages: number;
        empty_episodes: number;
      }>(
        `SELECT
           (SELECT count(*)::int FROM episodes e WHERE e.owner_id = $1 AND e.tier <> 'trash'
              AND NOT EXISTS (SELECT 1 FROM bm25_docs d WHERE d.episode_id = e.id)) AS missing_doc,
           (SELECT count(*)::int FROM bm25_docs d WHERE d.owner_id = $1
              AND NOT EXISTS (SELECT 1 FROM episodes e WHERE e.id = d.episode_id)) AS orphan_doc,
           (SELECT COALESCE((SELECT doc_count FROM bm25_stats WHERE owner_id = $1), 0)
                   <> (SELECT count(*) FROM bm25_docs WHERE owner_id = $1)) AS stats,
           (SELECT count(*)::int FROM episodes e WHERE e.owner_id = $1 AND e.tier = 'active' AND $2::text IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM episode_embeddings v WHERE v.episode_id = e.id AND v.model_id = $2)) AS no_vector,
           (SELECT count(*)::int FROM messages m WHERE m.owner_id = $1 AND m.episode_id IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM episodes e WHERE e.id = m.episode_id)) AS orphan_messages,
           (SELECT count(*)::int FROM episodes e WHERE e.owner_id = $1 AND e.conversation_id IS NOT NULL AND e.builder <> 'manual'
              AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.episode_id = e.id)) AS empty_episodes`,
        [ownerId, modelId],
      );
      const row = r.rows[0]!;
      return {
        episodesWithoutDoc: row.missing_doc,
        docsWithoutEpisode: row.orphan_doc,
        statsMismatch: row.stats,
        episodesWithoutVector: modelId === null ? null : row.no_vector,
        messagesWithoutEpisode: row.orphan_messages,
        episodesWithoutMessages: row.empty_episodes,
      };
    },
  };
}

export function integrityWrites(q: Sql) {
  return {
    /**
     * Messages that point at an episode which is gone are made pending again, so the next build puts
     * them into an episode (nothing acknowledged is lost). Returns how many.
     */
    async releaseOrphanMessages(ownerId: string): Promise<number> {
      const r = await q.query(
        `UPDATE messages m SET episode_id = NULL, processed = false
         WHERE m.owner_id = $1 AND m.episode_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM episodes e WHERE e.id = m.episode_id)`,
        [ownerId],
      );
      return r.affectedRows ?? 0;
    },
  };
}
