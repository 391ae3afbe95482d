import type { Sql } from './sql.js';

/** Machine-wide settings (one installation, every owner): a JSON document per key. */
export function settingReads(q: Sql) {
  return {
    async get(key: string): Promise<Record<string, unknown> | null> {
      const r = await q.query<{ value: Record<string, unknown> }>(`SELECT value FROM settings WHERE key = $1`, [key]);
      return r.rows[0]?.value ?? null;
    },
  };
}

export function settingWrites(q: Sql) {
  return {
    /** Stores a key's document; null removes the key. */
    async put(key: string, value: Record<string, unknown> | null): Promise<void> {
      if (value === null) {
        await q.query(`DELETE FROM settings WHERE key = $1`, [key]);
        return;
      }
      await q.query(`INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`, [
        key,
        JSON.stringify(value),
      ]);
    },
  };
}
