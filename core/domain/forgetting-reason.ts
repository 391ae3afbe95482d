import { z } from 'zod';

/**
 * Why a memory moved between tiers, as data rather than a sentence: the engine decides,
 * whoever shows it puts it into words — the CLI in English (core/forgetting/reason-text.ts), the app
 * in the reader's language. Stored as JSON in the `tier_reason` column of episodes and facts.
 */

const ArchiveOrTrash = z.enum(['archive', 'trash']);

/** Which of the forget instructions the person gave (`nemori knowledge forget …`). */
export const ForgetRequest = z.discriminatedUnion('by', [
  z.object({ by: z.literal('key'), key: z.string() }),
  z.object({ by: z.literal('oldest') }),
  z.object({ by: z.literal('leastImportant') }),
  /** Everything learnt before this instant (ISO 8601). */
  z.object({ by: z.literal('before'), before: z.string() }),
]);
export type ForgetRequest = z.infer<typeof ForgetRequest>;

export const ForgettingReason = z.discriminatedUnion('kind', [
  /** The decay score reached a threshold (`limit`), with every input that made the score. */
  z.object({
    kind: z.literal('decay'),
    threshold: ArchiveOrTrash,
    limit: z.number(),
    score: z.number(),
    /** Whole days since the memory was last recalled (or created, or brought back). */
    days: z.number().int().nonnegative(),
    importance: z.number(),
    recalls: z.number().int().nonnegative(),
  }),
  /** An archived memory's score fell back under the archive threshold: recalled again, or the settings changed. */
  z.object({ kind: z.literal('recovered'), score: z.number(), limit: z.number() }),
  /** In the trash longer than its retention period. */
  z.object({ kind: z.literal('retention'), days: z.number().int().nonnegative(), retentionDays: z.number() }),
  /** The person marked it important: exempt from forgetting. */
  z.object({ kind: z.literal('important') }),
  z.object({ kind: z.literal('restored'), from: ArchiveOrTrash }),
  z.object({ kind: z.literal('emptied') }),
  /** The person told the engine to forget it (a soft forget: to the trash). */
  z.object({ kind: z.literal('forgotten'), request: ForgetRequest }),
  /** A reason stored before reasons were data: an English sentence, shown as it is. */
  z.object({ kind: z.literal('text'), text: z.string() }),
]);
export type ForgettingReason = z.infer<typeof ForgettingReason>;

export const serializeReason = (reason: ForgettingReason): string => JSON.stringify(reason);

/** Reads a stored reason; anything that is not one (an old English sentence, say) becomes `text`. */
export function parseReason(stored: string | null): ForgettingReason | null {
  if (stored === null) return null;
  let json: unknown;
  try {
    json = JSON.parse(stored);
  } catch {
    return { kind: 'text', text: stored };
  }
  const parsed = ForgettingReason.safeParse(json);
  return parsed.success ? parsed.data : { kind: 'text', text: stored };
}
