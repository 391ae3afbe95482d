import type { Sql } from './sql.js';

/** Who "me" is in each export format, remembered per owner so the next import of that format asks no more. */
export function importPreferenceReads(q: Sql) {
  return {
    async me(ownerId: string, source: string): Promise<string | null> {
      const r = await q.query<{ me: string }>(`SELECT me FROM import_preferences WHERE owner_id = $1 AND source = $2`, [ownerId, source]);
      return r.rows[0]?.me ?? null;
    },
  };
}

export function importPreferenceWrites(q: Sql) {
  return {
    async rememberMe(ownerId: string, source: string, me: string, now: Date): Promise<void> {
      await q.query(
        `INSERT INTO import_preferences (owner_id, source, me, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (owner_id, source) DO UPDATE SET me = EXCLUDED.me, updated_at = EXCLUDED.updated_at`,
        [ownerId, source, me, now],
      );
    },
  };
}
