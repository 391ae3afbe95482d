/**
 * Closing resources on the way out. PGlite neither locks nor fsyncs its data directory, so the
 * engine's `close()` must run on every exit path; `index.ts` calls `run()` from `before-quit`,
 * `will-quit` and SIGINT/SIGTERM, and holds the quit until it settles.
 *
 * Pure (no electron import) so the ordering, once-only and timeout behaviour can be tested in Node.
 */

export type Closer = () => void | Promise<void>;

export interface Shutdown {
  /** Registers a resource to close. Closers run in reverse registration order (last opened, first closed). */
  add(name: string, close: Closer): void;
  /** Runs every closer once; later calls return the same promise. Never rejects. */
  run(): Promise<void>;
  readonly state: 'running' | 'closing' | 'closed';
}

export interface ShutdownOptions {
  /** Per-closer limit, so a hung resource cannot keep the app from quitting. */
  timeoutMs?: number;
  onError?: (name: string, error: unknown) => void;
}

export function createShutdown(options: ShutdownOptions = {}): Shutdown {
  const { timeoutMs = 10_000, onError = () => {} } = options;
  const closers: { name: string; close: Closer }[] = [];
  let state: Shutdown['state'] = 'running';
  let done: Promise<void> | null = null;

  async function closeOne(name: string, close: Closer): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${name} did not close within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([Promise.resolve().then(close), timeout]);
    } catch (error) {
      onError(name, error);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    add(name, close) {
      if (state !== 'running') throw new Error(`Cannot register "${name}": shutdown has already started.`);
      closers.push({ name, close });
    },
    run() {
      done ??= (async () => {
        state = 'closing';
        for (const { name, close } of [...closers].reverse()) await closeOne(name, close);
        state = 'closed';
      })();
      return done;
    },
    get state() {
      return state;
    },
  };
}
