import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { IncomingConversation, type IncomingMessage } from '../domain/conversation.js';
import { NemoriError } from '../domain/errors.js';
import type { ImportFormat, ReadContext } from './import-format.js';
import { checkJsonMessage, fileSource, shapeError, valueError, walkJson, type JsonPath, type JsonSource } from './json-stream.js';
import { attachment, mediaKind } from './media.js';
import { tarEntriesSync } from './tar.js';
import { importTimeZone, instantOf, timeField } from './time-shapes.js';

/**
 * Skype → "Export files" (go.skype.com/export): a `…_export.tar` holding `messages.json` (and the
 * media, when asked for). The file lists every conversation with its `MessageList` (newest first);
 * message content is Skype's small HTML (bold, quotes, emoticons, file cards). Read from the tar as it
 * is, or from the messages.json taken out of it.
 */

const Message = z.looseObject({
  id: z.string().min(1),
  displayName: z.string().nullish(),
  originalarrivaltime: timeField(),
  messagetype: z.string(),
  content: z.string().nullish(),
  from: z.string(),
  properties: z.looseObject({ deletetime: z.unknown().optional() }).nullish(),
});
type Message = z.infer<typeof Message>;

const ThreadProperties = z.looseObject({ topic: z.string().nullish() }).nullish();

/** Message types that are speech; files and pictures come as cards. Calls, joins, topic changes are not. */
const SPEECH = new Set(['Text', 'RichText']);
const MEDIA = /^RichText\/(UriObject|Media_|Files)/;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(s: string): string {
  return s.replace(/&(#x?[0-9a-f]+|[a-z]+);/gi, (whole, e: string) => {
    if (e[0] === '#') {
      const n = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(n) && n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : whole;
    }
    return ENTITIES[e.toLowerCase()] ?? whole;
  });
}

/** Skype's HTML as the chat shows it: quotes keep their text, edit markers and legacy quote headers go. */
export function skypeText(html: string): string {
  const plain = html
    .replace(/<legacyquote>[\s\S]*?<\/legacyquote>/gi, '')
    .replace(/<e_m\b[^>]*\/?>(<\/e_m>)?/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<[^>]+>/g, '');
  return decodeEntities(plain).trim();
}

/** "8:live:.cid.1a2b" → "live:.cid.1a2b": the prefix is the network, not part of the name. */
const shortId = (id: string) => id.replace(/^\d+:/, '');

