import path from 'node:path';
import { z } from 'zod';
import { IncomingConversation, type Attachment, type IncomingMessage } from '../domain/conversation.js';
import { jsonFileWith, type ImportFormat, type ReadContext } from './import-format.js';
import { checkJsonMessage, fileSource, shapeError, valueError, walkMessages } from './json-stream.js';
import { attachment, mediaKind } from './media.js';
import { importTimeZone, instantOf, timeField } from './time-shapes.js';

/**
 * Facebook Messenger and Instagram DMs from "Download your information" in JSON: one folder per thread
 * with `message_1.json`, `message_2.json`, … (newest first, across and within files). Meta writes every
 * string as UTF-8 bytes escaped as if they were Latin-1 (`\u00e4\u00bd\u00a0` for 你): repaired here.
 * Every file of a thread carries the same `thread_path`, so importing them all builds one conversation.
 */

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Undoes "UTF-8 read as Latin-1": only when every unit fits in a byte and the bytes are valid UTF-8. */
export function repairMojibake(s: string): string {
  let high = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 0xff) return s; // Real Unicode already: never double-decode.
    if (c >= 0x80) high = true;
  }
  if (!high) return s;
  try {
    return utf8.decode(Buffer.from(s, 'latin1'));
  } catch {
    return s; // Genuine Latin-1 text (é in a file from another tool) is left alone.
  }
}

const fix = (s: string | null | undefined): string | undefined => (s == null ? undefined : repairMojibake(s));

const Media = z.array(z.looseObject({ uri: z.string().min(1) }));

/**
 * End-to-end encrypted chats (Messenger's default since 2024) come in their own download: one JSON file
 * per chat, camelCase keys, a flat `media` list, real UTF-8. Mapped onto the classic shape here.
 */
function fromE2ee(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null || !('senderName' in raw)) return raw;
  const m = raw as Record<string, unknown>;
  return {
    ...m,
    sender_name: m.senderName,
    timestamp_ms: m.timestamp,
    content: m.text,
    is_unsent: m.isUnsent,
    files: m.media,
    // `text`, `link` and the like are all speech here; calls and joins are not.
    type: m.type === 'call' ? 'Call' : undefined,
  };
}

const ClassicMessage = z.looseObject({
  sender_name: z.string().nullish(),
  timestamp_ms: timeField('ms'),
  content: z.string().nullish(),
  type: z.string().nullish(),
  photos: Media.nullish(),
  videos: Media.nullish(),
  audio_files: Media.nullish(),
  files: Media.nullish(),
  gifs: Media.nullish(),
  sticker: z.looseObject({ uri: z.string().min(1) }).nullish(),
  share: z.looseObject({ link: z.string().nullish(), share_text: z.string().nullish() }).nullish(),
  reactions: z.array(z.looseObject({ reaction: z.string(), actor: z.string() })).nullish(),
  is_unsent: z.boolean().nullish(),
});
const Message = z.preprocess(fromE2ee, ClassicMessage);
type Message = z.infer<typeof ClassicMessage>;

/** Not speech: calls, people added or leaving. (Generic and Share are messages.) */
const NOT_SPEECH = new Set(['Call', 'Subscribe', 'Unsubscribe']);

/**
 * Media URIs are relative to the export's root folder ("messages/inbox/…" or
 * "your_facebook_activity/messages/inbox/…"); the root is wherever that first folder sits above the file,
 * else the file's own folder.
 */
function resolveUri(uri: string, file: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(uri) || path.isAbsolute(uri)) return uri;
  const first = uri.split('/')[0]!;
  const dir = path.dirname(path.resolve(file));
  const parts = dir.split(path.sep);
  const at = parts.lastIndexOf(first);
  // Encrypted chats' media sit beside the chat's file.
  return at >= 0 ? path.join(parts.slice(0, at).join(path.sep) || path.sep, uri) : path.join(dir, uri);
}

function attachmentsOf(m: Message, file: string): Attachment[] {
  const out: Attachment[] = [];
  const add = (kind: Attachment['kind'] | null, list: { uri: string }[] | null | undefined) => {
    for (const a of list ?? [])
      out.push(attachment({ kind: kind ?? mediaKind({ name: a.uri }), name: path.posix.basename(a.uri), uri: resolveUri(a.uri, file) }));
  };
  add('image', m.photos);
  add('video', m.videos);
  add('audio', m.audio_files);
  add(null, m.files);
  add('image', m.gifs);
  if (m.sticker) add('sticker', [m.sticker]);
  if (m.share?.link) out.push(attachment({ kind: 'link', uri: m.share.link, caption: fix(m.share.share_text) }));
  return out;
}

