import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { IncomingConversation, type Attachment, type IncomingMessage } from '../domain/conversation.js';
import type { ImportFormat, ReadContext } from './import-format.js';
import {
  checkJsonMessage,
  fileSource,
  shapeError,
  valueError,
  walkJson,
  zipMemberSource,
  type JsonPath,
  type JsonSource,
} from './json-stream.js';
import { attachment, mediaKind } from './media.js';
import { partIsFull } from './parts.js';
import { importTimeZone, readTime } from './time-shapes.js';
import { checkTimeZone, offsetAt } from './local-time.js';
import { looksLikeZip, openZipReader, zipEntryNamesSync, zipError } from './zip.js';

/**
 * Slack workspace export (Workspace settings → Import/Export data → Export): a zip with `users.json`,
 * `channels.json` (and for plans that include them `groups.json`, `dms.json`, `mpims.json`) and one
 * folder per conversation holding a JSON file per day. One conversation per channel; day files are
 * streamed one message at a time. Also accepted: the `channels.json` of an export already unzipped.
 */

const LISTS = [
  { file: 'channels.json', kind: 'channel' },
  { file: 'groups.json', kind: 'private' },
  { file: 'mpims.json', kind: 'group-dm' },
  { file: 'dms.json', kind: 'dm' },
] as const;

const ChannelInfo = z.looseObject({
  id: z.string().min(1),
  name: z.string().nullish(),
  members: z.array(z.string()).nullish(),
  topic: z.looseObject({ value: z.string().nullish() }).nullish(),
  purpose: z.looseObject({ value: z.string().nullish() }).nullish(),
  is_archived: z.boolean().nullish(),
});

const User = z.looseObject({
  id: z.string().min(1),
  name: z.string().nullish(),
  real_name: z.string().nullish(),
  profile: z.looseObject({ real_name: z.string().nullish(), display_name: z.string().nullish() }).nullish(),
  tz: z.string().nullish(),
  tz_offset: z.number().nullish(),
});

const Ts = z
  .string()
  .regex(/^\d+(\.\d+)?$/, 'expected a Slack timestamp like "1712345678.123456"')
  .refine((ts) => readTime(ts, { timeZone: 'UTC', unit: 's' }).ok, 'a Slack timestamp between 1900 and 2199');

const Message = z.looseObject({
  type: z.string().nullish(),
  subtype: z.string().nullish(),
  ts: Ts,
  user: z.string().nullish(),
  username: z.string().nullish(),
  bot_id: z.string().nullish(),
  text: z.string().nullish(),
  client_msg_id: z.string().nullish(),
  thread_ts: Ts.nullish(),
  reply_count: z.number().nullish(),
  user_profile: z
    .looseObject({ real_name: z.string().nullish(), display_name: z.string().nullish(), name: z.string().nullish() })
    .nullish(),
  files: z
    .array(
      z.looseObject({
        name: z.string().nullish(),
        title: z.string().nullish(),
        mimetype: z.string().nullish(),
        url_private: z.string().nullish(),
        permalink: z.string().nullish(),
        mode: z.string().nullish(),
      }),
    )
    .nullish(),
  attachments: z
    .array(
      z.looseObject({
        title: z.string().nullish(),
        title_link: z.string().nullish(),
        from_url: z.string().nullish(),
        original_url: z.string().nullish(),
        text: z.string().nullish(),
        fallback: z.string().nullish(),
      }),
    )
    .nullish(),
  edited: z.looseObject({ ts: Ts.nullish() }).nullish(),
  reactions: z.array(z.looseObject({ name: z.string(), count: z.number().nullish() })).nullish(),
});
type Message = z.infer<typeof Message>;

/** Subtypes that are something a person (or a bot) said; joins, topic changes, pins, huddles… are not. */
const SPEECH = new Set(['thread_broadcast', 'me_message', 'file_share', 'bot_message', 'file_comment', 'reply_broadcast']);

interface SlackUser {
  name: string;
  tz: string | null;
  tzOffsetMin: number | null;
}

/** The files of an export, zipped or unzipped, by their path relative to the export root. */
interface Archive {
  names: string[];
  source(name: string): JsonSource;
  close(): void;
}

