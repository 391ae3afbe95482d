import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PGlite } from '@electric-sql/pglite';
import { NemoriError } from '../domain/errors.js';

/** Where the versioned `NNN_name.sql` files live; bundlers copy this folder next to the bundle. */
export const defaultMigrationsDir = fileURLToPath(new URL('./migrations/', import.meta.url));

interface Migration {
  version: number;
  name: string;
  sql: string;
}

function loadMigrations(dir: string): Migration[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /^\d{3}_.+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 3)), name: f, sql: fs.readFileSync(path.join(dir, f), 'utf8') }));
}

/** Applies every migration newer than the store's version, each in its own transaction, then compacts what they name. */
export async function migrate(db: PGlite, dir = defaultMigrationsDir): Promise<number> {
  await db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
  const done = new Set((await db.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
  const all = loadMigrations(dir);
  const newest = all.at(-1)?.version ?? 0;
  const ahead = [...done].filter((v) => v > newest);
  if (ahead.length > 0) {
    throw new NemoriError(
      'STORE_MIGRATION',
      `this memory store was written by a newer Nemori (schema ${Math.max(...ahead)}, this version knows ${newest}); update Nemori`,
    );
  }
  let applied = 0;
  const compact = new Set<string>();
  for (const m of all) {
    if (done.has(m.version)) continue;
    for (const [, table] of m.sql.matchAll(/^-- compact: (\w+)$/gm)) compact.add(table!);
    try {
      await db.transaction(async (tx) => {
        await tx.exec(m.sql);
        await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      });
    } catch (e) {
      throw new NemoriError('STORE_MIGRATION', `migration ${m.name} failed: ${(e as Error).message}`);
    }
    applied++;
  }
  // A migration that rewrites every row of a table in place leaves a dead copy of each behind, which a
  // plain vacuum only makes reusable: the tables it names (`-- compact: name`) are rewritten once it ran.
  for (const table of compact) await db.exec(`VACUUM FULL ${table}`);
  return applied;
}
