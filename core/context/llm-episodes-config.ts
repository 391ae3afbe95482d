import { z } from 'zod';

/** How the LLM episode builder batches its work (boundary detection and narrative). */
export const LlmEpisodeConfig = z.object({
  /**
   * Boundary detection looks at up to this many messages per request and answers with the indexes
   * where episodes start, so a 1,000-message import costs tens of boundary calls, not a thousand.
   * It is also the largest episode the LLM can make.
   */
  boundaryWindow: z.number().int().min(2).max(200).default(40),
  /** … and at most this many characters of (shortened) message text per request, for small context windows. */
  boundaryWindowChars: z.number().int().positive().default(12_000),
  /** Each message is shortened to this many characters in boundary prompts: enough to judge its topic. */
  boundaryMessageChars: z.number().int().positive().default(400),
  /** A silence longer than this always separates episodes, without asking. */
  hardGapMinutes: z
    .number()
    .positive()
    .default(6 * 60),
  /** Each message is shortened to this many characters in narrative prompts. */
  narrativeMessageChars: z.number().int().positive().default(2_000),
  /** Episodes stored per transaction during an import: progress survives a crash, nothing is half-stored. */
  groupEpisodes: z.number().int().positive().default(8),
  /** `rebuildEpisodes` upgrades runs of at most this many messages at a time, each in one transaction. */
  rebuildGroupMessages: z.number().int().positive().default(160),
});
export type LlmEpisodeConfig = z.infer<typeof LlmEpisodeConfig>;
