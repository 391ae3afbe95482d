import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { PGlite, protocol, type PGliteOptions } from '@electric-sql/pglite';
import { NemoriError } from '../domain/errors.js';
import { vector } from '@electric-sql/pglite-pgvector';
import { amcheck } from '@electric-sql/pglite/contrib/amcheck';
import { acquireLock, type DirLock } from './lock.js';
import { openBackupArchive, unpackBackupArchive, writeBackupArchive } from './backup-archive.js';
import { finishInterruptedRestore, makePrivate, removeRestoredAsides } from './data-folder.js';
import { defaultMigrationsDir, migrate } from './migrate.js';
import { PreparedStatements } from './prepared.js';
import { readRepos, writeRepos, type ReadRepos, type Repos } from './repos.js';
import type { WriteTracker } from './sql.js';
import { sealBackup } from './backup-crypto.js';

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
 * Settings that must hold from the first statement of every open, new store or old, so they go on
 * PGlite's command line (`ALTER SYSTEM`, used before, only applied from the next open, so a big first
 * import ran uncapped); `verifySettings` refuses a PGlite that ignored them.
 *
 * WAL: Postgres keeps up to 1 GB of it by default, and PGlite runs no checkpointer to trim it: for a
 * personal store that is dead weight on disk. Postgres's smallest allowed `min_wal_size` is two
 * segments. Old segments are deleted, not recycled by renaming: a recycled segment still holds the text
 * of rows `erase` removed.
 *
 * Memory: PGlite's WebAssembly memory starts at 128 MB and only ever grows, and what it touched stays
 * resident while the app runs. With the data folder's 128 MB of `shared_buffers` it grew to 189 MB at
 * the first query (154 MB resident after searches at 100k episodes); 64 MB of buffers leave room for
 * the rest of Postgres inside the first 128 MB, so it never grows (86 MB resident there, through a
 * 10 MB import with its vector index too), for 2–7 % more CPU a search: pages the buffers no longer
 * hold are read again from the operating system's file cache. At 96 MB it grows to 154 MB. An import
 * of 50 MB or more grew it to 184 MB for the rest of that run: ANALYZE (Store.maintain) holds a sample
 * of 300 × the statistics target rows of each table, whole rows with their text, vectors and postings
 * arrays. Sampled with a target of 10 (3,000 rows) it stays at 128 MB, and analyzing a 100k-episode
 * store takes 0.36 s instead of 1.3; search times there measured the same.
 */
const STARTUP_SETTINGS = [
  // [name, on the command line, as pg_settings shows it (shared_buffers in pages of 8 kB)]
  ['max_wal_size', '96MB', '96'],
  ['min_wal_size', '32MB', '32'],
  ['wal_recycle', 'off', 'off'],
  ['shared_buffers', '64MB', '8192'],
  ['default_statistics_target', '10', '10'],
] as const;

/**
 * The planner's cost of a random page read in write transactions. A page Postgres reads is almost
 * always in its buffers or the operating system's file cache, so a random read costs about what a
 * sequential one does; at the default cost (4) the planner matched an import window's thousands of
 * terms and messages by reading every row of the term and message tables, work that grew with the
 * store: a 100k-episode import without a model ran at 2,493 messages/s, 2,993 at 1.1. Searches keep
 * the default their plans were measured with (at 100k episodes they timed the same at 1.1, but a
 * cheaper index read moves the point below which nearest neighbours come from an exact scan rather
 * than the approximate vector index).
 */
const WRITE_RANDOM_PAGE_COST = 1.1;

/**
 * A checkpoint once this much WAL was written since the last one: half of `max_wal_size`, and the only
 * checkpoints there are besides those at close (PGlite runs no checkpointer). The first change to a page
 * after a checkpoint writes the whole page to the WAL, and an import's window touches pages all over
 * the keyword index's term table: with 16 MB a 100k-episode import checkpointed every two windows,
 * 1,635 against 1,781 messages/s with 32 MB (same minutes; the WAL peaked at 33.6 and 50.3 MB). With
 * 48 MB a 20k-episode import writes 591 MB of WAL instead of 820 (36k full pages instead of 64k), and
 * at 100k episodes the WAL peaks at 67 MB; 4,812 against 4,728 messages/s without a model there.
 */
