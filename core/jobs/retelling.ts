import { setTimeout } from 'node:timers/promises';
import type { EngineContext } from '../context/engine-context.js';
import { retellEpisodes } from '../episodes/retell.js';
import { filterBackupsAfter, sealedBackupsWarning } from '../forgetting/backup-secrets.js';
import { scrubWithNewRules } from '../forgetting/secrets.js';

export interface Retelling {
  /** The privacy rules changed: stored memory is filtered again with them, after the work under way. */
  rulesChanged(): void;
  /** Stops between two batches and waits for the one being written. */
  stop(): Promise<void>;
}

/**
 * Telling older episodes again (core/episodes/retell.ts) as a background job of an engine that stays
 * open (the app, the holder a companion reaches): once, a while after it opens
 * (`segment.retellAfterSeconds`), owner after owner, so a person who updates Nemori sees today's titles
 * in the journal and search without running anything. First, when the privacy rules changed since the
 * memory was last filtered, the secrets older rules let through are taken out (core/forgetting/secrets.ts),
 * then out of the backups made before (core/forgetting/backup-secrets.ts); a change of the settings runs
 * the same pass at once. Each batch is its own transaction and the job yields between batches: calls
 * made meanwhile wait for one batch at most.
 */
export function startRetelling(ctx: EngineContext): Retelling {
  const abort = new AbortController();
  const going = () => !abort.signal.aborted && ctx.store.isOpen;
  const scrub = async () => {
    if (!going()) return;
    const started = new Date();
    const found = await scrubWithNewRules(ctx, { signal: abort.signal }).catch((e: unknown) => {
      if (!abort.signal.aborted) ctx.warn(`filtering stored memory with today's privacy rules failed: ${(e as Error).message}`);
      return null;
    });
    if (!going()) return;
    const backups = await filterBackupsAfter(ctx, found?.secrets ?? 0, started, { signal: abort.signal }).catch((e: unknown) => {
      if (!abort.signal.aborted) ctx.warn(`filtering backups with today's privacy rules failed: ${(e as Error).message}`);
      return null;
    });
    if (backups && backups.sealed > 0) ctx.warn(sealedBackupsWarning(backups.sealed));
  };
  const retell = async () => {
    for (const ownerId of going() ? await ctx.store.read.episodes.owners() : []) {
      if (!going()) return;
      await retellEpisodes(ctx, ownerId, { signal: abort.signal }).catch((e: unknown) => {
        if (!abort.signal.aborted) ctx.warn(`telling ${ownerId}'s older episodes again failed: ${(e as Error).message}`);
      });
    }
  };
  // One pass after another: a change of the rules while the first pass waits is acted on at once.
  let work: Promise<void> = Promise.resolve();
  const then = (pass: () => Promise<void>) =>
    (work = work.then(pass).catch((e: unknown) => ctx.warn(`bringing stored memory up to today's rules failed: ${(e as Error).message}`)));
  // Filtered episodes the heuristic told are told again from their filtered messages.
  const pass = async () => {
    await scrub();
    await retell();
  };
  const first = setTimeout(ctx.config.segment.retellAfterSeconds * 1000, undefined, { signal: abort.signal, ref: false })
    .then(() => then(pass))
    .catch(() => {});
  return {
    rulesChanged() {
      void then(pass);
    },
    async stop() {
      abort.abort();
      await first;
      await work;
    },
  };
}
