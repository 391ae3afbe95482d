import { setTimeout } from 'node:timers/promises';
import type { EngineContext } from '../context/engine-context.js';
import { retellEpisodes } from '../episodes/retell.js';
import { scrubWithNewRules } from '../forgetting/secrets.js';

export interface Retelling {
  /** Stops between two batches and waits for the one being written. */
  stop(): Promise<void>;
}

/**
 * Telling older episodes again (core/episodes/retell.ts) as a background job of an engine that stays
 * open (the app, the holder a companion reaches): once, a while after it opens
 * (`segment.retellAfterSeconds`), owner after owner, so a person who updates Nemori sees today's titles
 * in the journal and search without running anything. First, when the privacy rules changed since the
 * memory was last filtered, the secrets older rules let through are taken out (core/forgetting/secrets.ts).
 * Each batch is its own transaction and the job yields between batches: calls made meanwhile wait for
 * one batch at most.
 */
export function startRetelling(ctx: EngineContext): Retelling {
  const abort = new AbortController();
  const done = (async () => {
    await setTimeout(ctx.config.segment.retellAfterSeconds * 1000, undefined, { signal: abort.signal, ref: false }).catch(() => {});
    if (abort.signal.aborted || !ctx.store.isOpen) return;
    try {
      await scrubWithNewRules(ctx, { signal: abort.signal });
    } catch (e) {
      if (abort.signal.aborted) return;
      ctx.warn(`filtering stored memory with today's privacy rules failed: ${(e as Error).message}`);
    }
    for (const ownerId of await ctx.store.read.episodes.owners()) {
      if (abort.signal.aborted || !ctx.store.isOpen) return;
      try {
        await retellEpisodes(ctx, ownerId, { signal: abort.signal });
      } catch (e) {
        if (abort.signal.aborted) return;
        ctx.warn(`telling ${ownerId}'s older episodes again failed: ${(e as Error).message}`);
      }
    }
  })().catch((e: unknown) => ctx.warn(`telling older episodes again failed: ${(e as Error).message}`));
  return {
    async stop() {
      abort.abort();
      await done;
    },
  };
}
