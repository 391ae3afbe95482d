import { z } from 'zod';

const capacityDefaults = { maxItems: 10_000, maxTokens: 1_000_000 };
const discoveryDefaults = { relatedFacts: 5, relatedEpisodes: 3, batch: 20, maxAttempts: 3, originalChars: 6000 };

/** Semantic memory settings: capacity and retention, de-duplication, relationships. */
export const FactsConfig = z.object({
  /** Capacity per person: beyond either limit the least valuable facts are evicted. */
  capacity: z
    .object({
      maxItems: z.number().int().positive().default(capacityDefaults.maxItems),
      maxTokens: z.number().int().positive().default(capacityDefaults.maxTokens),
    })
    .default(capacityDefaults),
  /** Facts at or above this importance are never evicted. */
  importanceHigh: z.number().min(0).max(1).default(0.7),
  /** Facts below this importance are evicted first. */
  importanceLow: z.number().min(0).max(1).default(0.3),
  /** A new fact this similar (cosine) to a stored one is the same fact, merged instead of stored twice. */
  duplicateThreshold: z.number().min(0).max(1).default(0.95),
  /** Co-discovered facts are related when the strength formula (core/facts/relationships.ts) gives more than this. */
  relationshipThreshold: z.number().min(0).max(1).default(0.3),
  /** Confidence a repeated fact gains, up to 1. */
  reinforcement: z.number().min(0).max(1).default(0.1),
  /** A corrected version keeps at most this confidence (the wrong old value is lowered). */
  correctedConfidence: z.number().min(0).max(1).default(0.1),
  discovery: z
    .object({
      /** Context discovery gathers for each episode. */
      relatedFacts: z.number().int().min(0).default(discoveryDefaults.relatedFacts),
      relatedEpisodes: z.number().int().min(0).default(discoveryDefaults.relatedEpisodes),
      /** Episodes taken from the queue per run step. */
      batch: z.number().int().positive().default(discoveryDefaults.batch),
      /** An episode whose discovery failed this often stays queued with its error until asked again. */
      maxAttempts: z.number().int().positive().default(discoveryDefaults.maxAttempts),
      /** The original messages shown to the model are cut to this many characters. */
      originalChars: z.number().int().positive().default(discoveryDefaults.originalChars),
    })
    .default(discoveryDefaults),
});
export type FactsConfig = z.infer<typeof FactsConfig>;