const CHECKPOINT_AFTER_BYTES = 48 * 1024 * 1024;

/**
 * Postgres compiled to WebAssembly is compiled by V8 as it runs, by as many background tasks as V8's
 * thread pool has threads, and the memory their compilers used stays with the process: with one task,
 * a process searching a 100k-episode store is ~35 MB smaller (331–343 → 298–303 MB) and opens it
 * ~70 ms sooner; its first searches take a little longer while hot code is optimised.
 * Process-wide and only read when a module is compiled, so set before PGlite compiles its module.
 */
function oneWasmCompileTask(): void {
  v8.setFlagsFromString('--wasm-num-compilation-tasks=1');
}

function pgliteOptions(dataDir: string | undefined): PGliteOptions {
  oneWasmCompileTask();
  return {
    dataDir,
    // amcheck only for `health --deep` (its B-tree check); loaded with the store, created on first use.
    extensions: { vector, amcheck },
    startParams: [...PGlite.defaultStartParams, ...STARTUP_SETTINGS.flatMap(([name, value]) => ['-c', `${name}=${value}`])],
  };
}

/**
 * Opens the database in `pg`, creating it when there is none. PGlite writes a new database's files one
 * by one, Postgres's version file first: killed part way, it leaves a folder that looks like a database
 * and never starts again. So a creation is marked beside the folder until it finished, and a marked
 * folder is made again from nothing (nothing is written into a database before its creation ends).
 */
async function openDatabase(pg: string): Promise<PGlite> {
  const creating = `${pg}.creating`;
  if (fs.existsSync(creating)) fs.rmSync(pg, { recursive: true, force: true });
  else if (fs.existsSync(pg)) return PGlite.create(pgliteOptions(pg));
  fs.writeFileSync(creating, '');
  const db = await PGlite.create(pgliteOptions(pg));
  fs.rmSync(creating);
  return db;
}

/**
 * The record of a clean close, in the data folder: where the write-ahead log stood when the store was
 * last closed cleanly. Postgres writes a shutdown checkpoint there, and every change to the database
 * (a crash's recovery, another program writing the folder) moves the last checkpoint past it; so an
 * open that finds the last checkpoint where the record says knows that nothing touched the database
 * since, and need not count what a crash or a second writer could have broken.
 */
export const CLEAN_CLOSE_FILE = 'closed-cleanly';

/** Takes the record of the last clean close: whether the database is as that close left it. */
async function untouchedSinceClose(db: PGlite, dir: string): Promise<boolean> {
  const file = path.join(dir, CLEAN_CLOSE_FILE);
  let recorded: string;
  try {
    recorded = fs.readFileSync(file, 'utf8').trim();
  } catch {
    return false;
  }
  // Taken, not kept: a crash in this session must not find it.
  fs.rmSync(file, { force: true });
  const r = await db.query<{ lsn: string }>(`SELECT checkpoint_lsn::text AS lsn FROM pg_control_checkpoint()`);
  return r.rows[0]?.lsn === recorded;
}

/** Refuses to run with a setting that did not take (a PGlite that ignores its command line). */
async function verifySettings(db: PGlite): Promise<void> {
  const r = await db.query<{ name: string; setting: string }>(`SELECT name, setting FROM pg_settings WHERE name = ANY($1::text[])`, [
    STARTUP_SETTINGS.map(([name]) => name),
  ]);
  for (const [name, value, shown] of STARTUP_SETTINGS) {
    const got = r.rows.find((x) => x.name === name)?.setting;
    if (got !== shown) throw new Error(`the database runs with ${name} = ${got ?? 'unset'} instead of ${value}`);
  }
}

/**
 * Facts come one by one (a companion's `memorize`, discovery), far too few to reach the episode
 * index's maintenance (Store.maintain), so their tables' planner statistics are refreshed on their own
 * after a transaction that wrote facts, on autovacuum's rule (PGlite runs no autovacuum): after 50
 * writes plus a tenth of the facts there were at the last refresh. Stale, they told the planner a
 * person with 10,000 facts had one, and every fact search compared every vector exactly (190 ms
 * instead of 8). The refresh takes ~130 ms at 10,000 facts, once per thousand written; at open, the
 * facts added or removed since the statistics were taken count as written.
 */
