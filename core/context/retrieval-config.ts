import { z } from 'zod';

/**
 * Retrieval tuning; every number here is a setting, with the defaults the benchmarks were run with.
 * k1, b and the field weights shape the stored BM25 impacts: after changing them, rebuild the indexes.
 */
export const RetrievalConfig = z.object({
  bm25: z
    .object({
      k1: z.number().positive().default(1.2),
      b: z.number().min(0).max(1).default(0.75),
      /** Field weights: title, summary, entities, topics, content. */
      weights: z.tuple([z.number(), z.number(), z.number(), z.number(), z.number()]).default([3, 2, 2, 2, 1]),
      /** Postings read per query term, strongest first (see core/store/bm25.ts). */
      postingsPerTerm: z.number().int().positive().default(1000),
    })
    .default({ k1: 1.2, b: 0.75, weights: [3, 2, 2, 2, 1], postingsPerTerm: 1000 }),
  fusion: z.enum(['weighted', 'rrf']).default('weighted'),
  /** Weighted fusion: score = α · semantic + (1 − α) · keyword. */
  alpha: z.number().min(0).max(1).default(0.7),
  rrfK: z.number().positive().default(60),
  /** Each mode contributes this many candidates per result asked for (at least `minCandidates`). */
  candidateFactor: z.number().int().positive().default(4),
  minCandidates: z.number().int().positive().default(40),
});
export type RetrievalConfig = z.infer<typeof RetrievalConfig>;
export const defaultRetrievalConfig: RetrievalConfig = RetrievalConfig.parse({});
