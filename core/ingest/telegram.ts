import path from 'node:path';
import { z } from 'zod';
import { IncomingConversation, type Attachment, type IncomingMessage } from '../domain/conversation.js';
import { jsonFileWith, type ImportFormat, type ReadContext } from './import-format.js';
import { checkJsonMessage, fileSource, shapeError, valueError, walkJson, type JsonPath, type JsonSource } from './json-stream.js';
import { attachment, mediaKind } from './media.js';
import { partIsFull } from './parts.js';
import { importTimeZone, instantOf, timeField } from './time-shapes.js';

/**
 * Telegram Desktop → Export chat history (one chat) or Settings → Advanced → Export Telegram data (the
 * whole account), both as "Machine-readable JSON": a `result.json`. The single-chat file is the chat
 * object itself ({name, type, id, messages}); the account file lists chats under `chats.list` (and the
 * ones the person left under `left_chats.list`). Messages are streamed one at a time.
 */

const Entity = z.looseObject({ type: z.string(), text: z.string() });
const Text = z.union([z.string(), z.array(z.union([z.string(), Entity]))]);

const Message = z
  .looseObject({
    id: z.number(),
    type: z.string(),
    // Telegram writes the computer's local time; converters write ISO with Z or an offset, or unix times.
    date: timeField().optional(),
    date_unixtime: timeField('s').optional(),
    from: z.string().nullish(),
    // Numbers in exports before 2021, "user123"/"channel123" since.
    from_id: z.union([z.string(), z.number().transform((n) => `user${n}`)]).nullish(),
    text: Text.optional(),
    photo: z.string().optional(),
    file: z.string().optional(),
    file_name: z.string().optional(),
    media_type: z.string().optional(),
    mime_type: z.string().optional(),
    sticker_emoji: z.string().optional(),
    reply_to_message_id: z.number().optional(),
    forwarded_from: z.string().nullish(),
    edited_unixtime: timeField('s').optional(),
    via_bot: z.string().optional(),
    poll: z.looseObject({ question: z.string(), answers: z.array(z.looseObject({ text: z.string() })).optional() }).optional(),
    location_information: z.looseObject({ latitude: z.number(), longitude: z.number() }).optional(),
    place_name: z.string().optional(),
    contact_information: z
      .looseObject({ first_name: z.string().optional(), last_name: z.string().optional(), phone_number: z.string().optional() })
      .optional(),
  })
  .refine((m) => m.date !== undefined || m.date_unixtime !== undefined, {
    message: 'the message has neither "date" nor "date_unixtime"',
    path: ['date'],
  });
type Message = z.infer<typeof Message>;

const Owner = z.looseObject({ user_id: z.number().optional(), first_name: z.string().optional(), last_name: z.string().optional() });