/**
 * Instagram's DMs come from the same Accounts Center download in the same shape, under
 * `your_instagram_activity/messages/inbox/…` (older downloads: a media URI starting with it).
 */
function isInstagram(file: string, messages: IncomingMessage[]): boolean {
  if (path.resolve(file).split(path.sep).includes('your_instagram_activity')) return true;
  return messages.some((m) => m.attachments.some((a) => a.uri?.includes(`your_instagram_activity${path.sep}`)));
}

async function* readMessenger(file: string, ctx: ReadContext): AsyncGenerator<IncomingConversation> {
  const timeZone = importTimeZone(ctx);
  const sentAt = (v: string | number) => {
    const { at, utcOffsetMin } = instantOf(v, { timeZone, unit: 'ms' }).instant;
    return { sentAt: at, utcOffsetMin };
  };
  const src = fileSource(file);
  const meta: Record<string, unknown> = {};
  const messages: IncomingMessage[] = [];
  let skipped = 0;
  const found = { messages: false };
  for await (const ev of walkMessages(src, found)) {
    const [top, index] = ev.path;
    if (ev.path.length === 0) throw await valueError(src, [], 'expected a Messenger thread object ({"participants", "messages", …})');
    if (top !== 'messages' || typeof index !== 'number') {
      if (typeof top === 'string') meta[top] = ev.value;
      continue;
    }
    const parsed = Message.safeParse(ev.value);
    if (!parsed.success) throw await shapeError(src, ev.path, `message ${index + 1}`, parsed.error);
    const m = parsed.data;
    const text = fix(m.content) ?? '';
    const attachments = attachmentsOf(m, file);
    if ((m.type && NOT_SPEECH.has(m.type)) || m.is_unsent || (!text.trim() && attachments.length === 0)) {
      skipped++;
      continue;
    }
    const metadata: Record<string, unknown> = {};
    if (m.reactions?.length) metadata.reactions = m.reactions.map((r) => ({ reaction: fix(r.reaction), actor: fix(r.actor) }));
    const message: IncomingMessage = {
      // Meta gives messages no id: re-imports match them by speaker, time and text instead.
      speaker: fix(m.sender_name) || 'Facebook user',
      role: 'other',
      text,
      ...sentAt(m.timestamp_ms),
      attachments,
      metadata,
    };
    await checkJsonMessage(src, ev.path, `message ${index + 1}`, message);
    messages.push(message);
  }
  if (!found.messages) throw await valueError(src, [], 'no "messages" array here; is this a Messenger or Instagram message_N.json?');
  // Newest first in the file; a stable sort keeps same-millisecond messages in the order they were sent.
  messages.reverse().sort((a, b) => a.sentAt.getTime() - b.sentAt.getTime());
  if (messages.length === 0) return;

  // Classic: [{"name"}]; end-to-end encrypted: plain names.
  const participants = z.array(z.union([z.string(), z.looseObject({ name: z.string() })])).safeParse(meta.participants);
  const titleValue = meta.title ?? meta.threadName;
  const title = typeof titleValue === 'string' ? fix(titleValue) : undefined;
  const threadPath = typeof meta.thread_path === 'string' ? meta.thread_path : null;
  const names = participants.success ? participants.data.map((p) => fix(typeof p === 'string' ? p : p.name)!) : [];
  const part = /message_(\d+)\.json$/i.exec(file)?.[1];
  // Without thread_path, a classic thread is its folder (as Meta names it); an encrypted chat is its file.
  const externalId =
    threadPath ?? (part ? path.basename(path.dirname(path.resolve(file))) : `e2ee/${path.basename(file, path.extname(file))}`);
  const metadata: Record<string, unknown> = { skipped, timeZone: 'UTC (the export has no time zone)' };
  if (part) metadata.part = Number(part);
  if (typeof meta.thread_type === 'string') metadata.threadType = meta.thread_type;
  if (typeof meta.is_still_participant === 'boolean') metadata.isStillParticipant = meta.is_still_participant;
  yield IncomingConversation.parse({
    source: isInstagram(file, messages) ? 'instagram' : 'messenger',
    externalId,
    title,
    participants: names,
    metadata,
    messages,
  });
}

export const messengerImport: ImportFormat = {
  id: 'messenger',
  label: 'Facebook Messenger / Instagram (JSON)',
  detect: (file) =>
    jsonFileWith(file, /"participants"\s*:/) &&
    (/"sender_name"\s*:|"timestamp_ms"\s*:|"senderName"\s*:|"threadName"\s*:/.test(file.head) ||
      /^message_\d+\.json$/i.test(path.basename(file.path))),
  read: readMessenger,
};
