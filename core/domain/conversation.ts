import { z } from 'zod';

/**
 * True when the written fields are a real date and time (no 30 February, no 25:00, an offset within
 * ±14 h) in the years a message can have (1900–2199): JavaScript's Date would roll them over instead.
 */
function isRealTime(v: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?[^+-]*(?:([+-])(\d{2}):?(\d{2}))?/.exec(v.replace(/Z$/, ''));
  if (!m) return false;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(Number) as [number, number, number, number, number, number];
  const t = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  const sameFields =
    t.getUTCFullYear() === y &&
    t.getUTCMonth() === mo - 1 &&
    t.getUTCDate() === d &&
    t.getUTCHours() === h &&
    t.getUTCMinutes() === mi &&
    t.getUTCSeconds() === s;
  const offsetOk = m[7] === undefined || (Number(m[8]) * 60 + Number(m[9]) <= 14 * 60 && Number(m[9]) < 60);
  return sameFields && offsetOk && y >= 1900 && y <= 2199;
}

/** ISO 8601 timestamp that must carry its UTC offset (or Z): a bare local time is ambiguous. */
export const IsoTimestamp = z
  .string()
  .regex(
    /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/,
    'expected an ISO 8601 time with a UTC offset, e.g. 2023-05-08T13:56:00+08:00',
  )
  .refine(isRealTime, 'not a real date and time between 1900 and 2199 (no 30 February, no 25:00, offsets within ±14:00)');

export const MessageRole = z.enum(['user', 'assistant', 'other', 'system']);
export type MessageRole = z.infer<typeof MessageRole>;

/** Linked media: recorded, never copied unless asked. */
export const Attachment = z.object({
  kind: z.enum(['image', 'audio', 'video', 'file', 'link', 'sticker', 'other']).default('file'),
  name: z.string().optional(),
  uri: z.string().optional(),
  mimeType: z.string().optional(),
  caption: z.string().optional(),
});
export type Attachment = z.infer<typeof Attachment>;

/** One message as every importer emits it; `sentAt` is absolute, `utcOffsetMin` the sender's local offset. */
export const IncomingMessage = z.object({
  externalId: z.string().min(1).optional(),
  speaker: z.string().min(1),
  role: MessageRole.default('other'),
  text: z.string(),
  sentAt: z.date(),
  utcOffsetMin: z
    .number()
    .int()
    .min(-14 * 60)
    .max(14 * 60)
    .default(0),
  attachments: z.array(Attachment).default([]),
  metadata: z.record(z.string(), z.unknown()).default({}),
});
export type IncomingMessage = z.infer<typeof IncomingMessage>;

export const IncomingConversation = z
  .object({
    source: z.string().min(1),
    externalId: z.string().min(1),
    title: z.string().optional(),
    /** The people in the conversation; when an export does not list them, the people who spoke. */
    participants: z.array(z.string()).default([]),
    metadata: z.record(z.string(), z.unknown()).default({}),
    messages: z.array(IncomingMessage),
  })
  .transform((c) => (c.participants.length > 0 ? c : { ...c, participants: [...new Set(c.messages.map((m) => m.speaker))] }));
export type IncomingConversation = z.infer<typeof IncomingConversation>;
export type IncomingConversationInput = z.input<typeof IncomingConversation>;

export const StoredMessage = z.object({
  id: z.string(),
  conversationId: z.string(),
  externalId: z.string().nullable(),
  seq: z.number().int(),
  speaker: z.string(),
  role: MessageRole,
  text: z.string(),
  sentAt: z.date(),
  utcOffsetMin: z.number().int(),
  attachments: z.array(Attachment),
  episodeId: z.string().nullable(),
});
export type StoredMessage = z.infer<typeof StoredMessage>;

/** Parses an ISO timestamp into the instant and the offset it was written in. */
export function parseIsoWithOffset(value: string): { at: Date; utcOffsetMin: number } {
  const at = new Date(value.replace(' ', 'T'));
  const m = /(Z|([+-])(\d{2}):?(\d{2}))$/.exec(value);
  let utcOffsetMin = 0;
  if (m && m[1] !== 'Z') utcOffsetMin = (m[2] === '-' ? -1 : 1) * (Number(m[3]) * 60 + Number(m[4]));
  return { at, utcOffsetMin };
}