function factStatisticsStale(writes: number, factsAtAnalyze: number): boolean {
  return writes >= 50 + 0.1 * factsAtAnalyze;
}
const ANALYZE_FACTS = 'ANALYZE semantic_nodes, semantic_terms, semantic_embeddings';

/**
 * The one owner of the PGlite instance. Only this folder speaks SQL; everything else goes through the
 * repositories it hands out: `read` for queries (nothing on it writes), `transaction` for every write,
 * each transaction committing whole or not at all.
 */
export class Store {
  private closed = false;
  private writesSinceMaintenance = 0;
  /** Facts written since the fact tables' planner statistics were taken, and how many facts there were then. */
  private factWrites = 0;
  private factsAtAnalyze = 0;
  private readonly track: WriteTracker = {
    postings: (rows) => {
      this.writesSinceMaintenance += rows;
    },
    facts: (count) => {
      this.factWrites += count;
    },
  };
  /** Built once: repositories hold nothing but the connection. */
  private readonly reads: ReadRepos;
  private readonly writes: PreparedStatements;
  private readonly remembered = new Map<string, Promise<unknown>>();

  private constructor(
    private readonly db: PGlite,
    private readonly lock: DirLock | null,
    readonly dir: string | null,
    readonly openMs: number,
    /** Nothing changed the database since this store last closed it cleanly (see CLEAN_CLOSE_FILE). */
    readonly untouchedSinceClose: boolean,
  ) {
    this.reads = readRepos(new PreparedStatements(db, 'r').outside());
    this.writes = new PreparedStatements(db, 'w');
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
      const db = o.dir ? await openDatabase(path.join(o.dir, 'pg')) : await PGlite.create(pgliteOptions(undefined));
      let untouched = false;
      let factsAtAnalyze = 0;
      try {
        untouched = o.dir ? await untouchedSinceClose(db, o.dir) : false;
        await verifySettings(db);
        await migrate(db, o.migrationsDir ?? defaultMigrationsDir);
        // Owner filters are applied after the HNSW scan; iterative scans keep filtered kNN from coming back short.
        // work_mem stays at Postgres's 4 MB: with 32 MB a 200 MB import grew PGlite's memory (which never
        // shrinks) from 128 to 154 MB; with 4 MB it stayed at 128, as fast, and searches need less.
        await db.exec(`SET hnsw.iterative_scan = relaxed_order; SET hnsw.ef_search = 64;`);
        if (o.dir) removeRestoredAsides(o.dir);
        // How far the facts are from their statistics is not kept across opens: counted.
        const facts = await db.query<{ analyzed: number; now: number }>(
          `SELECT GREATEST(reltuples, 0)::float8 AS analyzed, (SELECT count(*) FROM semantic_nodes)::float8 AS now
           FROM pg_class WHERE relname = 'semantic_nodes'`,
        );
        const { analyzed, now } = facts.rows[0]!;
        factsAtAnalyze = analyzed;
        if (factStatisticsStale(Math.abs(now - analyzed), analyzed)) {
          await db.exec(ANALYZE_FACTS);
          factsAtAnalyze = now;
        }
      } catch (e) {
        await db.close();
        throw e;
      }
      const store = new Store(db, lock, o.dir ?? null, performance.now() - started, untouched);
      store.factsAtAnalyze = factsAtAnalyze;
      return store;
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
    try {
      const result = await this.db.transaction(async (tx) => {
        await tx.exec(`SET LOCAL random_page_cost = ${WRITE_RANDOM_PAGE_COST}`);
        return fn(writeRepos(this.writes.inside(tx), this.track));
      });
      await this.analyzeFactsIfChanged();
      return result;
    } finally {
      this.remembered.clear();
    }
  }

  /** Refreshes the fact tables' statistics when enough facts changed (factStatisticsStale). */
  private async analyzeFactsIfChanged(): Promise<void> {
    if (!factStatisticsStale(this.factWrites, this.factsAtAnalyze)) return;
    await this.db.exec(ANALYZE_FACTS);
    await this.factStatisticsTaken();
  }

