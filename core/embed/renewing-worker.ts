/**
 * A model's thread that has embedded many texts in batches is replaced by a fresh one once it has been
 * idle for a while. The process keeps the memory of the biggest batches the thread ran (tensors of every
 * batch shape, freed but not given back) for as long as the thread lives: after an import's batches of
 * long passages, the test model's thread holds ~130 MB more than a freshly loaded one, and a fresh one
 * after it ~65 MB less. A new thread loads the model again (off the engine's thread) and the old one
 * ends, giving most of that back. Requests go to the old thread until the new one is ready, so nobody
 * waits for the load; a thread that only embedded one text at a time (a companion's queries and turns)
 * is kept.
 */
import type { ModelWorker } from './model-worker.js';

export interface RenewPolicy {
  /** Texts embedded in batches of more than one since the thread started. */
  readonly afterTexts: number;
  /** How long the thread must have had nothing to do. */
  readonly idleMs: number;
}

export const DEFAULT_RENEW_POLICY: RenewPolicy = { afterTexts: 1_000, idleMs: 15_000 };

/** Starts a model's thread; `onCrash` as in `startModelWorker`. */
export type LaunchWorker = (onCrash: () => void) => Promise<ModelWorker>;

/**
 * The first thread (rejecting as its load does), renewed by `policy`. `onCrash` is told when the thread
 * in use dies; a renewal that fails to load leaves the old thread in use and renewals off.
 */
export async function startRenewingWorker(
  launch: LaunchWorker,
  o: { onCrash: () => void; policy?: RenewPolicy | undefined },
): Promise<ModelWorker> {
  const policy = o.policy ?? DEFAULT_RENEW_POLICY;
  let current: ModelWorker;
  const start = async (): Promise<ModelWorker> => {
    // Told of a crash before the load returned, it is not the thread in use either.
    const self: { worker?: ModelWorker } = {};
    self.worker = await launch(() => {
      if (self.worker === current) o.onCrash();
    });
    return self.worker;
  };
  current = await start();

  /** Requests each thread is answering: a replaced thread ends once it has answered its last. */
  const pending = new Map<ModelWorker, number>();
  const retiring = new Set<ModelWorker>();
  let batched = 0;
  let timer: NodeJS.Timeout | undefined;
  let renewal: Promise<void> | undefined;
  let renewable = true;
  let ended = false;

  const retire = (w: ModelWorker) => {
    if ((pending.get(w) ?? 0) > 0) retiring.add(w);
    else void w.terminate();
  };
  const renew = () => {
    timer = undefined;
    if (ended || pending.size > 0) return;
    renewal = start()
      .then(
        (fresh) => {
          if (ended) return void fresh.terminate();
          const old = current;
          current = fresh;
          batched = 0;
          retire(old);
        },
        () => {
          renewable = false;
        },
      )
      .finally(() => {
        renewal = undefined;
      });
  };
  const whenIdle = () => {
    if (!renewable || ended || renewal || timer || pending.size > 0 || batched < policy.afterTexts) return;
    timer = setTimeout(renew, policy.idleMs);
    // A timer must not keep the process alive: a process with nothing else to do may end.
    timer.unref();
  };

  return {
    get dimensions() {
      return current.dimensions;
    },
    async embed(texts, batchSize) {
      clearTimeout(timer);
      timer = undefined;
      const w = current;
      if (texts.length > 1) batched += texts.length;
      pending.set(w, (pending.get(w) ?? 0) + 1);
      try {
        return await w.embed(texts, batchSize);
      } finally {
        const left = pending.get(w)! - 1;
        if (left > 0) pending.set(w, left);
        else {
          pending.delete(w);
          if (retiring.delete(w)) void w.terminate();
        }
        whenIdle();
      }
    },
    async terminate() {
      ended = true;
      clearTimeout(timer);
      await renewal;
      await Promise.all([current, ...retiring].map((w) => w.terminate()));
    },
  };
}
