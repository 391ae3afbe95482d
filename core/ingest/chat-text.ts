import path from 'node:path';
import type { Attachment, IncomingConversation, IncomingMessage, MessageRole } from '../domain/conversation.js';
import { IncomingConversation as IncomingConversationSchema } from '../domain/conversation.js';

/**
 * Small pieces shared by the chat-app importers (WhatsApp, WeChat, QQ, LINE, Markdown): building
 * messages that stay small in memory, invisible-character clean-up, and media kinds from file names.
 */

// A 200 MB single chat is one to two million messages held until the conversation is complete. Most
// have no attachments and no metadata, so they share one frozen empty array/object instead of
// allocating their own (frozen: a consumer that tried to mutate it would fail loudly, not corrupt
// every message).
export const NO_ATTACHMENTS = Object.freeze([]) as unknown as Attachment[];
export const NO_METADATA = Object.freeze({}) as Record<string, unknown>;

export function makeMessage(m: {
  speaker: string;
  role?: MessageRole;
  text: string;
  sentAt: Date;
  utcOffsetMin: number;
  externalId?: string;
  attachments?: Attachment[];
  metadata?: Record<string, unknown>;
}): IncomingMessage {
  const msg: IncomingMessage = {
    speaker: m.speaker,
    role: m.role ?? 'other',
    text: m.text,
    sentAt: m.sentAt,
    utcOffsetMin: m.utcOffsetMin,
    attachments: m.attachments && m.attachments.length > 0 ? m.attachments : NO_ATTACHMENTS,
    metadata: m.metadata ?? NO_METADATA,
  };
  if (m.externalId !== undefined) msg.externalId = m.externalId;
  return msg;
}

/**
 * Validates the conversation envelope with the domain schema and attaches the messages, which were
 * built field by field from checked input (re-parsing a million messages through zod would double
 * the memory of the largest imports for no gain).
 */
export function makeConversation(c: {
  source: string;
  externalId: string;
  title?: string;
  participants: string[];
  metadata: Record<string, unknown>;
  messages: IncomingMessage[];
}): IncomingConversation {
  const envelope = IncomingConversationSchema.parse({ ...c, messages: [] });
  envelope.messages = c.messages;
  return envelope;
}

/** Bidirectional marks and isolates (U+200E/F, U+202A–E, U+2066–9) that exporters sprinkle around names and media lines. */
const DIRECTION_MARKS = /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
export function stripDirectionMarks(s: string): string {
  return s.replace(DIRECTION_MARKS, '');
}

/** Narrow (U+202F) and ordinary (U+00A0) no-break spaces and figure spaces, as used before "PM" or "p. m.". */
export function normalizeSpaces(s: string): string {
  return s.replace(/[\u00a0\u2007\u202f]/g, ' ');
}

const MIME: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  '3gp': 'video/3gpp',
  opus: 'audio/ogg',
  ogg: 'audio/ogg',
  m4a: 'audio/mp4',
  mp3: 'audio/mpeg',
  aac: 'audio/aac',
  amr: 'audio/amr',
  wav: 'audio/wav',
  pdf: 'application/pdf',
  vcf: 'text/vcard',
  txt: 'text/plain',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  zip: 'application/zip',
};

export function mimeTypeOf(name: string): string | undefined {
  return MIME[path.extname(name).slice(1).toLowerCase()];
}

/** Media kind from a file name: WhatsApp's `PHOTO`/`IMG-`/`PTT-`… prefixes first, the extension otherwise. */
export function kindOfFile(name: string): Attachment['kind'] {
  const upper = name.toUpperCase();
  if (/-STICKER-|^STK-/.test(upper)) return 'sticker';
  if (/-PHOTO-|^IMG-|-GIF-/.test(upper)) return 'image';
  if (/-VIDEO-|^VID-/.test(upper)) return 'video';
  if (/-AUDIO-|^PTT-|^AUD-/.test(upper)) return 'audio';
  const mime = mimeTypeOf(name);
  if (!mime) return 'file';
  if (mime.startsWith('image/')) return mime === 'image/webp' ? 'sticker' : 'image';
  if (mime.startsWith('video/')) return 'video';
  if (mime.startsWith('audio/')) return 'audio';
  if (mime === 'text/vcard') return 'other';
  return 'file';
}

export function fileAttachment(name: string, uri?: string): Attachment {
  const a: Attachment = { kind: kindOfFile(name), name };
  const mimeType = mimeTypeOf(name);
  if (mimeType) a.mimeType = mimeType;
  if (uri) a.uri = uri;
  return a;
}

/** Unicode code points, not UTF-16 units: "fragments under 20 characters" must count 你好 as 2. */
export function charLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}
