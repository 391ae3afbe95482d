import { boundHeapGrowth } from './heap-growth.js';
import { repairOnOpen } from '../episodes/repair.js';
import path from 'node:path';
import type { z } from 'zod';
import { ENGINE_SETTINGS_KEY, EngineConfig, layerConfig, systemClock, type Clock, type EngineContext } from '../context/engine-context.js';
import { makePrivate, STORE_FOLDER } from '../store/data-folder.js';
import type { Embedder } from '../embed/embedder.js';
import { startForgettingScheduler, type ForgettingScheduler } from '../jobs/forgetting-scheduler.js';
import { startRetelling } from '../jobs/retelling.js';
import { discoveryJobs } from '../jobs/discovery-runner.js';
import { liveBuilding } from '../jobs/live-building.js';
import { Store } from '../store/store.js';
import type { DirLock } from '../store/lock.js';
import { cancellation } from '../jobs/cancellation.js';
import { readHolderFile, sameFolder } from './holder.js';
import { operations, parseInput, type OperationName, type OpInput, type OpOutput } from '../api/contract.js';
import type { CallOptions, EmbeddingStatus, Handlers } from '../api/handler.js';
import { companionAccess } from '../api/handlers/companions.js';
import { episodeHandlers } from '../api/handlers/episodes.js';
import { forgettingHandlers } from '../api/handlers/forgetting.js';
import { attachLlm, llmHandlers, type LlmOption } from '../api/handlers/llm.js';
import { importHandlers } from '../api/handlers/imports.js';
import { exportHandlers } from '../api/handlers/export.js';
import { knowledgeHandlers } from '../api/handlers/knowledge.js';
import { liveHandlers } from '../api/handlers/live.js';
import { loadContextHandlers, warmUpLoadContext, type CallOp } from '../api/handlers/load-context.js';
import { searchHandlers } from '../api/handlers/search.js';
import { startupHandlers } from '../api/handlers/startup.js';
import { systemHandlers } from '../api/handlers/system.js';
import { watchedFolderHandlers } from '../api/handlers/watched-folder.js';
import { createDispatcher, WireCallError } from '../api/dispatch.js';
import type { EngineEvent } from '../api/wire.js';
import { watchFolder, type FolderWatcher } from '../ingest/watched-folder.js';

export type { CallOptions, EmbeddingStatus, ProgressEvent } from '../api/handler.js';

export interface OpenEngineOptions {
  /** Data folder; null → an in-memory store that vanishes on close (tests, previews). */
  home: string | null;
  /** The embedding model, or its loading: the store opens meanwhile (the model loads in its own thread). */
  embedder: Embedder | null | Promise<Embedder | null>;
  /** What `health` reports about the embedding model (the loader knows why a model is missing). */
  embeddingStatus?: EmbeddingStatus | Promise<EmbeddingStatus>;
  clock?: Clock;
  config?: z.input<typeof EngineConfig>;
  warn?: (message: string) => void;
  /**
   * Run the forgetting pass in the background (daily by default, `config.forgetting.schedule`), and
   * knowledge discovery whenever an LLM is there to do it. For the long-lived app; tests and CLI
   * one-shots leave it off and run both on demand.
   */
  scheduleForgetting?: boolean;
  /**
   * The LLM: a configuration to use (from the environment, CLI flags or the caller), null for off,
   * or omitted to use the settings saved through the API (none saved: off). Off means no network call.
   */
  llm?: LlmOption;
  /**
   * The host keeps the LLM API key outside the database (the desktop app, in the OS keychain): the key
   * for this session, or null for none. Omitted: the key is saved with the other LLM settings.
   */
  llmKeyFromHost?: string | null;
  /**
   * The data folder the companions' `nemori mcp` entries name (Settings → Companions): null for none, when
   * `nemori` finds this folder by itself (a host following what Settings chose); default: this folder.
   */
  companionHome?: string | null;
  /** The data folder's lock, when the caller took it first (connect.ts: to decide it holds the folder); released on close. */
  lock?: DirLock | undefined;
  /**
   * The events of calls the engine makes by itself (the watched folder's imports), announced like a
   * window's calls: the host passes them on to every window.
   */
  onEvent?: (e: EngineEvent) => void;
}

