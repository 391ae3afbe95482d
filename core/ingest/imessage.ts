import path from 'node:path';
import { IncomingConversation, type Attachment, type IncomingMessage } from '../domain/conversation.js';
import { NemoriError } from '../domain/errors.js';
import { openMessagesDb } from '../store/messages-db.js';
import type { ImportFormat, ReadContext } from './import-format.js';
import { offsetAt } from './local-time.js';
import { attachment, mediaKind } from './media.js';
import { messageProblem } from './message-checks.js';
import { EARLIEST_MESSAGE_MS, LATEST_MESSAGE_MS, importTimeZone } from './time-shapes.js';

/**
 * iMessage and SMS on a Mac: `~/Library/Messages/chat.db` (or a copy of it), read through
 * core/store/messages-db.ts. One
 * conversation per chat; handles (phone numbers, e-mail addresses) are the speakers, the person is
 * `me`. Newer macOS leaves `text` empty and keeps the words in `attributedBody` (an archived
 * NSAttributedString), read here. Times count from 2001-01-01 (seconds, nanoseconds since 10.13).
 *
 * Reading the live database needs Full Disk Access for the app (System Settings → Privacy & Security);
 * without it macOS refuses to open the file, and the error says so.
 */

const APPLE_EPOCH_MS = Date.UTC(2001, 0, 1);
/** `associated_message_type` of tapbacks (2000–2005) and their removal (3000–3005): reactions, not speech. */
const FIRST_REACTION_TYPE = 2000;
const OBJECT_REPLACEMENT = '\ufffc';

/** Apple time (seconds, or nanoseconds since macOS 10.13) → unix milliseconds. */
export function appleTime(value: number): number {
  return APPLE_EPOCH_MS + (Math.abs(value) > 1e11 ? value / 1e6 : value * 1000);
}

/**
 * The plain text of an archived NSAttributedString: the NSString's bytes follow the class name, a
 * 5-byte header and a length (one byte; 0x81 + two bytes; 0x82 + four bytes, little-endian).
 */
export function attributedBodyText(blob: Uint8Array): string | null {
  const buf = Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength);
  const at = buf.indexOf('NSString');
  if (at < 0) return null;
  let i = at + 'NSString'.length + 5;
  let length = buf[i++];
  if (length === undefined) return null;
  if (length === 0x81) {
    length = buf.readUInt16LE(i);
    i += 2;
  } else if (length === 0x82) {
    length = buf.readUInt32LE(i);
    i += 4;
  }
  if (i + length > buf.length) return null;
  return buf.subarray(i, i + length).toString('utf8');
}

function resolveAttachment(filename: string | null): string | undefined {
  if (!filename) return undefined;
  // Apple stores "~/Library/Messages/Attachments/…": the home folder of the Mac it came from.
  return filename.startsWith('~/') ? path.join(process.env.HOME ?? '~', filename.slice(2)) : filename;
}

async function* readIMessage(file: string, ctx: ReadContext): AsyncGenerator<IncomingConversation> {
  // Messages keeps exact times without the offset they were sent at: on the Mac's calendar (or --tz).
  const timeZone = importTimeZone(ctx);
  const db = await openMessagesDb(file);
  try {
    for (const chat of db.chats()) {
      const { members } = chat;
      const files = new Map<number, Attachment[]>();
      for (const a of db.attachments(chat.id)) {
        const name = a.name ?? (a.filename ? path.basename(a.filename) : null);
        const list = files.get(a.messageId) ?? [];
        list.push(
          attachment({ kind: mediaKind({ mimeType: a.mimeType, name }), name, uri: resolveAttachment(a.filename), mimeType: a.mimeType }),
        );
        files.set(a.messageId, list);
      }
      const messages: IncomingMessage[] = [];
      let skipped = 0;
      for (const r of db.messages(chat.id)) {
        const raw = r.text ?? (r.body ? attributedBodyText(r.body) : null) ?? '';
        // Attachments sit in the text as U+FFFC placeholders.
        const text = raw.replaceAll(OBJECT_REPLACEMENT, '').trim();
        const attachments = files.get(r.id) ?? [];
        if (r.associated >= FIRST_REACTION_TYPE || r.itemType !== 0 || (!text && attachments.length === 0)) {
          skipped++;
          continue;
        }
        const ms = appleTime(Number(r.date));
        const where = `${file}: message ${r.id} (ROWID) in chat ${chat.identifier ?? chat.id}`;
        if (!(ms >= EARLIEST_MESSAGE_MS && ms < LATEST_MESSAGE_MS)) {
          throw new NemoriError('IMPORT_PARSE', `${where}: date ${r.date} is not a time between 1900 and 2199`, { file, message: r.id });
        }
        const message: IncomingMessage = {
          externalId: r.guid,
          speaker: r.fromMe ? 'me' : (r.handle ?? chat.identifier ?? 'unknown'),
          role: r.fromMe ? 'user' : 'other',
          text,
          sentAt: new Date(Math.round(ms)),
          utcOffsetMin: offsetAt(ms, timeZone),
          attachments,
          metadata: {},
        };
        const problem = messageProblem(message);
        if (problem) throw new NemoriError('IMPORT_PARSE', `${where}: ${problem}`, { file, message: r.id });
        messages.push(message);
      }
      if (messages.length === 0) continue;
      yield IncomingConversation.parse({
        source: 'imessage',
        externalId: chat.guid,
        title: chat.name || members.join(', ') || chat.identifier || undefined,
        participants: ['me', ...members],
        metadata: { skipped, group: members.length > 1, timeZone },
        messages,
      });
    }
  } finally {
    db.close();
  }
}

export const imessageImport: ImportFormat = {
  id: 'imessage',
  label: 'iMessage / SMS on a Mac (chat.db)',
  detect: ({ path: p, head }) =>
    /\.db$/i.test(p) && head.startsWith('SQLite format 3') && path.basename(p).toLowerCase().startsWith('chat'),
  read: readIMessage,
};
