import { z } from 'zod';
import { IsoTimestamp } from '../domain/conversation.js';
import { EpisodeDraft, EpisodePatch, EpisodeType } from '../domain/episode.js';
import { SearchMode } from '../retrieval/search.js';
import { EpisodeView, MessageView } from './views.js';

/**
 * The one contract of the engine: every operation with its input and output schema. The CLI, the
 * Electron IPC bridge, the HTTP bridge and MCP all call through it, and all validate against it.
 */

export const DEFAULT_OWNER = 'default';
const Owner = z.string().min(1).max(200).default(DEFAULT_OWNER);
const DateInput = z.union([z.date(), z.string().min(1)]).transform((v, ctx) => {
  const d = v instanceof Date ? v : new Date(/^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v);
  if (Number.isNaN(d.getTime())) {
    ctx.addIssue({ code: 'custom', message: `not a date: ${String(v)} (use YYYY-MM-DD or ISO 8601)` });
    return z.NEVER;
  }
  return d;
});

export const EpisodeFilterInput = z.object({
  since: DateInput.optional(),
  until: DateInput.optional(),
  episodeTypes: z.array(EpisodeType).optional(),
  minImportance: z.number().min(0).max(1).optional(),
});

export const SearchInput = EpisodeFilterInput.extend({
  ownerId: Owner,
  query: z.string().min(1, 'the search text is empty'),
  mode: SearchMode.default('hybrid'),
  limit: z.number().int().min(1).max(500).default(10),
  /** A companion recalling memories for a conversation counts as access (seed 001); browsing does not. */
  markAccessed: z.boolean().default(false),
});

export const SearchResultItem = z.object({
  kind: z.literal('episode'),
  id: z.string(),
  title: z.string(),
  summary: z.string(),
  /** What would be handed to an LLM: the episode's full text. */
  text: z.string(),
  start: z.string(),
  end: z.string(),
  score: z.number(),
  scores: z.object({ bm25: z.number().nullable(), vector: z.number().nullable() }),
  reason: z.object({
    matchedBy: z.array(z.enum(['bm25', 'vector'])),
    terms: z.array(z.string()),
    explanation: z.string(),
  }),
  sources: z.array(MessageView.pick({ id: true, externalId: true, speaker: true, sentAt: true })),
});
export type SearchResultItem = z.infer<typeof SearchResultItem>;

export const SearchOutput = z.object({
  query: z.string(),
  mode: SearchMode,
  results: z.array(SearchResultItem),
  warnings: z.array(z.string()),
  tookMs: z.number(),
});

export const ConversationInput = z.object({
  id: z.union([z.string().min(1), z.number()]).transform(String),
  title: z.string().optional(),
  participants: z.array(z.string()).optional(),
  messages: z
    .array(
      z.object({
        id: z.union([z.string().min(1), z.number()]).transform(String).optional(),
        speaker: z.string().min(1),
        role: z.enum(['user', 'assistant', 'other', 'system']).optional(),
        text: z.string(),
        timestamp: IsoTimestamp,
      }),
    )
    .min(1),
});

export const IngestOutput = z.object({
  conversationId: z.string(),
  messagesAdded: z.number().int(),
  episodesCreated: z.number().int(),
});

export const ImportFilesInput = z.object({
  ownerId: Owner,
  paths: z.array(z.string().min(1)).min(1),
  format: z.string().optional(),
});

export const ImportFileReport = z.object({
  file: z.string(),
  format: z.string().nullable(),
  conversations: z.number().int(),
  messages: z.number().int(),
  messagesAdded: z.number().int(),
  episodesCreated: z.number().int(),
  participants: z.array(z.string()),
  warnings: z.array(z.string()),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
});
export const ImportFilesOutput = z.object({ files: z.array(ImportFileReport) });
export type ImportFilesOutput = z.infer<typeof ImportFilesOutput>;

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
export const RebuildOutput = z.object({ episodes: z.number().int(), embedded: z.number().int() });

export const OwnerStats = z.object({
  ownerId: z.string(),
  conversations: z.number().int(),
  messages: z.number().int(),
  episodes: z.number().int(),
  embedded: z.number().int(),
  lastWrite: z.string().nullable(),
});
export const StatsOutput = z.object({ owners: z.array(OwnerStats) });

export const HealthOutput = z.object({
  ok: z.boolean(),
  home: z.string().nullable(),
  database: z.object({
    status: z.enum(['ok', 'error']),
    schemaVersion: z.number().int(),
    openMs: z.number(),
    sizeBytes: z.number().nullable(),
  }),
  embedding: z.object({
    available: z.boolean(),
    modelId: z.string(),
    source: z.string().nullable(),
    reason: z.string().nullable(),
  }),
  owners: z.array(OwnerStats),
  warnings: z.array(z.string()),
});

export const operations = {
  search: { input: SearchInput, output: SearchOutput },
  ingestConversation: { input: z.object({ ownerId: Owner, source: z.string().default('api'), conversation: ConversationInput }), output: IngestOutput },
  importFiles: { input: ImportFilesInput, output: ImportFilesOutput },
  getEpisode: { input: EpisodeIdInput, output: EpisodeDetail },
  listEpisodes: { input: ListEpisodesInput, output: ListEpisodesOutput },
  createEpisode: { input: CreateEpisodeInput, output: EpisodeView },
  updateEpisode: { input: UpdateEpisodeInput, output: EpisodeView },
  deleteEpisode: { input: EpisodeIdInput, output: z.object({ deleted: z.literal(true) }) },
  rebuildIndexes: { input: RebuildInput, output: RebuildOutput },
  stats: { input: z.object({ ownerId: z.string().optional() }), output: StatsOutput },
  health: { input: z.object({}), output: HealthOutput },
} as const;

export type Operations = typeof operations;
export type OperationName = keyof Operations;
export type OpInput<K extends OperationName> = z.input<Operations[K]['input']>;
export type OpOutput<K extends OperationName> = z.infer<Operations[K]['output']>;