/** The engine every front end talks to: one validated `call` per contract operation. */
export interface Engine {
  call<K extends OperationName>(name: K, input: NoInfer<OpInput<K>>, o?: CallOptions): Promise<OpOutput<K>>;
  readonly context: EngineContext;
  /** Whether the embedding model loaded, and why not (then search matches words only). */
  readonly embedding: EmbeddingStatus;
  /**
   * Resolves when the engine's own work is done: the warm-up of a host that stays open, then live
   * memory's background building — the tails idle by the engine clock are closed first, then every
   * queued and running rebuild is awaited (tests: instead of sleeping).
   */
  idle(): Promise<void>;
  close(): Promise<void>;
}

async function configAt(store: Store, explicit: Record<string, unknown>): Promise<EngineConfig> {
  const saved = (await store.read.settings.get(ENGINE_SETTINGS_KEY)) ?? {};
  const layered = layerConfig(saved, explicit);
  const parsed = EngineConfig.safeParse(layered);
  if (parsed.success) return parsed.data;
  // Saved settings that no longer validate must not keep the app from opening.
  return EngineConfig.parse(explicit);
}

export async function openEngine(o: OpenEngineOptions): Promise<Engine> {
  // Awaited once the store is open; a model that fails while the store cannot open is not left unhandled.
  const model = Promise.all([o.embedder, o.embeddingStatus]);
  model.catch(() => {});
  if (o.lock && !o.home) throw new Error('a lock was given for an in-memory engine');
  boundHeapGrowth();
  if (o.home) makePrivate(o.home);
  const store = await Store.open({ dir: o.home ? path.join(o.home, STORE_FOLDER) : undefined, lock: o.lock });
  let ctx: EngineContext;
  let embedding: EmbeddingStatus;
  try {
    const [embedder, status] = await model;
    embedding = status ?? {
      available: embedder !== null,
      modelId: embedder?.modelId ?? 'none',
      source: null,
      reason: embedder ? null : 'no embedding model configured',
    };
    ctx = {
      store,
      embedder,
      llm: null,
      clock: o.clock ?? systemClock,
      // Settings saved in the app lie under the host's explicit options (tests, benchmarks, flags).
      config: await configAt(store, o.config ?? {}),
      warn: o.warn ?? (() => {}),
    };
    await attachLlm(ctx, o.llm, o.llmKeyFromHost);
    // What a crash or a second writer left wrong is put right before anything reads the indexes; a
    // database nothing touched since Nemori closed it cleanly has neither to show.
    if (!store.untouchedSinceClose) {
      const repair = await repairOnOpen(ctx);
      for (const line of repair.repaired) ctx.warn(`repaired: ${line}`);
      for (const line of repair.unrepaired) ctx.warn(`could not repair: ${line}`);
    }
    // The model's vector indexes, before any search needs them: an upgrade that changed their layout
    // dropped the old ones, and without them every vector search reads every vector.
    if (embedder) {
      const space = { modelId: embedder.modelId, dimensions: embedder.dimensions };
      await store.transaction(async (r) => {
        await r.vectors.ensureIndex(space);
        await r.factVectors.ensureIndex(space);
      });
    }
  } catch (e) {
    await store.close();
    throw e;
  }
  const discovery = discoveryJobs(ctx);
  const live = liveBuilding(ctx, discovery);
  const background = o.scheduleForgetting ?? false;
  const home = o.home;
  // The watched folder's imports run as calls of their own (announced, cancelled on close): a host's work.
  const own = createDispatcher({
    call: (name, input, opts) => engine.call(name, input as never, opts),
    emit: o.onEvent ?? (() => {}),
    log: (m, e) => ctx.warn(`${m}: ${e instanceof Error ? e.message : String(e)}`),
  });
  const watcher: FolderWatcher | null =
    background && home
      ? watchFolder({
          ctx,
          async importFiles(input) {
            const r = await own.dispatch('importFiles', input);
            if (!r.ok) throw new WireCallError(r.error);
            return r.value as OpOutput<'importFiles'>;
          },
        })
      : null;
  // Episodes older rules told are told again by today's, in the background of an engine that stays open.
  const retelling = background ? startRetelling(ctx) : null;
  const env = {
    ctx,
    retelling,
    embeddingStatus: embedding,
    discovery,
    live,
    background,
    explicitConfig: o.config ?? {},
    companionHome: o.companionHome === undefined ? home : o.companionHome,
    watcher,
    mcpAddress: () => {
      if (!home) return null;
      const read = readHolderFile(home);
      // Companions get the memory-only token: the person's opens files and settings too.
      return read.kind === 'ours' && read.holder.state === 'open' && read.holder.companionToken && sameFolder(read.holder.home, home)
        ? { port: read.holder.port, token: read.holder.companionToken }
        : null;
    },
  };
  const companions = companionAccess(env);
  // loadContext is made of other operations (validated input, no cancellation).
  const op: CallOp = (name, input) =>
    (h[name as Exclude<OperationName, 'cancelCall'>] as (i: unknown, o: CallOptions) => Promise<never>)(parseInput(name, input), {});
  // One group per area of the contract; the type makes a missing operation a compile error.
  const h: Omit<Handlers, 'cancelCall'> = {
    ...searchHandlers(env),
    ...importHandlers(env),
    ...exportHandlers(env),
    ...episodeHandlers(env),
    ...systemHandlers(env),
    ...forgettingHandlers(env),
    ...llmHandlers(env),
    ...knowledgeHandlers(env),
    ...startupHandlers(env),
    ...liveHandlers(env),
    ...loadContextHandlers(env, op),
    ...watchedFolderHandlers(env),
    ...companions.handlers,
  };
  const scheduler: ForgettingScheduler | null = o.scheduleForgetting ? startForgettingScheduler(ctx) : null;
  // Episodes that waited for an LLM (or were cut short when the app last closed) are read now.
  if (background && ctx.llm) for (const ownerId of await store.read.discoveryQueue.ownersWaiting()) discovery.kick(ownerId);
  // Live conversations whose turns were acknowledged but not (all) built when the last run ended: in the background.
  void live.recover();
  const warming = background
    ? warmUpLoadContext(ctx, op).catch((e: unknown) => ctx.warn(`warm-up: ${e instanceof Error ? e.message : String(e)}`))
    : null;
  const calls = cancellation();
  const engine: Engine = {
    context: ctx,
    embedding,
    async call(name, input, opts = {}) {
      const parsed = parseInput(name, input);
      if (name === 'cancelCall') {
        const { callId } = parsed as OpInput<'cancelCall'>;
        return { cancelled: calls.cancel(callId) } as OpOutput<typeof name>;
      }
      const call = calls.start(opts.callId, opts.signal);
      try {
        const handler = h[name as Exclude<OperationName, 'cancelCall'>] as (i: unknown, o: CallOptions) => Promise<unknown>;
        return operations[name].output.parse(await handler(parsed, { ...opts, signal: call.signal })) as OpOutput<typeof name>;
      } finally {
        call.done();
      }
    },
    idle: async () => {
      await warming;
      await live.idle();
    },
    async close() {
      // The watched folder starts nothing more; the import it may be running is cancelled with the other calls.
      const watching = watcher?.stop();
      calls.cancelAll();
      await watching;
      await warming;
      // Live building kicks discovery: it stops first.
      await live.stop();
      // A background pass finishes its current batch before the store goes away.
      await scheduler?.stop();
      await retelling?.stop();
      await discovery.stop();
      // Companions' last calls kept in memory (never worth failing a close for).
      await companions
        .flush()
        .catch((e: unknown) => ctx.warn(`cannot save the companions list: ${e instanceof Error ? e.message : String(e)}`));
      await ctx.embedder?.dispose();
      await store.close();
    },
  };
  // Its first look may import at once: only now can the engine run the call.
  watcher?.start();
  return engine;
}
