import { uuidArray, withReferencesChecked, type Sql } from './sql.js';

/**
 * Episodes waiting for knowledge discovery (table `semantic_discovery_queue`). Rows are written in the
 * transaction that stores the episode; without an LLM they wait, and the next run with one works
 * through them. Deleting the episode drops its row (foreign-key cascade).
 */

export function discoveryQueueReads(q: Sql) {
  return {
    /**
     * Queued episodes in time order (so facts evolve in the order they were said). Stand-ins built while
     * the LLM failed wait until `rebuild --llm` replaces them: reading them now would spend calls on text
     * about to change.
     */
    async next(ownerId: string, limit: number, maxAttempts: number): Promise<string[]> {
      const r = await q.query<{ episode_id: string }>(
        `SELECT qd.episode_id FROM semantic_discovery_queue qd JOIN episodes e ON e.id = qd.episode_id
         WHERE qd.owner_id = $1 AND qd.attempts < $3 AND e.tier <> 'trash' AND e.processing_status = 'ready'
         ORDER BY e.start_at, e.id LIMIT $2`,
        [ownerId, limit, maxAttempts],
      );
      return r.rows.map((x) => x.episode_id);
    },

    /** Owners with episodes waiting that have not failed: whom a newly configured LLM should start on. */
    async ownersWaiting(): Promise<string[]> {
      const r = await q.query<{ owner_id: string }>(`SELECT DISTINCT owner_id FROM semantic_discovery_queue WHERE last_error IS NULL`);
      return r.rows.map((x) => x.owner_id);
    },

    async size(ownerId: string): Promise<{ waiting: number; failed: number }> {
      const r = await q.query<{ waiting: number; failed: number }>(
        `SELECT count(*) FILTER (WHERE last_error IS NULL)::int AS waiting, count(*) FILTER (WHERE last_error IS NOT NULL)::int AS failed
         FROM semantic_discovery_queue WHERE owner_id = $1`,
        [ownerId],
      );
      return r.rows[0]!;
    },
  };
}

export function discoveryQueueWrites(q: Sql) {
  return {
    /** Queues the owner's episodes (others are skipped); queuing again starts an episode's attempts afresh. */
    async enqueue(ownerId: string, episodeIds: readonly string[], now: Date): Promise<void> {
      if (episodeIds.length === 0) return;
      // Rows selected from episodes reference stored episodes: no foreign-key lookup per row.
      await withReferencesChecked(q, () =>
        q.query(
          `INSERT INTO semantic_discovery_queue (episode_id, owner_id, queued_at)
           SELECT e.id, $1, $3 FROM episodes e WHERE e.owner_id = $1 AND e.id = ANY($2::uuid[])
           ON CONFLICT (episode_id) DO UPDATE SET queued_at = EXCLUDED.queued_at, attempts = 0, last_error = NULL`,
          [ownerId, uuidArray(episodeIds), now],
        ),
      );
    },

    async dequeue(ownerId: string, episodeId: string): Promise<void> {
      await q.query(`DELETE FROM semantic_discovery_queue WHERE owner_id = $1 AND episode_id = $2`, [ownerId, episodeId]);
    },

    /** Records a failed attempt; the episode is tried again until it reaches the attempt limit. */
    async failed(ownerId: string, episodeId: string, error: string): Promise<void> {
      await q.query(
        `UPDATE semantic_discovery_queue SET attempts = attempts + 1, last_error = $3 WHERE owner_id = $1 AND episode_id = $2`,
        [ownerId, episodeId, error],
      );
    },
  };
}
