import { z } from 'zod';
import { DiscoveryRun, Eviction, LearnAction } from '../facts/reports.js';
import { KeyInput, LinkRole, RelationshipType } from '../domain/fact.js';
import { SearchMode } from '../domain/search.js';
import { DateInput, FactFilterInput, Owner, SearchResultItem, FactResultItem } from './search-contract.js';
import { FactVersionView, FactView, MessageView } from './views.js';

/**
 * The semantic-memory part of the contract: discovery (runs, evolution timeline, related knowledge,
 * episode ↔ fact look-ups, enhanced query) and the store operations (upsert, memorize, remember, forget, undelete,
 * summarize, capacity, versions).
 */

/** A fact is named by its key (any spelling: "person:John" = "person:john") or its id. */
const FactRef = z.string().trim().min(1, 'name the fact by its key (entity_type:identifier) or id').max(500);

export const EpisodeRef = z.object({ id: z.string(), title: z.string(), start: z.string(), utcOffsetMin: z.number().int() });
export type EpisodeRef = z.infer<typeof EpisodeRef>;

export const ListKnowledgeInput = z.object({
  ownerId: Owner,
  entityType: z.string().min(1).optional(),
  /** `live`: active and archived facts; `trash`: soft-deleted ones (restorable with undelete). */
  tier: z.enum(['live', 'trash']).default('live'),
  limit: z.number().int().min(1).max(1000).default(100),
  cursor: z.string().optional(),
});
export const ListKnowledgeOutput = z.object({
  facts: z.array(FactView),
  /** Live facts per entity type, most first: the sections of the knowledge view. */
  entityTypes: z.array(z.object({ entityType: z.string(), count: z.number().int() })),
  nextCursor: z.string().nullable(),
});

const RelatedView = z.object({
  fact: FactView,
  type: RelationshipType,
  strength: z.number(),
  /** Why, in the model's words; empty for facts related because they were learnt together. */
  description: z.string(),
  /** The episode the relation was found in (for facts learnt together: the reason they are related). */
  discoveryEpisode: EpisodeRef.nullable(),
  /** Indirect relations: the id of the direct neighbour they were reached through. */
  via: z.string().nullable(),
});
export const RelatedKnowledgeInput = z.object({ ownerId: Owner, key: FactRef, depth: z.union([z.literal(1), z.literal(2)]).default(2) });
export const RelatedKnowledgeOutput = z.object({ direct: z.array(RelatedView), indirect: z.array(RelatedView) });

export const GetKnowledgeInput = z.object({ ownerId: Owner, key: FactRef });
export const GetKnowledgeOutput = z.object({
  fact: FactView,
  /** The evolution timeline: every kept version, oldest first, with the episode that taught or changed it. */
  timeline: z.array(FactVersionView.extend({ episode: EpisodeRef.nullable() })),
  discoveryEpisode: EpisodeRef.nullable(),
  /** Episodes that taught or repeated the fact. */
  linkedEpisodes: z.array(EpisodeRef),
  /** Episodes that changed its value. */
  evolutionEpisodes: z.array(EpisodeRef),
  /** The messages it was drawn from, over every kept version. */
  sources: z.array(MessageView),
  related: RelatedKnowledgeOutput,
});

export const GetVersionInput = z.object({ ownerId: Owner, key: FactRef, version: z.number().int().min(1) });
export const GetVersionOutput = z.object({ fact: FactView, version: FactVersionView });

export const FactMetadataInput = z.object({
  /** Where or how the fact was learnt, in a sentence. */
  context: z.string().max(2000).optional(),
  tags: z.array(z.string().trim().min(1).max(80)).max(50).optional(),
  source: z.string().max(200).optional(),
  importance: z.number().min(0).max(1).optional(),
  confidence: z.number().min(0).max(1).optional(),
  keywords: z.array(z.string().trim().min(1).max(80)).max(20).optional(),
  /** The person's feedback: the stored value was wrong. The new version `corrects` it; the old one loses confidence. */
  correction: z.boolean().optional(),
});

export const WriteKnowledgeOutput = z.object({
  id: z.string(),
  key: z.string(),
  version: z.number().int(),
  /** created · evolved (new version) · corrected (new version correcting the old) · reinforced (same value) · merged (near-duplicate of another key). */
  action: LearnAction,
  previousValue: z.string().nullable(),
  /** Facts evicted to stay within capacity. */
  evicted: z.array(Eviction),
  fact: FactView,
});

const FactValue = z.string().trim().min(1, 'the value is empty').max(10_000);
export const UpsertKnowledgeInput = z.object({ ownerId: Owner, key: KeyInput, value: FactValue, metadata: FactMetadataInput.default({}) });
export const MemorizeInput = z.object({
  ownerId: Owner,
  value: FactValue,
  /** Without a key the fact is stored under `fact:<its first words>`, or merged into a near-duplicate. */
  key: KeyInput.optional(),
  metadata: FactMetadataInput.default({}),
});

