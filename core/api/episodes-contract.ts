import { z } from 'zod';
import { EpisodeDraft, EpisodePatch } from '../domain/episode.js';
import { EpisodeView, MessageView } from './views.js';
import { DateInput, EpisodeFilterInput, Owner } from './search-contract.js';

/** Episodes: read, list, write by hand, and rebuild their indexes. */

export const OwnerInput = z.object({ ownerId: Owner });
export const EpisodeIdInput = z.object({ ownerId: Owner, id: z.string().uuid('not an episode id') });

export const EpisodeDetail = z.object({ episode: EpisodeView, messages: z.array(MessageView) });

export const ListEpisodesInput = EpisodeFilterInput.extend({
  ownerId: Owner,
  limit: z.number().int().min(1).max(1000).default(50),
  /** Opaque cursor from the previous page's `nextCursor`. */
  cursor: z.string().optional(),
});
export const ListEpisodesOutput = z.object({ episodes: z.array(EpisodeView), nextCursor: z.string().nullable() });

export const CreateEpisodeInput = z.object({
  ownerId: Owner,
  episode: EpisodeDraft.omit({ temporal: true, builder: true, processingVersion: true, processingStatus: true }).extend({
    start: DateInput,
    end: DateInput.optional(),
    utcOffsetMin: z.number().int().default(0),
  }),
});

export const UpdateEpisodeInput = z.object({ ownerId: Owner, id: z.string().uuid(), patch: EpisodePatch });

export const ListUpcomingInput = z.object({
  ownerId: Owner,
  /** The moment to look ahead from (default: now). */
  now: DateInput.optional(),
  /** The person's UTC offset in minutes, which says what "today" is (default: this machine's at `now`). */
  utcOffsetMin: z
    .number()
    .int()
    .min(-18 * 60)
    .max(18 * 60)
    .optional(),
  /** How many days ahead, today included (a birthday or an anniversary: at least 14). */
  days: z.number().int().min(1).max(31).default(7),
  /**
   * Also the plans of this many days before today, said before their day and neither called off nor
   * talked about since it came (at most 3, first): what a companion may ask after.
   */
  daysBack: z.number().int().min(0).max(31).default(0),
  limit: z.number().int().min(1).max(50).default(6),
});
/** A day ahead the person spoke of (or days), in the message that said it. */
export const UpcomingItem = z.object({
  /** The first day it names from today on (YYYY-MM-DD, the person's calendar); before today for a plan gone by (`daysBack`). */
  day: z.string(),
  /** The last of the days it names, when they are several ("next week", "December 3rd to 7th"). */
  until: z.string().optional(),
  /** The time of day said with its day ("Monday 9am", 周四下午三点), HH:MM on the clock of the one who said it. */
  at: z.string().optional(),
  /**
   * Gone by (`daysBack`): its day has passed, or its time of day today did an hour or more ago, and
   * nothing was said of it since — what a companion may ask after.
   */
  goneBy: z.boolean(),
  /** The episode that holds the message; null for a turn just said that none holds yet. */
  episodeId: z.string().nullable(),
  message: MessageView,
  /**
   * The message with the days its time words name written after them, as its episode keeps it; of a
   * long message, the sentence that names the day and the one before it, "…" marking the rest.
   */
  text: z.string(),
  /**
   * The latest message said since that may call it off or move it ("Helix moved my interview to
   * Monday"), with its days written in: to be read with the plan.
   */
  later: z.object({ message: MessageView, text: z.string() }).optional(),
  /**
   * The turn it answers, when the sentence that names the day says little without it ("How long is
   * she staying?" for "Until the 28th."), with its days written in.
   */
  answers: z.object({ message: MessageView, text: z.string() }).optional(),
});
export const ListUpcomingOutput = z.object({ today: z.string(), items: z.array(UpcomingItem) });

export const RebuildInput = z.object({ ownerId: Owner, reembed: z.boolean().default(false) });
export const RebuildOutput = z.object({
  episodes: z.number().int(),
  /** Episodes told again from their messages because older rules told them (core/episodes/retell.ts). */
  retold: z.number().int(),
  /** Copies of secrets older privacy rules let through, replaced by placeholders now (core/forgetting/secrets.ts). */
  secrets: z.number().int(),
  /**
   * When secrets were replaced: the data folder's backups made before that held them too, filtered now
   * (core/forgetting/backup-secrets.ts), and encrypted ones that cannot be without their passphrase.
   */
  backups: z.object({ filtered: z.number().int(), sealed: z.number().int() }),
  embedded: z.number().int(),
  facts: z.number().int(),
  factsEmbedded: z.number().int(),
});

export const episodeOperations = {
  getEpisode: { input: EpisodeIdInput, output: EpisodeDetail },
  listEpisodes: { input: ListEpisodesInput, output: ListEpisodesOutput },
  createEpisode: { input: CreateEpisodeInput, output: EpisodeView },
  updateEpisode: { input: UpdateEpisodeInput, output: EpisodeView },
  deleteEpisode: { input: EpisodeIdInput, output: z.object({ deleted: z.literal(true) }) },
  /** What the person said of the days ahead, soonest first ("Coming up": the journal, loadContext). */
  listUpcoming: { input: ListUpcomingInput, output: ListUpcomingOutput },
  rebuildIndexes: { input: RebuildInput, output: RebuildOutput },
} as const;