  private async factStatisticsTaken(): Promise<void> {
    const r = await this.db.query<{ n: number }>(
      `SELECT GREATEST(reltuples, 0)::float8 AS n FROM pg_class WHERE relname = 'semantic_nodes'`,
    );
    this.factsAtAnalyze = r.rows[0]?.n ?? 0;
    this.factWrites = 0;
  }

  /**
   * A read that only a write can change and that a hot path asks again and again (does this owner have
   * any vector of this model at all?): answered once, then remembered until the next transaction ends,
   * committed or not. Writes go only through `transaction`, and one process holds the store.
   */
  untilNextWrite<T>(key: string, read: (r: ReadRepos) => Promise<T>): Promise<T> {
    const known = this.remembered.get(key) as Promise<T> | undefined;
    if (known) return known;
    const answer = read(this.read);
    this.remembered.set(key, answer);
    answer.catch(() => {
      if (this.remembered.get(key) === answer) this.remembered.delete(key);
    });
    return answer;
  }

  /**
   * PGlite runs no autovacuum worker and no checkpointer, so the store does their jobs. After enough
   * index writes (a quarter of the postings, at least 2 000 rows — a new store needs statistics early, or the
   * planner guesses badly on its small, fresh tables) it refreshes planner statistics and the visibility
   * map that BM25's index-only scans depend on; after enough WAL it checkpoints, which lets Postgres
   * recycle the segments behind it. Cheap to call after every write; it usually does nothing. Says
   * whether it vacuumed. Each vacuum reads every table, so a growing store pays the sum of its sizes at
   * each vacuum: a quarter's growth between them makes that about 5× the final size (a tenth's: 11×).
   */
  async maintain(force = false): Promise<boolean> {
    this.assertOpen();
    const vacuumed = await this.vacuum(force);
    await this.checkpoint(force);
    return vacuumed;
  }

  private async vacuum(force: boolean): Promise<boolean> {
    if (!force && this.writesSinceMaintenance < 2_000) return false;
    if (!force) {
      const r = await this.db.query<{ n: number }>(`SELECT COALESCE(sum(postings), 0)::float8 AS n FROM bm25_stats`);
      if (this.writesSinceMaintenance < 0.25 * Math.max(0, r.rows[0]?.n ?? 0)) return false;
    }
    this.writesSinceMaintenance = 0;
    // Also where deleted facts' text leaves the data pages for good (forget, purge).
    await this.db.exec(
      'VACUUM (ANALYZE) bm25_postings, bm25_terms, bm25_docs, bm25_stats, episodes, episode_embeddings, messages, semantic_nodes, semantic_versions, semantic_terms, semantic_embeddings',
    );
    await this.factStatisticsTaken();
    return true;
  }

  /** A checkpoint when `force` or when the WAL written since the last one passed CHECKPOINT_AFTER_BYTES. */
  private async checkpoint(force: boolean): Promise<void> {
    if (!force) {
      const r = await this.db.query<{ since: number }>(
        `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), redo_lsn)::float8 AS since FROM pg_control_checkpoint()`,
      );
      if ((r.rows[0]?.since ?? 0) < CHECKPOINT_AFTER_BYTES) return;
    }
    await this.db.exec('CHECKPOINT');
  }

  /**
   * Bytes of PGlite's WebAssembly memory: the most of the app's memory the database can take. It only
   * ever grows, and what Postgres touched of it stays resident while the store is open (see STARTUP_SETTINGS).
   */
  databaseMemoryBytes(): number {
    this.assertOpen();
    return this.db.Module.wasmMemory.buffer.byteLength;
  }

  /** Bytes in the write-ahead log's folder (pg_wal), in memory or on disk. */
  async walBytes(): Promise<number> {
    this.assertOpen();
    const r = await this.db.query<{ n: number }>(`SELECT COALESCE(sum(size), 0)::float8 AS n FROM pg_ls_waldir()`);
    return r.rows[0]?.n ?? 0;
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
    await this.factStatisticsTaken();
    if (!this.dir) return;
    await this.db.exec('CHECKPOINT');
    await this.db.query('SELECT pg_switch_wal()');
    await this.db.exec('CHECKPOINT');
    this.writesSinceMaintenance = 0;
  }

