import { z } from 'zod';
import { EpisodeType } from '../domain/episode.js';
import { Owner } from '../domain/owner.js';
import { SearchMode } from '../domain/search.js';
import { MessageView } from './views.js';

export { DEFAULT_OWNER, Owner } from '../domain/owner.js';

/** The search part of the contract, shared by episodic and semantic operations. */

export const DateInput = z.union([z.date(), z.string().min(1)]).transform((v, ctx) => {
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
  /** Only episodes of conversations from these sources: importer formats (`whatsapp`, `telegram`, …) or `api`. */
  importSources: z.array(z.string().min(1)).optional(),
});

/** Which memories a search looks at: episodes, semantic facts, or both in one ranking. */
export const SearchKind = z.enum(['all', 'episodic', 'semantic']);

/** Metadata filters for facts. */
export const FactFilterInput = z.object({
  entityTypes: z.array(z.string().min(1)).optional(),
  tags: z.array(z.string().min(1)).optional(),
  source: z.string().optional(),
  minConfidence: z.number().min(0).max(1).optional(),
});

export const SearchInput = EpisodeFilterInput.extend(FactFilterInput.shape).extend({
  ownerId: Owner,
  query: z.string().min(1, 'the search text is empty'),
  mode: SearchMode.default('hybrid'),
  /**
   * `all` ranks episodes and facts together. The episode filters (since, until, episodeTypes, importSources) describe
   * episodes, so with any of them `all` searches episodes only; the fact filters likewise keep to facts.
   */
  kind: SearchKind.default('all'),
  limit: z.number().int().min(1).max(500).default(10),
  /** A companion recalling memories for a conversation counts as access (it keeps them from fading); browsing does not. */
  markAccessed: z.boolean().default(false),
});

const SourceRef = MessageView.pick({ id: true, externalId: true, speaker: true, sentAt: true });
const ResultScoring = {
  score: z.number(),
  scores: z.object({ bm25: z.number().nullable(), vector: z.number().nullable() }),
  reason: z.object({
    matchedBy: z.array(z.enum(['bm25', 'vector'])),
    /** The index terms that matched (stems, Chinese bigrams): what to mark in the text. */
    terms: z.array(z.string()),
    /** The query's words those terms come from, as typed ("Hakone" for the term "hakon"): what to name. */
    words: z.array(z.string()),
    explanation: z.string(),
    /** The query's words naming a period ("last week") the result is from or close after, when the query named one. */
    during: z.string().optional(),
  }),
};

export const EpisodeResultItem = z.object({
  kind: z.literal('episode'),
  id: z.string(),
  title: z.string(),
  summary: z.string(),
  /** What would be handed to an LLM: the episode's full text. */
  text: z.string(),
  start: z.string(),
  end: z.string(),
  /** The local offset the episode happened in, to show its times as the person lived them. */
  utcOffsetMin: z.number().int(),
  ...ResultScoring,
  sources: z.array(SourceRef),
});

export const FactResultItem = z.object({
  kind: z.literal('semantic'),
  id: z.string(),
  key: z.string(),
  entityType: z.string(),
  /** The key as written (title of the fact). */
  title: z.string(),
  /** The current value. */
  summary: z.string(),
  /** What would be handed to an LLM: "label: value (context)". */
  text: z.string(),
  context: z.string(),
  version: z.number().int(),
  confidence: z.number(),
  updatedAt: z.string(),
  ...ResultScoring,
  /** The messages the fact was drawn from, over all its kept versions. */
  sources: z.array(SourceRef),
  /** Episodes that taught, repeated or changed it. */
  episodeIds: z.array(z.string()),
});

export const SearchResultItem = z.discriminatedUnion('kind', [EpisodeResultItem, FactResultItem]);
export type SearchResultItem = z.infer<typeof SearchResultItem>;

export const SearchOutput = z.object({
  query: z.string(),
  mode: SearchMode,
  results: z.array(SearchResultItem),
  /**
   * The periods the query names, as read on this machine's clock ("last week": its first and last day):
   * what was said in and just around them comes first, and a query that names nothing else lists
   * their episodes, latest first.
   */
  periods: z.array(z.object({ phrase: z.string(), from: z.string(), to: z.string() })),
  warnings: z.array(z.string()),
  tookMs: z.number(),
});

export const searchOperations = {
  search: { input: SearchInput, output: SearchOutput },
} as const;