function fileCard(m: Message): { name: string | undefined; kind: ReturnType<typeof mediaKind> } {
  const content = m.content ?? '';
  const name = /<OriginalName\s+v="([^"]*)"/i.exec(content)?.[1] ?? /<meta\s+type="photo"\s+originalName="([^"]*)"/i.exec(content)?.[1];
  const kind = /UriObject|Picture/i.test(m.messagetype) ? 'image' : mediaKind({ name });
  return { name: name ? decodeEntities(name) : undefined, kind };
}

interface Conversation {
  meta: Record<string, unknown>;
  messages: Array<{ at: JsonPath; m: Message }>;
}

async function toConversation(src: JsonSource, c: Conversation, me: string | null, timeZone: string): Promise<IncomingConversation | null> {
  const id = typeof c.meta.id === 'string' ? c.meta.id : null;
  if (!id) return null;
  const displayName = typeof c.meta.displayName === 'string' && c.meta.displayName ? c.meta.displayName : null;
  const topic = ThreadProperties.safeParse(c.meta.threadProperties);
  const names = new Map<string, string>();
  // A 1:1 conversation's id is the other person; its displayName is their name.
  if (displayName && !id.startsWith('19:')) names.set(id, displayName);
  for (const { m } of c.messages) if (m.displayName) names.set(m.from, m.displayName);
  const messages: IncomingMessage[] = [];
  let skipped = 0;
  for (const { at, m } of c.messages) {
    const media = MEDIA.test(m.messagetype);
    if ((!SPEECH.has(m.messagetype) && !media) || m.properties?.deletetime !== undefined) {
      skipped++;
      continue;
    }
    const card = media ? fileCard(m) : null;
    const text = media ? '' : skypeText(m.content ?? '');
    if (!text && !card) {
      skipped++;
      continue;
    }
    const when = instantOf(m.originalarrivaltime, { timeZone }).instant;
    const message: IncomingMessage = {
      externalId: m.id,
      speaker: names.get(m.from) ?? shortId(m.from),
      role: me !== null && m.from === me ? 'user' : 'other',
      text,
      sentAt: when.at,
      utcOffsetMin: when.utcOffsetMin,
      attachments: card ? [attachment({ kind: card.kind, name: card.name })] : [],
      metadata: { skypeId: m.from },
    };
    await checkJsonMessage(src, at, `message ${m.id}`, message);
    messages.push(message);
  }
  if (messages.length === 0) return null;
  // Newest first in the file; a stable sort keeps same-millisecond messages as they were.
  messages.reverse().sort((a, b) => a.sentAt.getTime() - b.sentAt.getTime());
  const metadata: Record<string, unknown> = { skipped, timeZone: 'UTC (Skype writes times in UTC)' };
  if (id.startsWith('19:')) metadata.group = true;
  return IncomingConversation.parse({
    source: 'skype',
    externalId: id,
    title: (topic.success && topic.data?.topic) || displayName || shortId(id),
    metadata,
    messages,
  });
}

const isConversation = (p: JsonPath) => p.length === 2 && p[0] === 'conversations' && typeof p[1] === 'number';

async function* readSkypeJson(src: JsonSource, ctx: ReadContext): AsyncGenerator<IncomingConversation> {
  const timeZone = importTimeZone(ctx);
  let me: string | null = null;
  let current: Conversation | null = null;
  let sawConversations = false;
  const descend = (p: JsonPath, type: 'object' | 'array') =>
    (p.length === 0 && type === 'object') ||
    (p.length === 1 && p[0] === 'conversations' && type === 'array') ||
    (isConversation(p) && type === 'object') ||
    (p.length === 3 && isConversation(p.slice(0, 2)) && p[2] === 'MessageList' && type === 'array');
  for await (const ev of walkJson(src, descend)) {
    const p = ev.path;
    if (ev.kind === 'enter' && p.length === 1) sawConversations = true;
    if (ev.kind === 'enter' && isConversation(p)) current = { meta: {}, messages: [] };
    else if (ev.kind === 'exit' && isConversation(p) && current) {
      const c = await toConversation(src, current, me, timeZone);
      current = null;
      if (c) yield c;
    } else if (ev.kind === 'value') {
      if (p.length === 0) throw await valueError(src, [], 'expected a Skype export object ({"userId", "conversations"})');
      if (p.length === 1 && p[0] === 'userId' && typeof ev.value === 'string') me = ev.value;
      else if (p.length === 3 && current && isConversation(p.slice(0, 2))) current.meta[p[2] as string] = ev.value;
      else if (p.length === 4 && current && p[2] === 'MessageList') {
        const parsed = Message.safeParse(ev.value);
        if (!parsed.success) throw await shapeError(src, p, `message ${(p[3] as number) + 1}`, parsed.error);
        current.messages.push({ at: p, m: parsed.data });
      }
    }
  }
  if (!sawConversations) throw await valueError(src, [], 'no "conversations" here; is this the messages.json of a Skype export?');
}

function tarSource(file: string): JsonSource {
  const entry = tarEntriesSync(file)?.find((e) => path.posix.basename(e.name) === 'messages.json');
  if (!entry)
    throw new NemoriError('IMPORT_PARSE', `${file}: line 1: this archive has no messages.json; is it a Skype export?`, { file, line: 1 });
  return {
    file,
    member: entry.name,
    open: async () => fs.createReadStream(file, { start: entry.start, end: entry.start + entry.size - 1, highWaterMark: 256 * 1024 }),
  };
}

export const skypeImport: ImportFormat = {
  id: 'skype',
  label: 'Skype export (messages.json, or the export .tar)',
  detect: ({ path: p, head }) => {
    const ext = path.extname(p).toLowerCase();
    if (ext === '.tar') return (tarEntriesSync(p) ?? []).some((e) => path.posix.basename(e.name) === 'messages.json');
    return ext === '.json' && /"conversations"\s*:/.test(head) && (/"MessageList"\s*:/.test(head) || /"exportDate"\s*:/.test(head));
  },
  read: (file, ctx) => readSkypeJson(path.extname(file).toLowerCase() === '.tar' ? tarSource(file) : fileSource(file), ctx),
};
