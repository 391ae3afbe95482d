import type { EngineContext } from '../context/engine-context.js';
import { rebuildTail } from '../episodes/live.js';
import type { Llm } from '../llm/llm.js';
import type { DiscoveryJobs } from './discovery-runner.js';

/**
 * Live memory's background job (core/episodes/live.ts builds the tails): `addMemory` stores the turns and
 * returns; the conversation's open tail is rebuilt here, behind it. One rebuild per conversation at a
 * time (never two builders on one tail), requests that arrive meanwhile coalesce into one more rebuild,
 * and at most `concurrency` conversations are built at once. A rebuild waits until the conversation has
 * been quiet for `settleMs` (at most `maxWaitMs` after the first turn it covers): the store is one
 * thread, so rebuilding after every turn of a burst would make each acknowledgement wait for the last
 * rebuild; `idle()` runs what waits at once. A tail without a turn for the segment
 * config's `idleMinutes` (by the engine clock) is closed; a timer checks every minute or so, and `idle()`
 * checks before it waits, so a test that moves its clock forward sees the close without sleeping.
 * Closing the engine aborts the LLM calls in flight and waits for the running rebuilds, which write
 * nothing once aborted: their turns are stored and pending, and the next open picks them up (`recover`).
 */
export interface LiveBuilding {
  /** Turns of the conversation were committed: rebuild its tail (and close all of it with `close`). */
  turnsAdded(ownerId: string, conversationId: string, close: boolean): void;
  /** Closes the conversation's tail (`endConversation`). */
  close(ownerId: string, conversationId: string): void;
  /** Closes every tail idle for longer than the timeout by the engine clock (what the timer does). */
  closeIdle(): void;
  /** Picks up the open tails in the store (turns a killed process acknowledged but never built). */
  recover(): Promise<void>;
  /** Resolves when nothing is queued or running, after closing the tails that are idle by the clock. */
  idle(): Promise<void>;
  /**
   * Runs `work` with no tail rebuild running and none starting until it is done, one such work at a
   * time: work that builds episodes from pending messages (a rebuild, `ingestConversation`) would
   * otherwise build a live tail's turns beside its rebuild, and the later of the two relink messages
   * the other had stored (an open episode left with none).
   */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  /** Aborts and waits for the running rebuilds; nothing starts afterwards. */
  stop(): Promise<void>;
}

interface Job {
  ownerId: string;
  conversationId: string;
  close: boolean;
  /** When it may start (performance.now() ms): after the conversation settles, or at once. */
  notBefore: number;
  /** The latest it may wait until, from the first request it covers. */
  deadline: number;
}

/** The LLM with every request tied to the job's signal, so closing the engine does not wait for a reply. */
function withSignal(llm: Llm, signal: AbortSignal): Llm {
  return {
    get model() {
      return llm.model;
    },
    complete: ((req: Parameters<Llm['complete']>[0]) =>
      llm.complete({ ...req, signal: req.signal ? AbortSignal.any([req.signal, signal]) : signal } as never)) as Llm['complete'],
    testConnection: (o) => llm.testConnection(o),
    describe: () => llm.describe(),
  };
}

