/**
 * New stores in tests start from a prepared template instead of running PGlite's initdb.
 *
 * initdb is most of what opening a new store costs (a second WebAssembly Postgres that creates the
 * cluster, dumped and loaded into the first): ~2.3 s of CPU per new store, against ~0.7 s to load a
 * finished data folder into memory and ~0.4 s to open a copy of one on disk, and the suite opens new
 * stores all the time (most tests' engines, every `nemori` process on a fresh home). So
 * test/global-setup.ts builds the template once per run, through the real `Store.open` (initdb and
 * every migration), and this module, preloaded into the test workers and every Node process they
 * start (NODE_OPTIONS --import), hands it to PGlite wherever a new, empty store would be created:
 *
 * - in memory (`Store.open()`): `loadDataDir` with the template's tarball;
 * - on disk (`Store.open({ dir })` on a folder without a database): the template folder is copied there.
 *
 * Nothing else changes: Store.open still runs `migrate` (which finds every migration applied, as it
 * would on the second open of a store) and its own settings. Only calls that would run initdb are
 * touched — the store's own options (the pgvector extension), no `loadDataDir`, an absent or empty
 * data folder (a restore unpacks its backup into the folder first). test/store/store.test.ts opts out
 * (`useRealStoreStartup`) where it tests making a store and upgrading one, so those still go through
 * initdb and every migration.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';

/** The folder the template lives in: `memory.tar` (dumpDataDir, uncompressed) and `pg/` (a closed data folder). */
export const TEMPLATE_ENV = 'TEST_STORE_TEMPLATE';

const STATE = Symbol.for('nemori.test.storeTemplate');

/** @returns {{ dir: string | null, enabled: boolean, tar: Blob | null, used: { memory: number, disk: number } }} */
export function templateState() {
  const g = /** @type {Record<symbol, any>} */ (globalThis);
  g[STATE] ??= { dir: null, enabled: true, tar: null, used: { memory: 0, disk: 0 } };
  return g[STATE];
}

function isEmptyDir(dir) {
  try {
    return fs.readdirSync(dir).length === 0;
  } catch (e) {
    if (/** @type {NodeJS.ErrnoException} */ (e).code === 'ENOENT') return true;
    throw e;
  }
}

/** Whether PGlite would run initdb for these options, on a store's own terms. */
function wouldInitdb(o) {
  if (o.loadDataDir || o.noInitDb || o.fs || !o.extensions?.vector) return false;
  if (o.dataDir === undefined) return true;
  if (typeof o.dataDir !== 'string' || o.dataDir.includes('://')) return false;
  return isEmptyDir(o.dataDir);
}

/** Patches PGlite.create (once per process) to start new stores from the template in `dir`. */
export function installStoreTemplate(dir) {
  const state = templateState();
  if (state.dir) return;
  state.dir = dir;
  const create = PGlite.create;
  PGlite.create = /** @type {typeof PGlite.create} */ (
    async function createFromTemplate(dataDirOrOptions, options) {
      const o = typeof dataDirOrOptions === 'string' ? { ...options, dataDir: dataDirOrOptions } : { ...dataDirOrOptions };
      if (state.enabled && wouldInitdb(o)) {
        if (o.dataDir === undefined) {
          state.tar ??= new Blob([fs.readFileSync(path.join(dir, 'memory.tar'))]);
          o.loadDataDir = state.tar;
          state.used.memory++;
        } else {
          fs.cpSync(path.join(dir, 'pg'), o.dataDir, { recursive: true });
          state.used.disk++;
        }
      }
      return create.call(this, o);
    }
  );
}

const fromEnv = process.env[TEMPLATE_ENV];
if (fromEnv) installStoreTemplate(fromEnv);