/** Files the export left out say so in place of a path. */
const NOT_INCLUDED = /^\(File (not included|exceeds maximum size)/;

interface Chat {
  base: JsonPath;
  meta: Record<string, unknown>;
  messages: IncomingMessage[];
  skipped: number;
  hasMessages: boolean;
  localOnly: number;
  /** Parts of this chat already yielded (long chats come in parts: see parts.ts). */
  parts: number;
}

const CHAT_LISTS = new Set(['chats', 'left_chats']);
const isChat = (p: JsonPath) =>
  p.length === 0 || (p.length === 3 && CHAT_LISTS.has(p[0] as string) && p[1] === 'list' && typeof p[2] === 'number');
const key = (p: JsonPath) => JSON.stringify(p);

function plainText(t: z.infer<typeof Text> | undefined): string {
  if (t === undefined) return '';
  if (typeof t === 'string') return t;
  return t.map((x) => (typeof x === 'string' ? x : x.text)).join('');
}

function media(m: Message, dir: string): Attachment[] {
  const out: Attachment[] = [];
  const where = (p: string) =>
    NOT_INCLUDED.test(p) ? { uri: undefined, caption: 'not included in the export' } : { uri: path.resolve(dir, p), caption: undefined };
  if (m.photo) {
    const w = where(m.photo);
    out.push(
      attachment({
        kind: 'image',
        name: w.uri ? path.basename(m.photo) : undefined,
        uri: w.uri,
        mimeType: 'image/jpeg',
        caption: w.caption,
      }),
    );
  }
  if (m.file || m.media_type) {
    const w = m.file ? where(m.file) : { uri: undefined, caption: 'not included in the export' };
    const name = m.file_name ?? (w.uri ? path.basename(m.file!) : undefined);
    let kind: Attachment['kind'];
    switch (m.media_type) {
      case 'sticker':
        kind = 'sticker';
        break;
      case 'voice_message':
      case 'audio_file':
        kind = 'audio';
        break;
      case 'video_file':
      case 'video_message':
      case 'animation':
        kind = 'video';
        break;
      default:
        kind = mediaKind({ mimeType: m.mime_type, name });
    }
    const caption = m.media_type === 'sticker' ? m.sticker_emoji : w.caption;
    out.push(attachment({ kind, name, uri: w.uri, mimeType: m.mime_type, caption }));
  }
  return out;
}

/** Polls, places and shared contacts have no `text`; what was shared is still something said. */
function sharedText(m: Message): string[] {
  const out: string[] = [];
  if (m.poll) out.push(`[poll] ${m.poll.question}${m.poll.answers?.length ? ` — ${m.poll.answers.map((a) => a.text).join(' / ')}` : ''}`);
  if (m.location_information)
    out.push(`[location] ${m.place_name ? `${m.place_name} ` : ''}${m.location_information.latitude}, ${m.location_information.longitude}`);
  if (m.contact_information) {
    const c = m.contact_information;
    out.push(`[contact] ${[c.first_name, c.last_name].filter(Boolean).join(' ')} ${c.phone_number ?? ''}`.trim());
  }
  return out;
}

/** The message to keep, or null (counted as skipped) for service messages and empty ones. */
async function toMessage(
  src: JsonSource,
  chat: Chat,
  at: JsonPath,
  raw: unknown,
  owner: { id: string | null; name: string | null },
  ctx: ReadContext,
  timeZone: string,
): Promise<IncomingMessage | null> {
  const parsed = Message.safeParse(raw);
  if (!parsed.success) throw await shapeError(src, at, `message ${(raw as { id?: unknown } | null)?.id ?? at.at(-1)}`, parsed.error);
  const m = parsed.data;
  // Service messages are actions (joins, pins, calls, title changes), not something anyone said.
  if (m.type !== 'message') {
    chat.skipped++;
    return null;
  }
  const text = [plainText(m.text), ...sharedText(m)].filter((t) => t.trim()).join('\n');
  const attachments = media(m, path.dirname(src.file));
  if (!text.trim() && attachments.length === 0) {
    chat.skipped++;
    return null;
  }
  let sentAt: Date;
  let utcOffsetMin: number;
  if (m.date_unixtime !== undefined) {
    ({ at: sentAt, utcOffsetMin } = instantOf(m.date_unixtime, { timeZone, unit: 's' }).instant);
    if (m.date !== undefined) {
      // `date` is the same instant, on the exporting computer's clock or with its offset written out.
      const date = instantOf(m.date, { timeZone: 'UTC' });
      const off = date.exact
        ? instantOf(m.date, { timeZone }).instant.utcOffsetMin
        : Math.round((date.instant.at.getTime() - sentAt.getTime()) / 60000);
      if (Math.abs(off) <= 14 * 60) utcOffsetMin = off;
      else ctx.warn(`${src.file}: message ${m.id}: "date" and "date_unixtime" are ${off} minutes apart; offset ignored`);
    }
  } else {
    // Exports before 2021 have only the local time, read in the import's zone; converters write exact times.
    const date = instantOf(m.date!, { timeZone });
    ({ at: sentAt, utcOffsetMin } = date.instant);
    if (!date.exact) chat.localOnly++;
  }
  const metadata: Record<string, unknown> = {};
  if (m.reply_to_message_id !== undefined) metadata.replyTo = String(m.reply_to_message_id);
  if (m.forwarded_from) metadata.forwardedFrom = m.forwarded_from;
  if (m.edited_unixtime) metadata.editedAt = instantOf(m.edited_unixtime, { timeZone, unit: 's' }).instant.at.toISOString();
  if (m.via_bot) metadata.viaBot = m.via_bot;
  if (m.from_id) metadata.fromId = m.from_id;
  const isOwner = owner.id !== null && m.from_id === owner.id;
  const message: IncomingMessage = {
    externalId: String(m.id),
    speaker: m.from || (isOwner ? owner.name : null) || (m.from_id ? `Deleted Account (${m.from_id})` : 'Deleted Account'),
    role: isOwner ? 'user' : 'other',
    text,
    sentAt,
    utcOffsetMin,
    attachments,
    metadata,
  };
  await checkJsonMessage(src, at, `message ${m.id}`, message);
  return message;
}

function toConversation(chat: Chat, owner: { name: string | null }, timeZone: string): IncomingConversation {
  const { name, type, id } = chat.meta;
  const metadata: Record<string, unknown> = {
    skipped: chat.skipped,
    timeZone:
      chat.localOnly > 0
        ? `local times without a zone, read in ${timeZone}`
        : "offsets are the exporting computer's time zone (Telegram writes its local time next to the unix time)",
  };
  if (typeof type === 'string') metadata.type = type;
  if (owner.name) metadata.me = owner.name;
  if (chat.base.length > 0 && chat.base[0] === 'left_chats') metadata.left = true;
  if (chat.parts > 0) metadata.continued = true;
  const title = typeof name === 'string' && name ? name : type === 'saved_messages' ? 'Saved Messages' : undefined;
  return IncomingConversation.parse({
    source: 'telegram',
    externalId: id !== undefined && id !== null ? String(id) : (title ?? 'telegram-chat'),
    title,
    metadata,
    messages: chat.messages,
  });
}

async function* readTelegram(file: string, ctx: ReadContext): AsyncGenerator<IncomingConversation> {
  const src = fileSource(file);
  const timeZone = importTimeZone(ctx);
  const chats = new Map<string, Chat>();
  const owner: { id: string | null; name: string | null } = { id: null, name: null };
  let sawChat = false;
  const descend = (p: JsonPath, type: 'object' | 'array') =>
    (type === 'object' && (isChat(p) || (p.length === 1 && CHAT_LISTS.has(p[0] as string)))) ||
    (type === 'array' &&
      ((p.length === 2 && CHAT_LISTS.has(p[0] as string) && p[1] === 'list') || (p.at(-1) === 'messages' && isChat(p.slice(0, -1)))));

  for await (const ev of walkJson(src, descend)) {
    const p = ev.path;
    if (ev.kind === 'enter' && ev.type === 'object' && isChat(p)) {
      chats.set(key(p), { base: p, meta: {}, messages: [], skipped: 0, hasMessages: false, localOnly: 0, parts: 0 });
    } else if (ev.kind === 'enter' && ev.type === 'array' && p.at(-1) === 'messages') {
      chats.get(key(p.slice(0, -1)))!.hasMessages = true;
    } else if (ev.kind === 'value' && p.length === 0) {
      throw await valueError(src, [], 'expected a Telegram export object ({"name", "type", "messages"} or {"chats": {"list"}})');
    } else if (ev.kind === 'value') {
      if (p.length === 1 && p[0] === 'personal_information') {
        const o = Owner.safeParse(ev.value);
        if (o.success) {
          owner.id = o.data.user_id !== undefined ? `user${o.data.user_id}` : null;
          owner.name = [o.data.first_name, o.data.last_name].filter(Boolean).join(' ') || null;
        }
        continue;
      }
      const parent = p.slice(0, -1);
      const last = p.at(-1)!;
      if (typeof last === 'number' && parent.at(-1) === 'messages') {
        const chat = chats.get(key(parent.slice(0, -1)));
        const m = chat ? await toMessage(src, chat, p, ev.value, owner, ctx, timeZone) : null;
        if (chat && m) {
          if (partIsFull(chat.messages, m)) {
            yield toConversation(chat, owner, timeZone);
            chat.messages = [];
            chat.skipped = 0;
            chat.parts++;
          }
          chat.messages.push(m);
        }
      } else if (typeof last === 'string' && isChat(parent)) {
        const chat = chats.get(key(parent));
        if (chat) chat.meta[last] = ev.value;
      }
    } else if (ev.kind === 'exit' && ev.type === 'object' && isChat(p)) {
      const chat = chats.get(key(p))!;
      chats.delete(key(p));
      if (!chat.hasMessages) continue; // The account-export root: its chats were yielded one by one.
      sawChat = true;
      const c = toConversation(chat, owner, timeZone);
      if (c.messages.length > 0) yield c;
    }
  }
  if (!sawChat) throw await valueError(src, [], 'no chat with "messages" in this file; is it a Telegram Desktop JSON export?');
}

export const telegramImport: ImportFormat = {
  id: 'telegram',
  label: 'Telegram Desktop export (JSON)',
  detect: (file) =>
    jsonFileWith(file, /^\uFEFF?\s*\{/) &&
    (/"date_unixtime"\s*:/.test(file.head) ||
      /"personal_information"\s*:\s*\{/.test(file.head) ||
      /"type"\s*:\s*"(personal_chat|private_group|private_supergroup|public_supergroup|private_channel|public_channel|saved_messages|bot_chat)"/.test(
        file.head,
      )),
  read: readTelegram,
};
