import { z } from 'zod';

/** How conversations are cut into episodes when no LLM decides (degraded mode). */
export const SegmentConfig = z.object({
  /** A silence longer than this always ends an episode. */
  maxGapMinutes: z.number().positive().default(30),
  /**
   * Size cap, mainly by words so an episode is a human-scale scene whatever the chat style: ~8 turns of
   * a long-message conversation, ~20 of quick chat lines. (LoCoMo dev: 200 words gave the best recall
   * across budgets of 150–350 tried.)
   */
  maxMessages: z.number().int().positive().default(20),
  maxWords: z.number().int().positive().default(200),
  /**
   * Without an LLM, a conversation's new messages are built this many at a time, each window committed
   * before the next (the last episode of one is rebuilt with the next when they continue): a crash or a
   * cancel while a long chat is built costs one window, and memory holds one window's work. Each
   * window rewrites the index rows of every term it holds, so fewer, bigger windows import faster
   * (10 MB Telegram, no model: 2,500 takes ~6 % less CPU than 1,000, 5,000 ~13 % less). 5,000 against
   * 2,500, no model: a 200 MB Telegram export 4,035 against 3,802 messages/s at a peak of 421 against
   * 388 MB; a 200 MB WhatsApp file peaked at 413 MB.
   */
  buildWindow: z.number().int().positive().default(5000),
  /** Topic-shift cuts never leave an episode smaller than this. */
  minMessages: z.number().int().positive().default(4),
  /** Messages on each side of a candidate cut whose mean vectors are compared. */
  window: z.number().int().positive().default(3),
  /**
   * A cut is made where the similarity dip is deeper than mean − depthFactor · stddev of all dips in the
   * block (TextTiling's cut-off), so the threshold adapts to each conversation and each model.
   */
  depthFactor: z.number().default(0.5),
  /**
   * Live memory (`addMemory`): a conversation's open tail is closed into episodes after this long without
   * a turn, by the engine clock.
   */
  idleMinutes: z.number().positive().default(30),
  /**
   * An engine that stays open tells the episodes older rules told again (core/jobs/retelling.ts) this
   * long after it opens, so its start-up and a companion's first calls do not share the database with it.
   */
  retellAfterSeconds: z.number().nonnegative().default(60),
});
export type SegmentConfig = z.infer<typeof SegmentConfig>;
export const defaultSegmentConfig: SegmentConfig = SegmentConfig.parse({});
