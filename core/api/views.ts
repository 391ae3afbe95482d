import { z } from 'zod';
import { Attachment, MessageRole, type StoredMessage } from '../domain/conversation.js';
import { DiscoveryMethod, VersionLink, type Fact, type FactVersion } from '../domain/fact.js';
import { EpisodeBuilderKind, EpisodeLevel, EpisodeMetadata, EpisodeType, ProcessingStatus, type Episode } from '../domain/episode.js';

/** JSON-safe shapes the contract returns: dates are ISO 8601 strings so IPC, HTTP and `--json` agree. */
const Iso = z.string();

export const MessageView = z.object({
  id: z.string(),
  conversationId: z.string(),
  externalId: z.string().nullable(),
  speaker: z.string(),
  role: MessageRole,
  text: z.string(),
  sentAt: Iso,
  utcOffsetMin: z.number().int(),
  attachments: z.array(Attachment),
});
export type MessageView = z.infer<typeof MessageView>;

export const EpisodeView = z.object({
  id: z.string(),
  ownerId: z.string(),
  conversationId: z.string().nullable(),
  episodeType: EpisodeType,
  level: EpisodeLevel,
  title: z.string(),
  content: z.string(),
  summary: z.string(),
  start: Iso,
  end: Iso,
  utcOffsetMin: z.number().int(),
  metadata: EpisodeMetadata,
  structuredData: z.record(z.string(), z.unknown()),
  keywords: z.array(z.string()),
  importance: z.number(),
  recallCount: z.number().int(),
  lastAccessed: Iso.nullable(),
  builder: EpisodeBuilderKind,
  processingStatus: ProcessingStatus,
  processingVersion: z.string(),
  embeddingModel: z.string().nullable(),
  messageIds: z.array(z.string()),
  semanticNodeIds: z.array(z.string()),
  createdAt: Iso,
  updatedAt: Iso,
});
export type EpisodeView = z.infer<typeof EpisodeView>;

export function messageView(m: StoredMessage): MessageView {
  const { seq: _seq, episodeId: _episodeId, sentAt, ...rest } = m;
  return { ...rest, sentAt: sentAt.toISOString() };
}

export function episodeView(e: Episode): EpisodeView {
  const { temporal, lastAccessed, createdAt, updatedAt, ...rest } = e;
  return {
    ...rest,
    start: temporal.start.toISOString(),
    end: temporal.end.toISOString(),
    utcOffsetMin: temporal.utcOffsetMin,
    lastAccessed: lastAccessed?.toISOString() ?? null,
    createdAt: createdAt.toISOString(),
    updatedAt: updatedAt.toISOString(),
  };
}

export const FactView = z.object({
  id: z.string(),
  key: z.string(),
  entityType: z.string(),
  label: z.string(),
  value: z.string(),
  context: z.string(),
  confidence: z.number(),
  version: z.number().int(),
  discoveryEpisodeId: z.string().nullable(),
  discoveryMethod: DiscoveryMethod,
  keywords: z.array(z.string()),
  tags: z.array(z.string()),
  source: z.string().nullable(),
  accessCount: z.number().int(),
  lastAccessed: Iso.nullable(),
  relevance: z.number(),
  importance: z.number(),
  tokens: z.number().int(),
  tier: z.enum(['active', 'archived', 'trash']),
  marked: z.boolean().nullable(),
  createdAt: Iso,
  updatedAt: Iso,
});
export type FactView = z.infer<typeof FactView>;

export function factView(n: Fact): FactView {
  // Owner and the forgetting bookkeeping stay inside the engine; the view says only what a person sees.
  const {
    ownerId: _ownerId,
    baseImportance: _baseImportance,
    tierChangedAt: _tierChangedAt,
    tierReason: _tierReason,
    markedImportant,
    lastAccessed,
    createdAt,
    updatedAt,
    ...rest
  } = n;
  return {
    ...rest,
    lastAccessed: lastAccessed?.toISOString() ?? null,
    marked: markedImportant,
    createdAt: createdAt.toISOString(),
    updatedAt: updatedAt.toISOString(),
  };
}

export const FactVersionView = z.object({
  version: z.number().int(),
  value: z.string(),
  context: z.string(),
  confidence: z.number(),
  /** How this version relates to the one before: the world changed (updates) or it was wrong (corrects). */
  link: VersionLink.nullable(),
  /** A later version corrected this one. */
  corrected: z.boolean(),
  method: DiscoveryMethod,
  episodeId: z.string().nullable(),
  sourceMessageIds: z.array(z.string()),
  createdAt: Iso,
});
export type FactVersionView = z.infer<typeof FactVersionView>;

export function factVersionView(v: FactVersion): FactVersionView {
  return {
    version: v.version,
    value: v.value,
    context: v.context,
    confidence: v.confidence,
    link: v.link,
    corrected: v.corrected,
    method: v.method,
    episodeId: v.episodeId,
    sourceMessageIds: v.sourceMessageIds,
    createdAt: v.createdAt.toISOString(),
  };
}
