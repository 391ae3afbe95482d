import fs from 'node:fs';
import path from 'node:path';
import { copyMemory, describeFolderProblem, removeMemory, restoreStaging, STORE_FOLDER } from '../store/data-folder.js';
import { NemoriError } from '../domain/errors.js';
import { DEFAULT_MODEL_ID } from '../embed/index.js';
import { saveStartupFile, type Startup } from './startup.js';
import { Store } from '../store/store.js';
import { operations, parseInput, type OperationName, type OpOutput } from '../api/contract.js';
import type { CallOptions, Engine } from './open-engine.js';
import type { Handlers } from '../api/handler.js';
import { inspectFolder } from '../api/handlers/startup.js';
import type { ModelStatus } from '../api/model-status.js';
import { openDefaultEngine } from './open-default.js';
import { HOST_OPERATIONS, type HostOperationName } from '../api/startup-contract.js';
import type { DirLock } from '../store/lock.js';
import type { EngineEvent } from '../api/wire.js';

export interface AppEngineOptions {
  startup: Startup;
  warn: (message: string) => void;
  /** The embedding model's state while it downloads and loads: at start, and after a model change. */
  onModelProgress?: (s: ModelStatus) => void;
  /** The desktop app's API key from the OS keychain (see OpenEngineOptions). */
  llmKeyFromHost?: string | null;
  env?: NodeJS.ProcessEnv;
  /** The daily forgetting pass and background discovery (default on; a one-shot CLI command turns them off). */
  background?: boolean;
  /** The lock of `startup.home`, taken by the caller (connect.ts), for the first opening; later openings take their own. */
  lock?: DirLock | undefined;
  /** Told when the memory now lives in another folder (setDataFolder): the holder file follows it. */
  onHomeChanged?: (home: string) => void;
  /** The events of the calls the engine makes by itself (the watched folder's imports), for every window. */
  onEvent?: (e: EngineEvent) => void;
  /**
   * How the first opening reads the embedding model: loaded (default), or only looked for — by a
   * command that shows or copies the store and must not start a model's download.
   */
  embeddings?: 'auto' | 'probe';
}

export type AppEngine = Pick<Engine, 'call' | 'close'>;

const isHostOperation = (name: OperationName): name is HostOperationName => (HOST_OPERATIONS as readonly string[]).includes(name);

/**
 * The engine of a long-running host (the desktop app's engine process, `nemori web`): the contract
 * on the chosen data folder and model, plus the changes that need the store closed and another one
 * opened — moving the memory or opening another, changing the embedding model, restoring a backup.
 * Calls made during a change wait for it. A change that fails puts the previous memory back.
 */