  /**
   * Rewrites the keyword index's tables into new files. A rebuild replaces an owner's whole index in
   * one transaction, and the rows it replaced are dead space a plain vacuum only makes reusable: 100k
   * episodes took 1,005 MB on disk after a rebuild, 764 MB compacted (842 before the rebuild).
   */
  async compactKeywordIndex(): Promise<void> {
    this.assertOpen();
    await this.db.exec('VACUUM FULL bm25_postings, bm25_terms, bm25_docs');
    await this.db.exec('ANALYZE bm25_postings, bm25_terms, bm25_docs');
  }

  /**
   * A consistent copy of the whole database as a gzipped tarball, sealed when a passphrase is given,
   * readable by the person only (it holds every message). The data folder is written from disk once
   * a checkpoint has put everything in its files, with the database held meanwhile (what PGlite's own
   * dump does, without building the archive in memory: core/store/backup-archive.ts). A store kept in
   * memory is dumped by PGlite.
   */
  async backup(file: string, passphrase?: string): Promise<void> {
    this.assertOpen();
    if (!this.dir) {
      const blob = await this.db.dumpDataDir('gzip');
      fs.writeFileSync(file, await sealBackup(Buffer.from(await blob.arrayBuffer()), passphrase), { mode: 0o600 });
      return;
    }
    const dataDir = path.join(this.dir, 'pg');
    const db = this.db;
    // No transaction open, no statement running, until the copy is made.
    await db._runExclusiveTransaction(() =>
      db.runExclusive(async () => {
        await db.execProtocol(protocol.serialize.query('CHECKPOINT'));
        await writeBackupArchive(dataDir, file, passphrase);
      }),
    );
  }

  /**
   * Unpacks a backup as a new database in `dir` (which must not hold one), opening it first when it is
   * sealed (a wrong passphrase or a changed file is refused before anything is written), checking it is one of ours
   * (a PGlite data folder with our migrations table); a file that is not leaves nothing behind. The
   * caller then swaps `dir` in as the store, whose `open` migrates it if it is older (and refuses a newer one).
   */
  static async unpackBackup(dir: string, file: string, passphrase?: string): Promise<{ schemaVersion: number }> {
    const pg = path.join(dir, 'pg');
    if (fs.existsSync(pg)) throw new Error(`${pg} already holds a database`);
    const bytes = await openBackupArchive(file, passphrase);
    fs.mkdirSync(dir, { recursive: true });
    try {
      await unpackBackupArchive(bytes, pg, file);
      let db: PGlite;
      try {
        db = await PGlite.create(pgliteOptions(pg));
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

  /** On-disk bytes of each table with its indexes and TOAST, largest first (what the scale benchmark prints). */
  async tableSizes(): Promise<{ table: string; bytes: number; indexBytes: number }[]> {
    this.assertOpen();
    const r = await this.db.query<{ table: string; bytes: number; index_bytes: number }>(
      `SELECT c.relname AS table, pg_total_relation_size(c.oid)::float8 AS bytes, pg_indexes_size(c.oid)::float8 AS index_bytes
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE c.relkind = 'r' AND n.nspname = 'public' ORDER BY bytes DESC`,
    );
    return r.rows.map((x) => ({ table: x.table, bytes: x.bytes, indexBytes: x.index_bytes }));
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
      let closedAt: string | undefined;
      try {
        // What was written since the last checkpoint need not wait in the WAL for the next open.
        await this.db.exec('CHECKPOINT');
        closedAt = (await this.db.query<{ lsn: string }>(`SELECT pg_current_wal_lsn()::text AS lsn`)).rows[0]?.lsn;
      } finally {
        await this.db.close();
      }
      if (this.dir) {
        if (closedAt) fs.writeFileSync(path.join(this.dir, CLEAN_CLOSE_FILE), closedAt, { mode: 0o600 });
        // PGlite sets some files' modes itself (the relcache init files, 0644): owner-only again before letting go.
        makePrivate(this.dir);
      }
    } finally {
      this.lock?.release();
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('the store is closed');
  }
}
