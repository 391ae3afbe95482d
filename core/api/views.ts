import { z } from 'zod';
import { Attachment, MessageRole, type StoredMessage } from '../domain/conversation.js';
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
  createdAt: Iso,
  updatedAt: Iso,
});
export type EpisodeView = z.infer<typeof EpisodeView>;

export function messageView(m: StoredMessage): MessageView {
  return {
    id: m.id,
    conversationId: m.conversationId,
    externalId: m.externalId,
    speaker: m.speaker,
    role: m.role,
    text: m.text,
    sentAt: m.sentAt.toISOString(),
    utcOffsetMin: m.utcOffsetMin,
    attachments: m.attachments,
  };
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