async function openArchive(file: string): Promise<Archive> {
  if (path.extname(file).toLowerCase() === '.zip') {
    const zip = await openZipReader(file);
    const names = zip.entries.map((e) => e.name).filter((n) => !n.startsWith('__MACOSX/'));
    // Re-zipped exports often sit in one top folder: treat it as the root.
    const marker = names.filter((n) => /(^|\/)(channels|users)\.json$/.test(n)).sort((a, b) => a.length - b.length)[0];
    if (!marker) {
      zip.close();
      throw zipError(file, null, 'the archive has no channels.json or users.json; is it a Slack export?');
    }
    const root = marker.slice(0, marker.lastIndexOf('/') + 1);
    return {
      names: names.filter((n) => n.startsWith(root)).map((n) => n.slice(root.length)),
      source: (name) => zipMemberSource(file, root + name, zip),
      close: () => zip.close(),
    };
  }
  const root = path.dirname(path.resolve(file));
  const names: string[] = [];
  for (const e of fs.readdirSync(root, { withFileTypes: true })) {
    if (e.isFile() && e.name.endsWith('.json')) names.push(e.name);
    if (e.isDirectory()) for (const f of fs.readdirSync(path.join(root, e.name))) if (f.endsWith('.json')) names.push(`${e.name}/${f}`);
  }
  return { names, source: (name) => fileSource(path.join(root, ...name.split('/'))), close: () => {} };
}

/** The elements of a small top-level array (users.json, channels.json), each validated. */
async function readList<T>(src: JsonSource, schema: z.ZodType<T>, what: string): Promise<T[]> {
  const out: T[] = [];
  for await (const ev of walkJson(src, (p, type) => p.length === 0 && type === 'array')) {
    if (ev.kind !== 'value') continue;
    if (ev.path.length === 0) throw await valueError(src, [], `expected an array of ${what}s`);
    const parsed = schema.safeParse(ev.value);
    if (!parsed.success) throw await shapeError(src, ev.path, `${what} ${(ev.path[0] as number) + 1}`, parsed.error);
    out.push(parsed.data);
  }
  return out;
}

const knownZones = new Map<string, boolean>();

/** Minutes east of UTC in a sender's IANA zone at an instant; null for a zone Intl does not know. */
function zoneOffset(zone: string, at: Date): number | null {
  let known = knownZones.get(zone);
  if (known === undefined) {
    try {
      checkTimeZone(zone);
      known = true;
    } catch {
      known = false;
    }
    knownZones.set(zone, known);
  }
  return known ? offsetAt(at, zone) : null;
}

/** "1712345678.123456" → the instant, to the millisecond (string arithmetic: floats lose the microseconds' digits). */
function tsToDate(ts: string): Date {
  const [s, frac = ''] = ts.split('.');
  return new Date(Number(s) * 1000 + Number(frac.padEnd(3, '0').slice(0, 3)));
}

function compareTs(a: string, b: string): number {
  const [as, af = ''] = a.split('.');
  const [bs, bf = ''] = b.split('.');
  return Number(as) - Number(bs) || Number(af.padEnd(6, '0')) - Number(bf.padEnd(6, '0'));
}

