import { z } from 'zod';

/** What learning a fact did: a new fact, a new version (update or correction), the same value again, or a merge. */
export const LearnAction = z.enum(['created', 'evolved', 'corrected', 'reinforced', 'merged']);
export type LearnAction = z.infer<typeof LearnAction>;

/** A fact removed to stay within capacity, reported in the reply of the write that caused it. */
export const Eviction = z.object({ id: z.string(), key: z.string(), importance: z.number(), reason: z.string() });
export type Eviction = z.infer<typeof Eviction>;

/** One discovery run over an owner's waiting episodes. */
export const DiscoveryRun = z.object({
  /** Episodes read for knowledge in this run. */
  episodes: z.number().int(),
  facts: z.object({
    created: z.number().int(),
    evolved: z.number().int(),
    corrected: z.number().int(),
    reinforced: z.number().int(),
    merged: z.number().int(),
  }),
  relationships: z.number().int(),
  evicted: z.array(Eviction),
  failed: z.number().int(),
  /** Episodes still waiting (including failed ones that will be tried again). */
  remaining: z.number().int(),
  llmCalls: z.number().int(),
  /** The endpoint stopped answering (or the run was cancelled): the rest waits for the next run. */
  stoppedEarly: z.boolean(),
  /** Why nothing ran, when nothing could (no LLM configured). */
  skipped: z.string().nullable(),
  errors: z.array(z.string()),
});
export type DiscoveryRun = z.infer<typeof DiscoveryRun>;