export const RememberInput = FactFilterInput.extend({
  ownerId: Owner,
  prompt: z.string().trim().min(1, 'say what to remember'),
  mode: SearchMode.default('hybrid'),
  minImportance: z.number().min(0).max(1).optional(),
  limit: z.number().int().min(1).max(200).default(10),
});
export const RememberOutput = z.object({ items: z.array(FactResultItem), mode: SearchMode, warnings: z.array(z.string()) });

const StoreUsage = z.object({
  items: z.number().int(),
  tokens: z.number().int(),
  protected: z.number().int(),
  lowImportance: z.number().int(),
  versions: z.number().int(),
  trashed: z.number().int(),
});
export const ForgetKnowledgeInput = z.object({
  ownerId: Owner,
  /** `key:<entity_type:identifier>`, `oldest` (least recently used), `least important`, or `before:<time>`. */
  instruction: z.string().trim().min(1, 'say what to forget: key:<key>, oldest, least important or before:<time>'),
  /** soft: to the trash, restorable with undelete (until the trash is purged); hard: gone with every version. */
  mode: z.enum(['soft', 'hard']).default('soft'),
});
export const ForgetKnowledgeOutput = z.object({
  mode: z.enum(['soft', 'hard']),
  forgotten: z.array(z.object({ id: z.string(), key: z.string(), version: z.number().int() })),
  store: StoreUsage,
});

export const UndeleteKnowledgeInput = z.object({ ownerId: Owner, key: FactRef });

export const SummarizeKnowledgeInput = z.object({
  ownerId: Owner,
  /** Everything (omitted), an entity type ("person") or a key prefix ("person:john"). */
  scope: z.string().trim().min(1).optional(),
  tokenLimit: z.number().int().min(10).max(100_000).default(500),
  /** As the facts were known at this moment (a replay): the values they had then; facts not known yet are left out. */
  asOf: DateInput.optional(),
});
export const SummarizeKnowledgeOutput = z.object({
  summary: z.string(),
  tokens: z.number().int(),
  keys: z.array(z.string()),
  /** Facts in scope that did not fit the token limit. */
  left: z.number().int(),
});

export const CapacityOutput = StoreUsage.extend({
  maxItems: z.number().int(),
  maxTokens: z.number().int(),
  thresholds: z.object({ high: z.number(), low: z.number() }),
  policy: z.string(),
  over: z.boolean(),
  nextEviction: z.object({ id: z.string(), key: z.string(), importance: z.number(), lastUsed: z.string() }).nullable(),
  /** Episodes waiting for knowledge discovery, and those whose discovery failed. */
  discoveryQueue: z.object({ waiting: z.number().int(), failed: z.number().int() }),
});

export const EpisodeKnowledgeOutput = z.object({
  episodeId: z.string(),
  facts: z.array(z.object({ fact: FactView, roles: z.array(LinkRole) })),
});

export const EnhancedQueryInput = z.object({
  ownerId: Owner,
  query: z.string().trim().min(1, 'the search text is empty'),
  /** Quality preference: facts first, conversations first, both with support, or the best of both ranked together. */
  quality: z.enum(['factual', 'contextual', 'comprehensive', 'balanced']).default('balanced'),
  limit: z.number().int().min(1).max(100).default(10),
  mode: SearchMode.default('hybrid'),
});
export const EnhancedQueryOutput = z.object({
  quality: z.enum(['factual', 'contextual', 'comprehensive', 'balanced']),
  primary: z.array(SearchResultItem),
  secondary: z.array(SearchResultItem),
  /** For each fact in `primary`: the episodes behind it. */
  support: z.array(z.object({ factId: z.string(), linkedEpisodes: z.array(EpisodeRef), evolutionEpisodes: z.array(EpisodeRef) })),
  warnings: z.array(z.string()),
});

export const RunDiscoveryInput = z.object({ ownerId: Owner, limit: z.number().int().min(1).optional() });

export const knowledgeOperations = {
  listKnowledge: { input: ListKnowledgeInput, output: ListKnowledgeOutput },
  getKnowledge: { input: GetKnowledgeInput, output: GetKnowledgeOutput },
  getKnowledgeVersion: { input: GetVersionInput, output: GetVersionOutput },
  relatedKnowledge: { input: RelatedKnowledgeInput, output: RelatedKnowledgeOutput },
  episodeKnowledge: { input: z.object({ ownerId: Owner, id: z.string().uuid('not an episode id') }), output: EpisodeKnowledgeOutput },
  upsertKnowledge: { input: UpsertKnowledgeInput, output: WriteKnowledgeOutput },
  memorize: { input: MemorizeInput, output: WriteKnowledgeOutput },
  remember: { input: RememberInput, output: RememberOutput },
  forgetKnowledge: { input: ForgetKnowledgeInput, output: ForgetKnowledgeOutput },
  undeleteKnowledge: { input: UndeleteKnowledgeInput, output: FactView },
  summarizeKnowledge: { input: SummarizeKnowledgeInput, output: SummarizeKnowledgeOutput },
  knowledgeCapacity: { input: z.object({ ownerId: Owner }), output: CapacityOutput },
  enhancedQuery: { input: EnhancedQueryInput, output: EnhancedQueryOutput },
  runDiscovery: { input: RunDiscoveryInput, output: DiscoveryRun },
} as const;