export async function openAppEngine(o: AppEngineOptions): Promise<AppEngine> {
  let startup = o.startup;
  // Only the first opening has the caller's lock and may leave the model unloaded; later ones (after a
  // change) take their own lock and load the model.
  const open = (s: Startup, { lock, embeddings }: { lock?: DirLock | undefined; embeddings: 'auto' | 'probe' } = { embeddings: 'auto' }) =>
    openDefaultEngine({
      home: s.home,
      embeddingModel: s.embeddingModel,
      embeddings,
      // Open for days, like the desktop app: the daily forgetting pass and background discovery run.
      scheduleForgetting: o.background ?? true,
      warn: o.warn,
      ...(o.onModelProgress ? { onModelProgress: o.onModelProgress } : {}),
      ...(o.llmKeyFromHost !== undefined ? { llmKeyFromHost: o.llmKeyFromHost } : {}),
      ...(o.env ? { env: o.env } : {}),
      ...(lock ? { lock } : {}),
      ...(o.onEvent ? { onEvent: o.onEvent } : {}),
      // Companions' entries follow the folder Settings chose (startup.json) unless a flag or NEMORI_HOME fixed it.
      companionHome: s.homePinnedBy ? s.home : null,
    });
  let engine = await open(startup, { lock: o.lock, embeddings: o.embeddings ?? 'auto' });
  /** Settles when no change is under way; changes run one after another. */
  let quiet: Promise<unknown> = Promise.resolve();
  let closed = false;

  /** Closes the store, runs `change` (which opens the next engine), and reopens the old one if it fails. */
  function change<T>(work: () => Promise<T>): Promise<T> {
    const run = quiet.then(async () => {
      if (closed) throw new NemoriError('INVALID_INPUT', 'Nemori is closing');
      await engine.close();
      try {
        return await work();
      } catch (e) {
        engine = await open(startup);
        throw e;
      }
    });
    quiet = run.catch(() => {});
    return run;
  }

  const pinned = (by: string | null, what: string) => {
    if (by)
      throw new NemoriError('INVALID_INPUT', `${what} is set by ${by} for this run: start Nemori without it to change it in Settings`);
  };

  async function view(): Promise<OpOutput<'getStartup'>> {
    const own = await engine.call('getStartup', {});
    return {
      ...own,
      dataDir: startup.home,
      defaultDataDir: startup.defaultHome,
      dataDirPinnedBy: startup.homePinnedBy,
      modelPinnedBy: startup.modelPinnedBy,
      canChange: true,
    };
  }

  const host: Pick<Handlers, HostOperationName | 'getStartup' | 'inspectFolder'> = {
    getStartup: view,

    inspectFolder: async ({ folder }) => inspectFolder(folder, startup.home, startup.defaultHome),

    async setDataFolder({ folder, mode }) {
      pinned(startup.homePinnedBy, 'The data folder');
      const check = inspectFolder(folder, startup.home, startup.defaultHome);
      const cannot = mode === 'move' ? check.cannotMove : check.cannotOpen;
      if (cannot) throw new NemoriError('INVALID_INPUT', describeFolderProblem(cannot, check.folder));
      const next: Startup = { ...startup, home: check.folder };
      const leftBehind = await change(async () => {
        const moved = mode === 'move' ? copyMemory(startup.home, next.home) : [];
        try {
          engine = await open(next);
        } catch (e) {
          removeMemory(next.home, moved);
          throw e;
        }
        saveStartupFile(startup.file, { dataDir: next.home === startup.defaultHome ? undefined : next.home });
        const old = startup.home;
        startup = next;
        o.onHomeChanged?.(next.home);
        // Only once the new folder has opened: the old copy was the fallback until then.
        return removeMemory(old, moved);
      });
      return { startup: await view(), leftBehind };
    },

    async setEmbeddingModel({ modelId }) {
      pinned(startup.modelPinnedBy, 'The embedding model');
      const next: Startup = { ...startup, embeddingModel: modelId === DEFAULT_MODEL_ID ? undefined : modelId };
      if ((startup.embeddingModel ?? DEFAULT_MODEL_ID) !== modelId || !engine.embedding.available) {
        const previous = startup.embeddingModel ?? DEFAULT_MODEL_ID;
        await change(async () => {
          engine = await open(next);
          if (!engine.embedding.available) {
            const reason = engine.embedding.reason ?? 'it did not load';
            await engine.close();
            throw new NemoriError('MODEL_UNAVAILABLE', `${modelId} could not be used (${reason}); Nemori keeps ${previous}`);
          }
          saveStartupFile(startup.file, { embeddingModel: next.embeddingModel });
          startup = next;
        });
      }
      const { owners } = await engine.call('stats', {});
      return { startup: await view(), unembedded: owners.reduce((n, s) => n + s.episodes - s.embedded, 0) };
    },

    async restoreBackup({ file, passphrase }) {
      if (!path.isAbsolute(file)) throw new NemoriError('INVALID_INPUT', `restoreBackup: file: give a full path (${file} is relative)`);
      // Unpacked and checked beside the store while it is still open: a wrong file changes nothing.
      const db = path.join(startup.home, STORE_FOLDER);
      const { staged, aside, done } = restoreStaging(db, Date.now());
      try {
        const { schemaVersion } = await Store.unpackBackup(staged, file, passphrase);
        const safety = await engine.call('backup', passphrase ? { passphrase } : {});
        await change(async () => {
          // Only the database inside `db` is swapped: `db` itself, with the lock and the holder file that
          // other processes look for, stays where it is.
          const [live, restored, kept] = [path.join(db, 'pg'), path.join(staged, 'pg'), path.join(aside, 'pg')];
          fs.mkdirSync(aside);
          fs.renameSync(live, kept);
          fs.renameSync(restored, live);
          try {
            engine = await open(startup);
          } catch (e) {
            fs.rmSync(live, { recursive: true, force: true });
            fs.renameSync(kept, live);
            fs.rmSync(aside, { recursive: true, force: true });
            throw e;
          }
          fs.rmSync(aside, { recursive: true, force: true });
        });
        return { restored: file, safetyBackup: safety.file, schemaVersion };
      } finally {
        // Swapped in, or left over when something failed before the swap.
        fs.rmSync(staged, { recursive: true, force: true });
        done();
      }
    },
  };

  return {
    async call(name, input, opts?: CallOptions) {
      const op: OperationName = name;
      if (op === 'getStartup' || op === 'inspectFolder' || isHostOperation(op)) {
        const handler = host[op] as (i: unknown, o: CallOptions) => Promise<unknown>;
        return operations[name].output.parse(await handler(parseInput(name, input), opts ?? {})) as never;
      }
      await quiet;
      return engine.call(name, input, opts);
    },
    async close() {
      closed = true;
      await quiet;
      await engine.close();
    },
  };
}
