import { z } from 'zod';

/**
 * How a memory kind ages. The decay score counts elapsed time in units of `decayUnitDays`, so a kind
 * with a unit ten times longer fades ten times more slowly; `importanceHalfLifeDays` is how fast its
 * importance relaxes towards the floor when nobody recalls it.
 */
export const KindDecay = z.object({
  decayUnitDays: z.number().positive(),
  importanceHalfLifeDays: z.number().positive(),
});
export type KindDecay = z.infer<typeof KindDecay>;

const episodeDecay: KindDecay = { decayUnitDays: 7, importanceHalfLifeDays: 180 };
// Facts distilled from many episodes (semantic memory) outlive the episodes they came from.
const semanticDecay: KindDecay = { decayUnitDays: 70, importanceHalfLifeDays: 1800 };

const importanceDefaults = { recallBoostMax: 0.3, recallBoostScale: 5, fadeFloor: 0.5, notImportant: 0.05, writeEpsilon: 0.005 };
const scheduleDefaults = { everyHours: 24, firstCheckMinutes: 2 };

/**
 * Forgetting settings (decay score and tiers, importance dynamics, version
 * retention). The defaults are chosen so forgetting is soft: a memory of ordinary importance nobody
 * recalls leaves vector search after about eight months and reaches the trash after about two years;
 * trivia (importance 0.1) is archived after about two months and purged within a year; anything the
 * person marked important is never touched. See core/forgetting/decay.ts for the formula.
 */
export const ForgettingConfig = z.object({
  /** Off: passes compute and report, but move nothing (a dry run every time). */
  enabled: z.boolean().default(true),
  /** Decay score thresholds: above `archive` → archived, above `trash` → trash. */
  thresholds: z
    .object({ archive: z.number().positive().default(100), trash: z.number().positive().default(500) })
    .refine((t) => t.trash > t.archive, 'the trash threshold must be above the archive threshold')
    .default({ archive: 100, trash: 500 }),
  /** Days a memory stays in the trash (restorable) before a pass purges it for good. */
  trashRetentionDays: z.number().nonnegative().default(30),
  /** The decay formula's `user_marked_important × 10`: the weight of the person's mark in the denominator. */
  markedImportantWeight: z.number().nonnegative().default(10),
  kinds: z
    .object({
      episode: KindDecay.default(episodeDecay),
      semantic: KindDecay.default(semanticDecay),
    })
    .default({ episode: episodeDecay, semantic: semanticDecay }),
  /** Importance dynamics: recall raises importance, time lowers it, the person's mark wins. */
  importance: z
    .object({
      /** The most that recall can add, as a share of the way from the base importance up to 1. */
      recallBoostMax: z.number().min(0).max(1).default(importanceDefaults.recallBoostMax),
      /** Recalls at which the boost reaches 63 % of its maximum (1 − 1/e). */
      recallBoostScale: z.number().positive().default(importanceDefaults.recallBoostScale),
      /** Time never lowers importance below this share of its boosted value. */
      fadeFloor: z.number().min(0).max(1).default(importanceDefaults.fadeFloor),
      /** Importance of a memory the person marked not important. */
      notImportant: z.number().min(0.001).max(1).default(importanceDefaults.notImportant),
      /** A pass writes a memory's new importance only when it moved at least this much. */
      writeEpsilon: z.number().min(0).default(importanceDefaults.writeEpsilon),
    })
    .default(importanceDefaults),
  /** The engine's background pass (only when the host asks for it: the desktop app, not tests or CLI one-shots). */
  schedule: z
    .object({
      everyHours: z.number().positive().default(scheduleDefaults.everyHours),
      /** The first check waits this long after the engine opens, so start-up stays quick. */
      firstCheckMinutes: z.number().nonnegative().default(scheduleDefaults.firstCheckMinutes),
    })
    .default(scheduleDefaults),
  /**
   * Version retention: how many versions of a semantic node's history are kept; older ones are
   * dropped when a new version is written (core/facts/learn.ts).
   */
  semanticMaxVersions: z.number().int().positive().default(20),
  /**
   * On purge, the source messages of a purged memory keep only their import key (so re-importing the
   * same export does not bring the memory back) and lose their text. Off keeps the raw text.
   */
  redactSourceMessages: z.boolean().default(true),
});
export type ForgettingConfig = z.infer<typeof ForgettingConfig>;
export const defaultForgettingConfig: ForgettingConfig = ForgettingConfig.parse({});
