import type { EngineContext } from '../context/engine-context.js';
import { runDiscovery } from '../facts/discovery.js';
import type { DiscoveryRun } from '../facts/reports.js';

type RunOptions = Parameters<typeof runDiscovery>[2];

/**
 * Discovery as a background job: one run at a time per owner (two runs would read the same queue),
 * kicked after new episodes are stored, awaited by explicit runs and by close. Off the UI thread
 * already (the engine runs in a utility process), so the only thing it must not do is block the calls
 * the person makes meanwhile: each step awaits the database and the LLM, leaving the event loop free.
 */
export interface DiscoveryJobs {
  /** Starts a run in the background if the owner has none going; failures become warnings. */
  kick(ownerId: string): void;
  /** Runs after whatever is going for the owner, and returns this run's result. */
  run(ownerId: string, o?: RunOptions): Promise<DiscoveryRun>;
  /** Cancels what is running and waits for it to stop. */
  stop(): Promise<void>;
}

export function discoveryJobs(ctx: EngineContext): DiscoveryJobs {
  const chains = new Map<string, Promise<unknown>>();
  const pending = new Set<string>();
  const abort = new AbortController();
  const enqueue = <T>(ownerId: string, step: () => Promise<T>): Promise<T> => {
    const next = (chains.get(ownerId) ?? Promise.resolve()).catch(() => {}).then(step);
    chains.set(ownerId, next);
    void next
      .finally(() => {
        if (chains.get(ownerId) === next) chains.delete(ownerId);
      })
      .catch(() => {});
    return next;
  };
  return {
    kick(ownerId) {
      if (!ctx.llm || pending.has(ownerId) || abort.signal.aborted) return;
      pending.add(ownerId);
      void enqueue(ownerId, async () => {
        pending.delete(ownerId);
        if (!ctx.store.isOpen) return;
        await runDiscovery(ctx, ownerId, { signal: abort.signal });
      }).catch((e: unknown) => ctx.warn(`knowledge discovery stopped: ${(e as Error).message}`));
    },
    run(ownerId, o) {
      const signal = o?.signal ? AbortSignal.any([o.signal, abort.signal]) : abort.signal;
      return enqueue(ownerId, () => runDiscovery(ctx, ownerId, { ...o, signal }));
    },
    async stop() {
      abort.abort();
      await Promise.allSettled([...chains.values()]);
    },
  };
}
