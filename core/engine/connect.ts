/**
 * One engine per data folder, reachable by every process. `connectOrOpenEngine` is how a front end (the
 * CLI, `nemori web`, the desktop app's engine process, MCP) gets at a folder's memory:
 *
 * - a live holder answers for it (holder file present, its pid running, an authenticated ping from the
 *   same version): calls go to it over loopback — same operations, validated on both sides, with
 *   progress and cancellation;
 * - a holder of another version: a clear error, never a second engine;
 * - nobody: this process takes the folder's lock, becomes the holder (serving the others) and opens the
 *   engine. A stale holder file or lock (its process died) is taken over.
 *
 * When the holder goes away mid-session, the next call finds the new one or becomes it, and is sent
 * again only when that is safe (retry.ts): a call the holder never received always, one it may have run
 * only if doing it twice equals doing it once.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { operations, parseInput, type OperationName, type OpInput, type OpOutput } from '../api/contract.js';
import { WireCallError } from '../api/dispatch.js';
import { HOST_OPERATIONS, type HostOperationName } from '../api/startup-contract.js';
import { isNemoriError, NemoriError } from '../domain/errors.js';
import { STORE_FOLDER } from '../store/data-folder.js';
import { acquireLock, readLockHolder, type DirLock } from '../store/lock.js';
import {
  describeVersions,
  engineVersion,
  isAlive,
  lockFileOf,
  readHolderFile,
  removeHolderFile,
  sameFolder,
  sameVersion,
  writeHolderFile,
  type EngineVersion,
  type HolderIdentity,
} from './holder.js';
import type { CallOptions, Engine, ProgressEvent } from './open-engine.js';
import { safeToRepeat } from './retry.js';

/** Where a holder listens, and the secret it wants. */
export interface HolderAddress {
  pid: number;
  port: number;
  token: string;
  /** The data folder the call is for (a holder that moved to another one refuses it, unrun). */
  home: string;
}

/** A holder's loopback service, as the transport runs it. */
export interface HolderService {
  readonly port: number;
  readonly token: string;
  /** What companions get instead of `token`: memory operations only. */
  readonly companionToken: string;
  /** Calls from other processes running now. */
  inFlight(): number;
  /** Stops answering. `drain`: the calls running finish first; without it (or called again without it) they are cut off. */
  close(o?: { drain?: boolean }): Promise<void>;
}

/** How calls travel between processes: core/http/holder-transport.ts (HTTP on 127.0.0.1, bearer token). */
export interface HolderTransport {
  /** Answers other processes' calls with `engine`; `identity` is what a ping returns. */
  serve(engine: Pick<Engine, 'call'>, identity: () => HolderIdentity): Promise<HolderService>;
  /** Who answers at `at` with its token; null when nothing does (or something that is not it). */
  ping(at: HolderAddress): Promise<HolderIdentity | null>;
  /**
   * Runs one call at the holder and returns its output (checked against the contract by the caller).
   * Rejects with HolderGone when the holder cannot be reached or goes away, else with the holder's error.
   */
  call(
    at: HolderAddress,
    name: OperationName,
    input: unknown,
    o: { callId: string; onProgress?: ((e: ProgressEvent) => void) | undefined; signal?: AbortSignal },
  ): Promise<unknown>;
}

/**
 * The holder is not there. `reached: false`: the call never got to it (connection refused, or a holder
 * that no longer holds this folder said it did not run it); `reached: true`: it went away during the call,
 * which may or may not have been done.
 */
export class HolderGone extends Error {
  constructor(
    readonly reached: boolean,
    message: string,
  ) {
    super(message);
    this.name = 'HolderGone';
  }
}

/** What `open` gets when this process becomes the holder. */
export interface HeldFolder {
  /** The folder's lock, taken: give it to the store (`lock` of openEngine / openDefaultEngine / openAppEngine), which releases it on close. */
  lock: DirLock;
  /** A host that moved to another data folder says so: the holder file follows it. */
  moved(home: string): void;
}

export type HostedEngine = Pick<Engine, 'call' | 'close'>;

export interface ConnectOptions {
  home: string;
  /** Opens the engine when this process becomes the holder (at first, or later when the holder it used went away). */
  open(held: HeldFolder): Promise<HostedEngine>;
  transport: HolderTransport;
  /** Told whenever calls start going to another process's engine (the CLI says so on stderr). */
  onClient?(holder: { pid: number; home: string }): void;
  /** The version this process speaks; default this package's, with its schema. */
  version?: EngineVersion;
  /** How long to wait for a holder that has the lock but does not answer yet (starting, busy). Default 30 s. */
  waitMs?: number;
}

