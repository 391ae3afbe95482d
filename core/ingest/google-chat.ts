import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { IncomingConversation, type IncomingMessage } from '../domain/conversation.js';
import { normalizeSpaces } from './chat-text.js';
import { jsonFileWith, type ImportFormat, type ReadContext } from './import-format.js';
import { checkJsonMessage, fileSource, shapeError, valueError, walkMessages } from './json-stream.js';
import { attachment, mediaKind } from './media.js';
import { partIsFull } from './parts.js';
import { importTimeZone, readTime, type Instant } from './time-shapes.js';

/**
 * Google Chat (and Hangouts since it moved there) from Google Takeout → "Google Chat": one folder per
 * direct message or space under `Google Chat/Groups/`, each with `messages.json` (the messages, oldest
 * first), `group_info.json` (the space's name and members) and the attached files under their
 * `export_name`. Times are written for people: "Tuesday, March 5, 2024 at 2:30:15 PM UTC".
 */

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const TAKEOUT_TIME = /^(?:[A-Za-z]+, )?([A-Za-z]+) (\d{1,2}), (\d{4}) at (\d{1,2}):(\d{2}):(\d{2}) ?([AP]M) UTC$/;

/** Takeout's written-out time, or any shape time-shapes reads (converted exports). */
function readGoogleTime(value: string, timeZone: string): { ok: true; instant: Instant } | { ok: false; problem: string } {
  const m = TAKEOUT_TIME.exec(normalizeSpaces(value).trim());
  if (!m) {
    const r = readTime(value, { timeZone });
    return r.ok ? r : { ok: false, problem: `"${value}" is not a time like "Tuesday, March 5, 2024 at 2:30:15 PM UTC"` };
  }
  const month = MONTHS.indexOf(m[1]!.toLowerCase()) + 1;
  const hour12 = Number(m[4]);
  const hour = (hour12 % 12) + (m[7] === 'PM' ? 12 : 0);
  if (month === 0 || hour12 < 1 || hour12 > 12) return { ok: false, problem: `"${value}" is not a real date and time` };
  const iso = `${m[3]}-${String(month).padStart(2, '0')}-${m[2]!.padStart(2, '0')}T${String(hour).padStart(2, '0')}:${m[5]}:${m[6]}Z`;
  const r = readTime(iso, { timeZone });
  return r.ok ? r : { ok: false, problem: `"${value}" is not a real date and time` };
}

const TimeText = z.string().superRefine((v, ctx) => {
  const r = readGoogleTime(v, 'UTC');
  if (!r.ok) ctx.addIssue({ code: 'custom', message: r.problem });
});

const Message = z.looseObject({
  creator: z.looseObject({ name: z.string().nullish(), email: z.string().nullish(), user_type: z.string().nullish() }).nullish(),
  created_date: TimeText,
  text: z.string().nullish(),
  message_id: z.string().nullish(),
  topic_id: z.string().nullish(),
  message_state: z.string().nullish(),
  attached_files: z.array(z.looseObject({ original_name: z.string().nullish(), export_name: z.string().nullish() })).nullish(),
});

const GroupInfo = z.looseObject({
  name: z.string().nullish(),
  members: z.array(z.looseObject({ name: z.string().nullish(), email: z.string().nullish() })).nullish(),
});

function groupInfo(dir: string): z.infer<typeof GroupInfo> | null {
  try {
    const parsed = GroupInfo.safeParse(JSON.parse(fs.readFileSync(path.join(dir, 'group_info.json'), 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null; // No group_info.json (a copied messages.json): the folder and the senders stand in.
  }
}

async function* readGoogleChat(file: string, ctx: ReadContext): AsyncGenerator<IncomingConversation> {
  const timeZone = importTimeZone(ctx);
  const src = fileSource(file);
  const dir = path.dirname(path.resolve(file));
  const info = groupInfo(dir);
  const members = (info?.members ?? []).map((m) => m.name ?? m.email ?? '').filter(Boolean);
  // The folder is "DM abc…" or "Space abc…": the group's id in Takeout, stable across exports.
  const externalId = path.basename(dir);
  let messages: IncomingMessage[] = [];
  let skipped = 0;
  let parts = 0;
  const found = { messages: false };
  const conversation = (): IncomingConversation => {
    const metadata: Record<string, unknown> = { skipped, timeZone: 'UTC (Takeout writes times in UTC)' };
    if (parts > 0) metadata.continued = true;
    if (externalId.startsWith('DM ')) metadata.directMessage = true;
    return IncomingConversation.parse({
      source: 'google-chat',
      externalId,
      title: info?.name || (members.length > 0 ? members.join(', ') : undefined),
      participants: members,
      metadata,
      messages,
    });
  };
  for await (const ev of walkMessages(src, found)) {
    if (ev.path.length === 0) throw await valueError(src, [], 'expected a Google Chat messages.json object ({"messages": […]})');
    const [top, index] = ev.path;
    if (top !== 'messages' || typeof index !== 'number') continue;
    const parsed = Message.safeParse(ev.value);
    if (!parsed.success) throw await shapeError(src, ev.path, `message ${index + 1}`, parsed.error);
    const m = parsed.data;
    const attachments = (m.attached_files ?? []).map((f) =>
      attachment({
        kind: mediaKind({ name: f.original_name ?? f.export_name }),
        name: f.original_name ?? f.export_name,
        uri: f.export_name ? path.join(dir, f.export_name) : undefined,
      }),
    );
    const text = m.text ?? '';
    if (m.message_state === 'DELETED' || (!text.trim() && attachments.length === 0)) {
      skipped++;
      continue;
    }
    const when = readGoogleTime(m.created_date, timeZone);
    if (!when.ok) throw await valueError(src, [...ev.path, 'created_date'], `message ${index + 1}: ${when.problem}`);
    const metadata: Record<string, unknown> = {};
    if (m.topic_id) metadata.topicId = m.topic_id;
    if (m.creator?.email) metadata.email = m.creator.email;
    if (m.creator?.user_type && m.creator.user_type !== 'Human') metadata.userType = m.creator.user_type;
    const message: IncomingMessage = {
      ...(m.message_id ? { externalId: m.message_id } : {}),
      speaker: m.creator?.name || m.creator?.email || 'Google Chat user',
      role: 'other',
      text,
      sentAt: when.instant.at,
      utcOffsetMin: when.instant.utcOffsetMin,
      attachments,
      metadata,
    };
    await checkJsonMessage(src, ev.path, `message ${index + 1}`, message);
    if (partIsFull(messages, message)) {
      yield conversation();
      messages = [];
      skipped = 0;
      parts++;
    }
    messages.push(message);
  }
  if (!found.messages) throw await valueError(src, [], 'no "messages" array here; is this a Google Chat messages.json from Takeout?');
  if (messages.length > 0) yield conversation();
}

export const googleChatImport: ImportFormat = {
  id: 'google-chat',
  label: 'Google Chat / Hangouts (Takeout messages.json)',
  detect: (file) => jsonFileWith(file, /"creator"\s*:/, /"created_date"\s*:/),
  read: readGoogleChat,
};
