/**
 * Running calls by the id their caller gave them, so another call can stop one. Long work (imports,
 * discovery, rebuilds) checks its signal between committed steps; closing the engine stops them all.
 */
export interface Cancellation {
  /**
   * A signal for one call, registered under `callId` (when it has one) until `done`; the caller's own
   * `signal` (a command line stopped by SIGTERM) aborts it too.
   */
  start(callId: string | undefined, signal?: AbortSignal): { signal: AbortSignal; done(): void };
  /** Aborts the call with this id; false when no such call is running. */
  cancel(callId: string): boolean;
  cancelAll(): void;
}

export function cancellation(): Cancellation {
  const running = new Map<string, AbortController>();
  return {
    start(callId, signal) {
      const controller = new AbortController();
      const follow = () => controller.abort();
      if (signal?.aborted) controller.abort();
      else signal?.addEventListener('abort', follow, { once: true });
      if (callId) running.set(callId, controller);
      return {
        signal: controller.signal,
        done: () => {
          signal?.removeEventListener('abort', follow);
          if (callId && running.get(callId) === controller) running.delete(callId);
        },
      };
    },
    cancel(callId) {
      const c = running.get(callId);
      c?.abort();
      return c !== undefined;
    },
    cancelAll() {
      for (const c of running.values()) c.abort();
    },
  };
}
