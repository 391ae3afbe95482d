import type { EngineContext } from '../context/engine-context.js';
import { runForgetting, type ForgettingReport } from '../forgetting/run.js';

export interface ForgettingScheduler {
  /** Runs a pass now for every owner whose last pass is older than the interval (what the timer does). */
  runDue(): Promise<ForgettingReport[]>;
  /** Stops the timer and waits for a pass in progress to reach the end of its current batch. */
  stop(): Promise<void>;
}

const HOUR_MS = 3_600_000;

/**
 * The engine's background forgetting job: a plain timer, owned by the engine and stopped when it
 * closes. It wakes up at most hourly and runs a pass for each owner whose last pass (recorded in the
 * store, so a restart does not reset it) is at least `schedule.everyHours` old by the engine clock.
 * The timer is unref'd: it never keeps a process alive on its own.
 */
export function startForgettingScheduler(ctx: EngineContext): ForgettingScheduler {
  const { everyHours, firstCheckMinutes } = ctx.config.forgetting.schedule;
  const abort = new AbortController();
  let timer: NodeJS.Timeout | null = null;
  let current: Promise<unknown> = Promise.resolve();

  async function runDue(): Promise<ForgettingReport[]> {
    const reports: ForgettingReport[] = [];
    for (const ownerId of await ctx.store.read.episodes.owners()) {
      if (abort.signal.aborted) break;
      const last = await ctx.store.read.forgetting.lastRun(ownerId);
      const now = ctx.clock.now();
      if (last && now.getTime() - last.getTime() < everyHours * HOUR_MS) continue;
      try {
        reports.push(await runForgetting(ctx, ownerId, { now, signal: abort.signal }));
      } catch (e) {
        ctx.warn(`the forgetting pass for ${ownerId} failed: ${(e as Error).message}`);
      }
    }
    return reports;
  }

  function schedule(ms: number): void {
    if (abort.signal.aborted) return;
    // setTimeout takes a signed 32-bit delay (about 24.8 days); a longer one would fire at once.
    timer = setTimeout(
      () => {
        current = runDue()
          .catch((e: unknown) => ctx.warn(`the forgetting job failed: ${(e as Error).message}`))
          .finally(() => schedule(Math.min(everyHours * HOUR_MS, HOUR_MS)));
      },
      Math.min(ms, 2 ** 31 - 1),
    );
    timer.unref();
  }
  schedule(firstCheckMinutes * 60_000);

  return {
    runDue() {
      const run = runDue();
      current = run.catch(() => {});
      return run;
    },
    async stop() {
      abort.abort();
      if (timer) clearTimeout(timer);
      await current.catch(() => {});
    },
  };
}
