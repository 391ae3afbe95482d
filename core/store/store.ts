import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { NemoriError } from '../domain/errors.js';
import { vector } from '@electric-sql/pglite-pgvector';
import { amcheck } from '@electric-sql/pglite/contrib/amcheck';
import { acquireLock, type DirLock } from './lock.js';
import { readBackupArchive } from './backup-archive.js';
import { finishInterruptedRestore, makePrivate } from './data-folder.js';
import { defaultMigrationsDir, migrate } from './migrate.js';
import { readRepos, writeRepos, type ReadRepos, type Repos } from './repos.js';
import type { WriteTracker } from './sql.js';

export type { ReadRepos, Repos } from './repos.js';

const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

export interface OpenStoreOptions {
  /** Directory holding the database; omitted → an in-memory store (tests, dry runs). */
  dir?: string | undefined;
  migrationsDir?: string | undefined;
  /**
   * The folder's lock, already taken by the caller (who took it before deciding to open the store);
   * the store then owns it and releases it on close. Omitted: the store takes it itself.
   */
  lock?: DirLock | undefined;
}

/**
 * Postgres keeps up to 1 GB of WAL by default; for a personal store that is mostly dead weight on disk.
 * And it recycles old WAL segments by renaming them, text of deleted rows included, where `erase` needs
 * them gone. ALTER SYSTEM persists in the data folder and applies from the next start: returns whether
 * it changed anything (the caller then restarts the database once).
 */
export async function configureWal(db: PGlite): Promise<boolean> {
  const r = await db.query<{ name: string; setting: string }>(
    `SELECT name, setting FROM pg_settings WHERE name IN ('max_wal_size', 'wal_recycle')`,
  );
  const now = new Map(r.rows.map((x) => [x.name, x.setting]));
  if (now.get('max_wal_size') === '64' && now.get('wal_recycle') === 'off') return false;
  // One statement per call: a multi-statement string runs as a transaction block, which ALTER SYSTEM refuses.
  await db.exec(`ALTER SYSTEM SET max_wal_size = '64MB'`);
  await db.exec(`ALTER SYSTEM SET min_wal_size = '32MB'`);
  await db.exec(`ALTER SYSTEM SET wal_recycle = off`);
  return true;
}

/**
 * The one owner of the PGlite instance. Only this folder speaks SQL; everything else goes through the
 * repositories it hands out: `read` for queries (nothing on it writes), `transaction` for every write,
 * each transaction committing whole or not at all.
 */
export class Store {
  private closed = false;
  private writesSinceMaintenance = 0;
  private readonly track: WriteTracker = (rows) => {
    this.writesSinceMaintenance += rows;
  };
  /** Built once: repositories hold nothing but the connection. */
  private readonly reads: ReadRepos;

  private constructor(
    private readonly db: PGlite,
    private readonly lock: DirLock | null,
    readonly dir: string | null,
    readonly openMs: number,
  ) {
    this.reads = readRepos(db);
  }

  static async open(o: OpenStoreOptions = {}): Promise<Store> {
    const started = performance.now();
    let lock: DirLock | null = null;
    if (o.dir) {
      fs.mkdirSync(o.dir, { recursive: true });
      const file = path.join(o.dir, 'nemori.lock');
      if (o.lock && path.resolve(o.lock.file) !== path.resolve(file))
        throw new Error(`the lock ${o.lock.file} is not the lock of ${o.dir}`);
      lock = o.lock ?? acquireLock(file);
      finishInterruptedRestore(o.dir);
    }
    try {
      const create = () =>
        PGlite.create({
          dataDir: o.dir ? path.join(o.dir, 'pg') : undefined,
          // amcheck only for `health --deep` (its B-tree check); loaded with the store, created on first use.
          extensions: { vector, amcheck },
        });
      let db = await create();
      try {
        await migrate(db, o.migrationsDir ?? defaultMigrationsDir);
        if (o.dir && (await configureWal(db))) {
          await db.close();
          db = await create();
        }
        // Owner filters are applied after the HNSW scan; iterative scans keep filtered kNN from coming back short.
        await db.exec(`SET hnsw.iterative_scan = relaxed_order; SET hnsw.ef_search = 64; SET work_mem = '32MB';`);
      } catch (e) {
        await db.close();
        throw e;
      }
      return new Store(db, lock, o.dir ?? null, performance.now() - started);
    } catch (e) {
      lock?.release();
      throw e;
    }
  }

  /** Queries outside any transaction. Writing goes through `transaction`. */
  get read(): ReadRepos {
    this.assertOpen();
    return this.reads;
  }

  /**
   * Runs `fn` in one transaction: everything it writes commits together or not at all (a throw rolls
   * it all back). Inside, use only `r`: the database waits for the transaction, so a query through
   * `read` there would wait for ever.
   */
  async transaction<T>(fn: (r: Repos) => Promise<T>): Promise<T> {
    this.assertOpen();
    return this.db.transaction((tx) => fn(writeRepos(tx, this.track)));
  }