/** Slack's markup → what a person read: mentions by name, links by label, HTML entities decoded. */
function renderText(text: string, users: Map<string, SlackUser>, channels: Map<string, string>): string {
  return text
    .replace(/<([^<>]+)>/g, (_all, inner: string) => {
      const [target, label] = inner.split('|', 2) as [string, string | undefined];
      if (target.startsWith('@')) return `@${label ?? users.get(target.slice(1))?.name ?? target.slice(1)}`;
      if (target.startsWith('#')) return `#${label ?? channels.get(target.slice(1)) ?? target.slice(1)}`;
      if (target.startsWith('!')) return label ?? `@${target.slice(1).split('^')[0]}`;
      if (target.startsWith('mailto:')) return label ?? target.slice(7);
      return label && label !== target ? `${label} (${target})` : target;
    })
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

function attachmentsOf(m: Message): Attachment[] {
  const out: Attachment[] = [];
  for (const f of m.files ?? []) {
    // Files deleted, or beyond a free plan's limit, are placeholders without a name.
    if (f.mode === 'tombstone' || f.mode === 'hidden_by_limit') continue;
    out.push(
      attachment({
        kind: mediaKind({ mimeType: f.mimetype, name: f.name }),
        name: f.name ?? f.title,
        mimeType: f.mimetype,
        uri: f.url_private ?? f.permalink,
      }),
    );
  }
  for (const a of m.attachments ?? []) {
    const uri = a.from_url ?? a.title_link ?? a.original_url;
    if (uri) out.push(attachment({ kind: 'link', uri, caption: a.title }));
  }
  return out;
}

/** One day file's messages worth keeping, in time order, and how many were not speech. */
async function readDay(
  src: JsonSource,
  users: Map<string, SlackUser>,
  channels: Map<string, string>,
  timeZone: string,
): Promise<{ messages: IncomingMessage[]; skipped: number }> {
  const state = { messages: [] as IncomingMessage[], skipped: 0 };
  const day: { m: Message; ts: string; at: JsonPath }[] = [];
  for await (const ev of walkJson(src, (p, type) => p.length === 0 && type === 'array')) {
    if (ev.kind !== 'value') continue;
    if (ev.path.length === 0) throw await valueError(src, [], 'expected an array of messages');
    const parsed = Message.safeParse(ev.value);
    if (!parsed.success) throw await shapeError(src, ev.path, `message ${(ev.path[0] as number) + 1}`, parsed.error);
    day.push({ m: parsed.data, ts: parsed.data.ts, at: ev.path });
  }
  day.sort((a, b) => compareTs(a.ts, b.ts));
  for (const { m, at } of day) {
    if ((m.type && m.type !== 'message') || (m.subtype && !SPEECH.has(m.subtype))) {
      state.skipped++;
      continue;
    }
    const attachments = attachmentsOf(m);
    let text = renderText(m.text ?? '', users, channels);
    // Bots often post only attachments whose text is the message.
    if (!text.trim())
      text = (m.attachments ?? [])
        .map((a) => a.text ?? a.fallback ?? '')
        .filter(Boolean)
        .join('\n');
    if (!text.trim() && attachments.length === 0) {
      state.skipped++;
      continue;
    }
    const user = m.user ? users.get(m.user) : undefined;
    const sentAt = tsToDate(m.ts);
    // users.json gives each person's zone: their local offset at that instant (DST included).
    // Without one (a bot, a deactivated account), the import's zone, as for any time written in UTC.
    const utcOffsetMin = (user?.tz ? zoneOffset(user.tz, sentAt) : null) ?? user?.tzOffsetMin ?? offsetAt(sentAt, timeZone);
    const metadata: Record<string, unknown> = {};
    if (m.user) metadata.userId = m.user;
    if (m.subtype) metadata.subtype = m.subtype;
    if (m.thread_ts) {
      metadata.threadTs = m.thread_ts;
      if (m.thread_ts !== m.ts) metadata.threadReply = true;
    }
    if (m.reply_count) metadata.replyCount = m.reply_count;
    if (m.edited?.ts) metadata.editedAt = tsToDate(m.edited.ts).toISOString();
    if (m.reactions?.length) metadata.reactions = m.reactions.map((r) => ({ name: r.name, count: r.count ?? 1 }));
    const message: IncomingMessage = {
      externalId: m.client_msg_id ?? m.ts,
      speaker: m.user_profile?.real_name || user?.name || m.username || m.user_profile?.name || m.user || m.bot_id || 'Slack',
      role: 'other',
      text,
      sentAt,
      utcOffsetMin,
      attachments,
      metadata,
    };
    await checkJsonMessage(src, at, `message ${(at[0] as number) + 1}`, message);
    state.messages.push(message);
  }
  return state;
}

async function* readSlack(file: string, ctx: ReadContext): AsyncGenerator<IncomingConversation> {
  const timeZone = importTimeZone(ctx);
  const archive = await openArchive(file);
  try {
    const users = new Map<string, SlackUser>();
    if (archive.names.includes('users.json')) {
      for (const u of await readList(archive.source('users.json'), User, 'user')) {
        users.set(u.id, {
          name: u.real_name || u.profile?.real_name || u.profile?.display_name || u.name || u.id,
          tz: u.tz ?? null,
          tzOffsetMin: typeof u.tz_offset === 'number' ? Math.round(u.tz_offset / 60) : null,
        });
      }
    }
    type Listed = z.infer<typeof ChannelInfo> & { kind: (typeof LISTS)[number]['kind']; folder: string };
    const listed: Listed[] = [];
    for (const l of LISTS) {
      if (!archive.names.includes(l.file)) continue;
      for (const c of await readList(archive.source(l.file), ChannelInfo, 'channel')) {
        listed.push({ ...c, kind: l.kind, folder: l.kind === 'dm' ? c.id : (c.name ?? c.id) });
      }
    }
    const channelNames = new Map(listed.map((c) => [c.id, c.name ?? c.id]));
    const dayFiles = new Map<string, string[]>();
    for (const n of archive.names) {
      const m = /^([^/]+)\/(\d{4}-\d{2}-\d{2})\.json$/.exec(n);
      if (m) dayFiles.set(m[1]!, [...(dayFiles.get(m[1]!) ?? []), n]);
    }
    // Folders no list mentions (a partial export) are still conversations, named by their folder.
    for (const folder of dayFiles.keys()) {
      if (!listed.some((c) => c.folder === folder)) {
        ctx.warn(`${file}: folder "${folder}" is not in channels.json; imported under its folder name`);
        listed.push({ id: folder, name: folder, kind: 'channel', folder });
      }
    }
    for (const c of listed) {
      const days = (dayFiles.get(c.folder) ?? []).sort();
      if (days.length === 0) continue;
      let messages: IncomingMessage[] = [];
      let skipped = 0;
      let parts = 0;
      const memberNames = (c.members ?? []).map((id) => users.get(id)?.name ?? id);
      const title = c.kind === 'dm' || c.kind === 'group-dm' ? memberNames.join(', ') || c.name || c.id : `#${c.name ?? c.id}`;
      const part = (): IncomingConversation => {
        const metadata: Record<string, unknown> = {
          skipped,
          kind: c.kind,
          timeZone: `each sender's time zone from users.json at the message's time; ${timeZone} when unknown`,
        };
        if (c.name) metadata.channelName = c.name;
        if (c.topic?.value) metadata.topic = c.topic.value;
        if (c.purpose?.value) metadata.purpose = c.purpose.value;
        if (c.is_archived) metadata.archived = true;
        if (parts++ > 0) metadata.continued = true;
        return IncomingConversation.parse({
          source: 'slack',
          externalId: c.id,
          title,
          participants: memberNames,
          metadata,
          messages,
        });
      };
      for (const d of days) {
        const day = await readDay(archive.source(d), users, channelNames, timeZone);
        skipped += day.skipped;
        for (const m of day.messages) {
          if (partIsFull(messages, m)) {
            yield part();
            messages = [];
            skipped = 0;
          }
          messages.push(m);
        }
      }
      if (messages.length > 0) yield part();
    }
  } finally {
    archive.close();
  }
}

function isSlackNames(names: readonly string[]): boolean {
  return names.some((n) => /(^|\/)(channels|users)\.json$/.test(n)) && names.some((n) => /(^|\/)[^/]+\/\d{4}-\d{2}-\d{2}\.json$/.test(n));
}

export const slackImport: ImportFormat = {
  id: 'slack',
  label: 'Slack export',
  detect: ({ path: p, head }) => {
    if (path.extname(p).toLowerCase() === '.zip') return looksLikeZip(head) && isSlackNames(zipEntryNamesSync(p) ?? []);
    // An unzipped export, pointed at by its channels.json.
    if (path.basename(p) !== 'channels.json' || !/^\s*\[/.test(head)) return false;
    const dir = path.dirname(p);
    return fs.existsSync(path.join(dir, 'users.json'));
  },
  read: readSlack,
};