export function liveBuilding(
  ctx: EngineContext,
  discovery: DiscoveryJobs,
  o: { concurrency?: number; settleMs?: number; maxWaitMs?: number } = {},
): LiveBuilding {
  const concurrency = o.concurrency ?? 2;
  const settleMs = o.settleMs ?? 1_000;
  const maxWaitMs = o.maxWaitMs ?? 10_000;
  /** Set while `idle()` waits: what is waiting to settle runs now. */
  let flushing = false;
  let wake: NodeJS.Timeout | null = null;
  const abort = new AbortController();
  /** Open tails and when their last turn arrived (engine clock, ms). */
  const tails = new Map<string, { ownerId: string; conversationId: string; lastTurnAt: number }>();
  const queue = new Map<string, Job>();
  const running = new Map<string, Promise<void>>();
  let recovering: Promise<void> = Promise.resolve();
  /** Exclusive work under way (rebuilds wait), and the chain that runs such work one at a time. */
  let excluding = 0;
  let exclusiveChain: Promise<unknown> = Promise.resolve();
  const keyOf = (ownerId: string, conversationId: string) => `${ownerId}\u0000${conversationId}`;
  const idleMs = () => ctx.config.segment.idleMinutes * 60_000;

  async function run(job: Job): Promise<void> {
    if (abort.signal.aborted || !ctx.store.isOpen) return;
    try {
      const jobCtx: EngineContext = { ...ctx, llm: ctx.llm && withSignal(ctx.llm, abort.signal) };
      const r = await rebuildTail(jobCtx, job.ownerId, job.conversationId, { close: job.close, signal: abort.signal });
      if (r.closed > 0) discovery.kick(job.ownerId);
    } catch (e) {
      if (abort.signal.aborted) return;
      ctx.warn(`live memory: building conversation ${job.conversationId} failed: ${(e as Error).message}`);
      // The turns are stored: the tail stays known, so the idle timeout (or the next turn) tries again.
      const key = keyOf(job.ownerId, job.conversationId);
      if (!tails.has(key))
        tails.set(key, { ownerId: job.ownerId, conversationId: job.conversationId, lastTurnAt: ctx.clock.now().getTime() });
    }
  }

  function pump(): void {
    if (excluding > 0) return;
    const now = performance.now();
    let next = Infinity;
    for (const [key, job] of queue) {
      if (running.size >= concurrency) return;
      if (running.has(key)) continue;
      const due = Math.min(job.notBefore, job.deadline);
      if (!flushing && due > now) {
        next = Math.min(next, due);
        continue;
      }
      queue.delete(key);
      const p = run(job).finally(() => {
        running.delete(key);
        pump();
      });
      running.set(key, p);
    }
    if (next < Infinity && !abort.signal.aborted) {
      if (wake) clearTimeout(wake);
      wake = setTimeout(() => {
        wake = null;
        pump();
      }, next - now);
      wake.unref();
    }
  }

  /** `settle`: wait for the conversation to go quiet first (new turns); closes start at once. */
  function request(ownerId: string, conversationId: string, close: boolean, settle = false): void {
    if (abort.signal.aborted) return;
    const key = keyOf(ownerId, conversationId);
    const now = performance.now();
    const notBefore = settle && !close ? now + settleMs : now;
    const queued = queue.get(key);
    if (queued) {
      queued.close ||= close;
      queued.notBefore = queued.close ? now : notBefore;
    } else queue.set(key, { ownerId, conversationId, close, notBefore, deadline: now + maxWaitMs });
    pump();
  }

  function closeIdle(): void {
    const now = ctx.clock.now().getTime();
    for (const [key, t] of tails) {
      if (now - t.lastTurnAt < idleMs()) continue;
      tails.delete(key);
      request(t.ownerId, t.conversationId, true);
    }
  }

  // setInterval takes a signed 32-bit delay; unref'd, it never keeps a process alive on its own.
  const timer = setInterval(closeIdle, Math.max(1_000, Math.min(idleMs() / 2, 60_000)));
  timer.unref();

  return {
    turnsAdded(ownerId, conversationId, close) {
      const key = keyOf(ownerId, conversationId);
      if (close) tails.delete(key);
      else tails.set(key, { ownerId, conversationId, lastTurnAt: ctx.clock.now().getTime() });
      request(ownerId, conversationId, close, true);
    },
    close(ownerId, conversationId) {
      tails.delete(keyOf(ownerId, conversationId));
      request(ownerId, conversationId, true);
    },
    closeIdle,
    recover() {
      recovering = (async () => {
        for (const t of await ctx.store.read.conversations.liveTails()) {
          if (abort.signal.aborted) return;
          const key = keyOf(t.ownerId, t.conversationId);
          if (!tails.has(key)) tails.set(key, { ...t, lastTurnAt: t.lastTurnAt.getTime() });
          request(t.ownerId, t.conversationId, false);
        }
        closeIdle();
      })().catch((e: unknown) => {
        if (!abort.signal.aborted) ctx.warn(`live memory: picking up open conversations failed: ${(e as Error).message}`);
      });
      return recovering;
    },
    async idle() {
      await recovering;
      closeIdle();
      flushing = true;
      try {
        pump();
        while (running.size > 0 || queue.size > 0) {
          // Exclusive work holds the queue: what waits starts after it.
          if (running.size === 0) await exclusiveChain;
          pump();
          await Promise.allSettled([...running.values()]);
        }
      } finally {
        flushing = false;
      }
    },
    exclusive(work) {
      const run = exclusiveChain.then(async () => {
        excluding++;
        try {
          while (running.size > 0) await Promise.allSettled([...running.values()]);
          return await work();
        } finally {
          excluding--;
          pump();
        }
      });
      exclusiveChain = run.catch(() => {});
      return run;
    },
    async stop() {
      abort.abort();
      clearInterval(timer);
      if (wake) clearTimeout(wake);
      queue.clear();
      await recovering;
      await Promise.allSettled([...running.values()]);
    },
  };
}