export interface ConnectedEngine extends HostedEngine {
  /** `drain`: a holder first finishes the calls other processes are running on it. */
  close(o?: { drain?: boolean }): Promise<void>;
  /** Whether calls run here (`holder`) or in another process (`client`) right now. */
  readonly role: 'holder' | 'client';
  /** The process that runs the calls. */
  readonly holderPid: number;
  /** Settles once the engine behind `call` is open (a holder's own opening; a client's holder is open). */
  readonly ready: Promise<void>;
  /** Calls from other processes running on this holder now (0 for a client). */
  othersInFlight(): number;
}

interface Holding {
  engine: Promise<HostedEngine>;
  service: HolderService;
  close(drain: boolean): Promise<void>;
}

type State = { kind: 'client'; at: HolderAddress } | { kind: 'holder'; holding: Holding };

const isHostOperation = (name: OperationName): name is HostOperationName => (HOST_OPERATIONS as readonly string[]).includes(name);
const HOST_WORK: Record<HostOperationName, string> = {
  setDataFolder: 'moving or switching the memory',
  setEmbeddingModel: 'switching the embedding model',
  restoreBackup: 'restoring a backup',
};

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function connectOrOpenEngine(o: ConnectOptions): Promise<ConnectedEngine> {
  const home = path.resolve(o.home);
  const version = o.version ?? engineVersion();
  const waitMs = o.waitMs ?? 30_000;
  let closed = false;

  function versionError(pid: number, theirs: EngineVersion | string | null): NemoriError {
    const [their, mine] =
      theirs && typeof theirs === 'object' ? describeVersions(theirs, version) : [theirs ?? 'of another version', version.app];
    return new NemoriError(
      'STORE_LOCKED',
      `Nemori ${their} holds this data folder; this is ${mine} — close that one (pid ${pid}) or use the same version of Nemori for ${home}`,
      { pid, home },
    );
  }

  function tryLock(): DirLock | NemoriError {
    fs.mkdirSync(path.join(home, STORE_FOLDER), { recursive: true });
    try {
      return acquireLock(lockFileOf(home), { serves: true });
    } catch (e) {
      if (isNemoriError(e) && e.code === 'STORE_LOCKED') return e;
      throw e;
    }
  }

  /** Finds the live holder of `home`, or takes the folder and becomes it. */
  async function discover(): Promise<State> {
    /** Since when the process that has the lock neither answers nor says it is finishing. */
    let since = Date.now();
    for (;;) {
      if (closed) throw new WireCallError({ code: 'ENGINE_UNAVAILABLE', message: 'Nemori is closing' });
      const read = readHolderFile(home);
      if (read.kind === 'foreign' && isAlive(read.pid) && readLockHolder(lockFileOf(home))?.alive)
        throw versionError(read.pid, read.version);
      if (read.kind === 'ours' && read.holder.state === 'open' && isAlive(read.holder.pid)) {
        const at: HolderAddress = { pid: read.holder.pid, port: read.holder.port, token: read.holder.token, home };
        const who = await o.transport.ping(at);
        if (who && who.pid === at.pid && sameFolder(who.home, home)) {
          if (!sameVersion(who.version, version)) throw versionError(who.pid, who.version);
          return { kind: 'client', at };
        }
      }
      // Nobody answers for the folder: take it (a dead holder's lock is taken over).
      const lock = tryLock();
      if (!(lock instanceof NemoriError)) return hold(lock);
      const owner = readLockHolder(lockFileOf(home));
      if (owner?.alive) {
        const itsFile = read.kind === 'ours' && read.holder.pid === owner.pid;
        // A holder finishing other processes' calls before it lets go: wait for it, however long that takes.
        const finishing = itsFile && read.holder.state === 'closing';
        if (finishing) since = Date.now();
        else {
          // An engine that answers nobody (an older Nemori, a program on the store itself): as before, locked.
          if (!owner.serves && !itsFile) throw lock;
          if (Date.now() - since > waitMs) {
            throw new NemoriError(
              'STORE_LOCKED',
              `${lock.message.replace(/; close it first.*$/, '')}, and it does not answer: close it first, or delete ${lockFileOf(home)} if that process is gone`,
              lock.details,
            );
          }
        }
      }
      await pause(40 + Math.random() * 60);
    }
  }

  /** Holds the folder: serves the others at once (their calls wait for the engine), says where, then opens the engine. */
  async function hold(lock: DirLock): Promise<State> {
    const startedAt = new Date().toISOString();
    let current = home;
    let opened!: (e: HostedEngine) => void;
    let failed!: (e: unknown) => void;
    const engine = new Promise<HostedEngine>((resolve, reject) => {
      opened = resolve;
      failed = reject;
    });
    engine.catch(() => {});
    const identity = (): HolderIdentity => ({ pid: process.pid, version, home: current, startedAt });
    const local: Pick<Engine, 'call'> = { call: async (name, input, c) => (await engine).call(name, input, c) };
    let service: HolderService;
    try {
      service = await o.transport.serve(local, identity);
    } catch (e) {
      lock.release();
      throw e;
    }
    let fileState: 'open' | 'closing' = 'open';
    let withdrawn = false;
    const publish = () => {
      if (!withdrawn)
        writeHolderFile(current, {
          ...identity(),
          port: service.port,
          token: service.token,
          companionToken: service.companionToken,
          state: fileState,
        });
    };
    const withdraw = () => {
      withdrawn = true;
      removeHolderFile(current, service.token);
    };
    try {
      publish();
    } catch (e) {
      await service.close();
      lock.release();
      throw e;
    }
    void (async () => {
      try {
        opened(
          await o.open({
            lock,
            moved(next) {
              removeHolderFile(current, service.token);
              current = path.resolve(next);
              publish();
            },
          }),
        );
      } catch (e) {
        failed(e);
        withdraw();
        await service.close().catch(() => {});
        lock.release();
      }
    })();

    let closing: Promise<void> | null = null;
    const holding: Holding = {
      engine,
      service,
      close(drain) {
        if (closing) {
          // Asked again without patience (Ctrl-C while draining): cut off what still runs.
          if (!drain) void service.close({ drain: false });
          return closing;
        }
        closing = (async () => {
          fileState = 'closing';
          try {
            publish();
          } catch {
            /* the file is only a signpost; the lock is what counts */
          }
          await service.close({ drain });
          withdraw();
          try {
            await (await engine).close();
          } catch {
            /* it never opened (already withdrawn), or closing failed: the lock goes anyway */
          } finally {
            lock.release();
          }
        })();
        return closing;
      },
    };
    return { kind: 'holder', holding };
  }

  const announce = (s: State) => {
    if (s.kind === 'client') o.onClient?.({ pid: s.at.pid, home });
  };

  let state = await discover();
  announce(state);
  let switching: Promise<State> | null = null;
  const running = new Set<AbortController>();

  /** After the holder in `from` went away: the next one (shared by every call that noticed). */
  function rediscover(from: State): Promise<State> {
    if (state !== from) return Promise.resolve(state);
    switching ??= discover()
      .then((next) => {
        state = next;
        announce(next);
        return next;
      })
      .finally(() => {
        switching = null;
      });
    return switching;
  }

  async function refuseUnlessHostCan(at: HolderAddress, name: HostOperationName): Promise<void> {
    const view = operations.getStartup.output.parse(await o.transport.call(at, 'getStartup', {}, { callId: randomUUID() }));
    if (!view.canChange) {
      throw new NemoriError(
        'INVALID_INPUT',
        `${HOST_WORK[name]} needs the store closed, and the Nemori that holds ${home} (pid ${at.pid}) cannot do it: close it (or let it finish), then try again`,
      );
    }
  }

  async function call<K extends OperationName>(name: K, input: OpInput<K>, opts: CallOptions = {}): Promise<OpOutput<K>> {
    // The same check the engine makes, before anything travels.
    parseInput(name, input);
    const callId = opts.callId ?? randomUUID();
    for (let attempt = 0; ; attempt++) {
      const s = switching ? await switching : state;
      if (s.kind === 'holder') return (await s.holding.engine).call(name, input, { ...opts, callId });
      const abort = new AbortController();
      // The caller's stop is the holder's to carry out, as for its own calls: the call ends at its next
      // committed step and still answers with what it did (an import's report).
      const stop = () => void call('cancelCall', { callId }).catch(() => {});
      opts.signal?.addEventListener('abort', stop, { once: true });
      running.add(abort);
      try {
        if (isHostOperation(name)) await refuseUnlessHostCan(s.at, name);
        const out = await o.transport.call(s.at, name, input, { callId, onProgress: opts.onProgress, signal: abort.signal });
        return operations[name].output.parse(out) as OpOutput<K>;
      } catch (e) {
        if (!(e instanceof HolderGone) || closed || abort.signal.aborted) throw e;
        await rediscover(s);
        if (e.reached && !safeToRepeat(name, input)) {
          throw new WireCallError({
            code: 'ENGINE_UNAVAILABLE',
            message: `the Nemori that held ${home} (pid ${s.at.pid}) stopped during ${name}: it may or may not have been done, so it was not sent again — check, then run it again if needed`,
          });
        }
        if (attempt >= 5) throw e;
      } finally {
        running.delete(abort);
        opts.signal?.removeEventListener('abort', stop);
      }
    }
  }

  const first = state;
  const ready = first.kind === 'holder' ? first.holding.engine.then(() => undefined) : Promise.resolve();
  // Whoever awaits it sees the failure; nobody awaiting it is no crash.
  ready.catch(() => {});
  return {
    call,
    get role() {
      return state.kind;
    },
    get holderPid() {
      return state.kind === 'client' ? state.at.pid : process.pid;
    },
    ready,
    othersInFlight: () => (state.kind === 'holder' ? state.holding.service.inFlight() : 0),
    async close(co = {}) {
      closed = true;
      for (const a of running) a.abort();
      const s = switching ? await switching.catch(() => state) : state;
      if (s.kind === 'holder') await s.holding.close(Boolean(co.drain));
    },
  };
}
