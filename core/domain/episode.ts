import { z } from 'zod';

export const EpisodeType = z.enum(['conversational', 'behavioral', 'spatial', 'creative', 'physiological', 'social', 'mixed', 'synthetic']);
export type EpisodeType = z.infer<typeof EpisodeType>;

/** Episode levels: 1 atomic, 2 compound, 3 thematic, 4 archival. */
export const EpisodeLevel = z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)]);
export type EpisodeLevel = z.infer<typeof EpisodeLevel>;

export const Emotion = z.object({
  label: z.string(),
  /** -1 (negative) … 1 (positive) */
  valence: z.number().min(-1).max(1).default(0),
  intensity: z.number().min(0).max(1).default(0.5),
});

export const TimeReference = z.object({
  phrase: z.string(),
  start: z.string(),
  end: z.string().optional(),
  granularity: z.string(),
  /** The text states the day itself ("on December 3rd"); the others are relative ("next Tuesday"). */
  stated: z.boolean().optional(),
  /** A stated day that comes round every year ("Maya's birthday is December 3rd"). */
  yearly: z.boolean().optional(),
});
export type TimeReference = z.infer<typeof TimeReference>;

export const EpisodeMetadata = z.object({
  entities: z.array(z.string()).default([]),
  topics: z.array(z.string()).default([]),
  emotions: z.array(Emotion).default([]),
  keyPoints: z.array(z.string()).default([]),
  timeReferences: z.array(TimeReference).default([]),
  participants: z.array(z.string()).default([]),
  messageCount: z.number().int().nonnegative().default(0),
  custom: z.record(z.string(), z.unknown()).default({}),
});
export type EpisodeMetadata = z.infer<typeof EpisodeMetadata>;

export const TemporalInfo = z.object({
  start: z.date(),
  end: z.date(),
  /** The local offset the episode happened in, so its dates read as the person lived them. */
  utcOffsetMin: z.number().int(),
});
export type TemporalInfo = z.infer<typeof TemporalInfo>;

export const EpisodeBuilderKind = z.enum(['heuristic', 'llm', 'manual']);
/**
 * `ready`; `needs_rebuild`: a heuristic stand-in for an LLM episode that failed; `open`: the provisional
 * episode of a live conversation's open tail, rebuilt as turns arrive and read for knowledge only once closed.
 */
export const ProcessingStatus = z.enum(['ready', 'needs_rebuild', 'open']);

/** What a builder produces, before the store gives it an id. */
export const EpisodeDraft = z.object({
  episodeType: EpisodeType.default('conversational'),
  level: EpisodeLevel.default(1),
  title: z.string().min(1),
  content: z.string().min(1),
  summary: z.string(),
  temporal: TemporalInfo,
  metadata: EpisodeMetadata.default(EpisodeMetadata.parse({})),
  structuredData: z.record(z.string(), z.unknown()).default({}),
  keywords: z.array(z.string()).default([]),
  importance: z.number().min(0).max(1).default(0.5),
  builder: EpisodeBuilderKind,
  processingStatus: ProcessingStatus.default('ready'),
  processingVersion: z.string(),
});
export type EpisodeDraft = z.infer<typeof EpisodeDraft>;

export const Episode = EpisodeDraft.extend({
  id: z.string().uuid(),
  ownerId: z.string(),
  conversationId: z.string().nullable(),
  recallCount: z.number().int().nonnegative(),
  lastAccessed: z.date().nullable(),
  /** Model id of the stored vector, null when the episode has none (no model, or archived). */
  embeddingModel: z.string().nullable(),
  messageIds: z.array(z.string()),
  /** Semantic facts linked to this episode (discovered, reinforced or changed by it): the episode → fact direction. */
  semanticNodeIds: z.array(z.string()),
  createdAt: z.date(),
  updatedAt: z.date(),
});
export type Episode = z.infer<typeof Episode>;

/**
 * Fields a person or program may change on an existing episode. Without the draft's defaults: a field
 * not given is kept as it is (editing a title must not reset the keywords, entities or importance).
 */
const draft = EpisodeDraft.shape;
export const EpisodePatch = z
  .object({
    episodeType: draft.episodeType.removeDefault(),
    level: draft.level.removeDefault(),
    title: draft.title,
    content: draft.content,
    summary: draft.summary,
    metadata: draft.metadata.removeDefault(),
    structuredData: draft.structuredData.removeDefault(),
    keywords: draft.keywords.removeDefault(),
    importance: draft.importance.removeDefault(),
  })
  .partial();
export type EpisodePatch = z.infer<typeof EpisodePatch>;
