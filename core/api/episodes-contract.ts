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

export const RebuildInput = z.object({ ownerId: Owner, reembed: z.boolean().default(false) });
export const RebuildOutput = z.object({
  episodes: z.number().int(),
  /** Episodes told again from their messages because older rules told them (core/episodes/retell.ts). */
  retold: z.number().int(),
  /** Copies of secrets older privacy rules let through, replaced by placeholders now (core/forgetting/secrets.ts). */
  secrets: z.number().int(),
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
  rebuildIndexes: { input: RebuildInput, output: RebuildOutput },
} as const;