  /**
   * PGlite runs no autovacuum worker, so the store does its job: after enough index writes (10 % of
   * the postings, at least 2 000 rows — a new store needs statistics early, or the planner guesses
   * badly on its small, fresh tables) it refreshes planner statistics and the visibility map that
   * BM25's index-only scans depend on. Cheap to call after every write; it usually does nothing.
   */
  async maintain(force = false): Promise<boolean> {
    this.assertOpen();
    if (!force && this.writesSinceMaintenance < 2_000) return false;
    if (!force) {
      const r = await this.db.query<{ n: number }>(`SELECT reltuples::float8 AS n FROM pg_class WHERE relname = 'bm25_postings'`);
      if (this.writesSinceMaintenance < 0.1 * Math.max(0, r.rows[0]?.n ?? 0)) return false;
    }
    this.writesSinceMaintenance = 0;
    // Also where deleted facts' text leaves the data pages for good (forget, purge).
    await this.db.exec(
      'VACUUM (ANALYZE) bm25_postings, bm25_terms, bm25_docs, bm25_stats, episodes, episode_embeddings, messages, semantic_nodes, semantic_versions, semantic_terms, semantic_embeddings',
    );
    return true;
  }

  /**
   * Makes deleted rows physically gone (forget about, purge): VACUUM FULL rewrites every table into new
   * files and drops the old ones, then the WAL that still holds the deleted text is switched away from
   * and removed at a checkpoint (with wal_recycle off it is deleted, not renamed for reuse). Afterwards
   * a byte search of the data folder does not find the text. Costs a rewrite of the store: only for
   * the person's explicit deletions and the passes that purge.
   */
  async erase(): Promise<void> {
    this.assertOpen();
    await this.db.exec('VACUUM FULL');
    await this.db.exec('ANALYZE');
    if (!this.dir) return;
    await this.db.exec('CHECKPOINT');
    await this.db.query('SELECT pg_switch_wal()');
    await this.db.exec('CHECKPOINT');
    this.writesSinceMaintenance = 0;
  }

  /** A consistent copy of the whole database as a gzipped tarball (PGlite's dumpDataDir). */
  async backup(file: string): Promise<void> {
    this.assertOpen();
    const blob = await this.db.dumpDataDir('gzip');
    // A backup holds every message: for the person only, wherever it is written.
    fs.writeFileSync(file, Buffer.from(await blob.arrayBuffer()), { mode: 0o600 });
  }

  /**
   * Unpacks a backup as a new database in `dir` (which must not hold one), checking it is one of ours
   * (a PGlite data folder with our migrations table); a file that is not leaves nothing behind. The
   * caller then swaps `dir` in as the store, whose `open` migrates it if it is older (and refuses a newer one).
   */
  static async unpackBackup(dir: string, file: string): Promise<{ schemaVersion: number }> {
    const pg = path.join(dir, 'pg');
    if (fs.existsSync(pg)) throw new Error(`${pg} already holds a database`);
    const data = await readBackupArchive(file);
    fs.mkdirSync(dir, { recursive: true });
    try {
      let db: PGlite;
      try {
        db = await PGlite.create({ dataDir: pg, loadDataDir: data, extensions: { vector } });
      } catch {
        throw new NemoriError('INVALID_INPUT', `${path.basename(file)} is not a Nemori backup (it is not a database archive)`);
      }
      try {
        const r = await db.query<{ v: number | null }>(`SELECT max(version) AS v FROM schema_migrations`).catch(() => null);
        if (!r) throw new NemoriError('INVALID_INPUT', `${path.basename(file)} is a database archive, but not one of Nemori's`);
        return { schemaVersion: r.rows[0]?.v ?? 0 };
      } finally {
        await db.close();
      }
    } catch (e) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw e;
    }
  }

  /**
   * PostgreSQL's own B-tree check (amcheck's bt_index_check, with heap verification) over every B-tree
   * index of ours: a damaged index answers queries wrongly without any error. Returns the damaged ones.
   */
  async checkIndexes(): Promise<{ index: string; error: string }[]> {
    this.assertOpen();
    await this.db.exec('CREATE EXTENSION IF NOT EXISTS amcheck');
    const r = await this.db.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
       WHERE a.amname = 'btree' AND c.relnamespace = 'public'::regnamespace AND c.relpersistence = 'p' ORDER BY 1`,
    );
    const damaged: { index: string; error: string }[] = [];
    for (const { name } of r.rows) {
      try {
        await this.db.query(`SELECT bt_index_check($1::regclass, true)`, [name]);
      } catch (e) {
        damaged.push({ index: name, error: e instanceof Error ? e.message : String(e) });
      }
    }
    return damaged;
  }

  /** Rebuilds damaged indexes from their tables (what `checkIndexes` found). */
  async reindex(names: readonly string[]): Promise<void> {
    this.assertOpen();
    for (const name of names) await this.db.exec(`REINDEX INDEX ${quoteIdent(name)}`);
  }

  async sizeOnDisk(): Promise<number | null> {
    if (!this.dir) return null;
    const walk = (d: string): number =>
      fs.readdirSync(d, { withFileTypes: true }).reduce((sum, e) => {
        const p = path.join(d, e.name);
        return sum + (e.isDirectory() ? walk(p) : fs.statSync(p).size);
      }, 0);
    return walk(this.dir);
  }

  async schemaVersion(): Promise<number> {
    const r = await this.db.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations');
    return r.rows[0]?.v ?? 0;
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.db.close();
      // PGlite sets some files' modes itself (the relcache init files, 0644): owner-only again before letting go.
      if (this.dir) makePrivate(this.dir);
    } finally {
      this.lock?.release();
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('the store is closed');
  }
}
