import initSqlJs from 'sql.js';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../core/ingest/detect-format.js';
import { appleTime, imessageImport } from '../../core/ingest/imessage.js';
import { writeTemp } from './chat-helpers.js';
import { lines, readAll } from './read-all.js';

/** Messages' tables, as macOS creates them (the columns the reader uses). */
const SCHEMA = `
CREATE TABLE handle (ROWID INTEGER PRIMARY KEY, id TEXT, service TEXT);
CREATE TABLE chat (ROWID INTEGER PRIMARY KEY, guid TEXT, chat_identifier TEXT, display_name TEXT, style INTEGER);
CREATE TABLE chat_handle_join (chat_id INTEGER, handle_id INTEGER);
CREATE TABLE message (ROWID INTEGER PRIMARY KEY, guid TEXT, text TEXT, attributedBody BLOB, handle_id INTEGER, date INTEGER,
  is_from_me INTEGER, associated_message_type INTEGER DEFAULT 0, item_type INTEGER DEFAULT 0, cache_has_attachments INTEGER DEFAULT 0);
CREATE TABLE chat_message_join (chat_id INTEGER, message_id INTEGER, message_date INTEGER);
CREATE TABLE attachment (ROWID INTEGER PRIMARY KEY, filename TEXT, mime_type TEXT, transfer_name TEXT);
CREATE TABLE message_attachment_join (message_id INTEGER, attachment_id INTEGER);
`;

/** An archived NSAttributedString holding `text`, the way macOS 13+ writes it when `text` is NULL. */
function attributedBody(text: string): Uint8Array {
  const bytes = Buffer.from(text, 'utf8');
  const length = bytes.length < 0x80 ? Buffer.from([bytes.length]) : Buffer.from([0x81, bytes.length & 0xff, bytes.length >> 8]);
  return Buffer.concat([
    Buffer.from(
      '\u0004\u000bstreamtyped\u0081\u00e8\u0003\u0084\u0001@\u0084\u0084\u0084\u0012NSAttributedString\u0000\u0084\u0084\u0008NSObject\u0000\u0085\u0092\u0084\u0084\u0084\u0008NSString',
      'latin1',
    ),
    Buffer.from([0x01, 0x94, 0x84, 0x01, 0x2b]),
    length,
    bytes,
    Buffer.from([0x86, 0x84, 0x02]),
  ]);
}

/** Apple nanoseconds for an ISO time. */
const ns = (iso: string) => BigInt(Date.parse(iso) - Date.UTC(2001, 0, 1)) * 1_000_000n;

async function chatDb(): Promise<string> {
  const SQL = await initSqlJs();
  const db = new SQL.Database();
  db.exec(SCHEMA);
  db.exec(`INSERT INTO handle VALUES (1, '+8613800138000', 'iMessage'), (2, 'emma@example.com', 'iMessage');
    INSERT INTO chat VALUES (1, 'iMessage;-;+8613800138000', '+8613800138000', '', 45), (2, 'iMessage;+;chat42', 'chat42', '周末爬山 Hiking', 43);
    INSERT INTO chat_handle_join VALUES (1, 1), (2, 1), (2, 2);
    INSERT INTO attachment VALUES (1, '~/Library/Messages/Attachments/ab/01/IMG_0042.HEIC', 'image/heic', 'IMG_0042.HEIC');`);
  const insert = db.prepare('INSERT INTO message VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, 0)');
  const add = (id: number, chat: number, m: [string, string | null, Uint8Array | null, number, bigint | number, number, number]) => {
    insert.run([id, ...m.slice(0, 4), m[4].toString(), m[5], m[6]] as never);
    db.run('INSERT INTO chat_message_join VALUES (?, ?, 0)', [chat, id]);
  };
  add(1, 1, ['g1', '到家了吗？', null, 1, ns('2024-05-01T12:00:00.250Z'), 0, 0]);
  add(2, 1, ['g2', null, attributedBody('Just got home, thanks! 刚到'), 0, ns('2024-05-01T12:01:00Z'), 1, 0]);
  add(3, 1, ['g3', 'Loved “Just got home”', null, 1, ns('2024-05-01T12:01:30Z'), 0, 2000]);
  add(4, 1, ['g4', '\ufffc', null, 1, ns('2024-05-01T12:02:00Z'), 0, 0]);
  db.run('INSERT INTO message_attachment_join VALUES (4, 1)');
  // An old message from before macOS 10.13: seconds, not nanoseconds.
  add(5, 2, ['g5', 'Trail at 8? 八点出发', null, 2, 536500800, 0, 0]);
  add(6, 2, ['g6', '好', null, 0, 536500860, 1, 0]);
  insert.free();
  const file = writeTemp('chat.db', Buffer.from(db.export()));
  db.close();
  return file;
}

describe('iMessage (chat.db)', () => {
  it('reads chats: handles, the person as me, attributed-body text, attachments, Apple times; tapbacks skipped', async () => {
    const file = await chatDb();
    expect((await detectFormat(file)).id).toBe('imessage');
    // Messages keeps exact times without their offset: on the Mac's calendar (here told Asia/Shanghai).
    const { conversations } = await readAll(imessageImport, file, 'Asia/Shanghai');
    expect(conversations).toHaveLength(2);
    const [dm, group] = conversations as [(typeof conversations)[0], (typeof conversations)[0]];
    expect(dm).toMatchObject({
      source: 'imessage',
      externalId: 'iMessage;-;+8613800138000',
      title: '+8613800138000',
      metadata: { skipped: 1, group: false },
    });
    expect(lines(dm)).toEqual([
      '2024-05-01T12:00:00.250Z +480 +8613800138000 [other]: 到家了吗？',
      '2024-05-01T12:01:00.000Z +480 me [user]: Just got home, thanks! 刚到',
      '2024-05-01T12:02:00.000Z +480 +8613800138000 [other]: ',
    ]);
    expect(dm.messages[2]!.attachments).toEqual([
      {
        kind: 'image',
        name: 'IMG_0042.HEIC',
        uri: `${process.env.HOME}/Library/Messages/Attachments/ab/01/IMG_0042.HEIC`,
        mimeType: 'image/heic',
      },
    ]);
    expect(group).toMatchObject({
      title: '周末爬山 Hiking',
      participants: ['me', '+8613800138000', 'emma@example.com'],
      metadata: { group: true },
    });
    expect(lines(group)).toEqual([
      '2018-01-01T12:00:00.000Z +480 emma@example.com [other]: Trail at 8? 八点出发',
      '2018-01-01T12:01:00.000Z +480 me [user]: 好',
    ]);
  });

  it('reads Apple times in seconds and in nanoseconds', () => {
    expect(new Date(appleTime(0)).toISOString()).toBe('2001-01-01T00:00:00.000Z');
    expect(new Date(appleTime(Number(ns('2024-05-01T12:00:00.250Z')))).toISOString()).toBe('2024-05-01T12:00:00.250Z');
  });

  it('refuses an SQLite file that is not a Messages database', async () => {
    const SQL = await initSqlJs();
    const other = new SQL.Database();
    other.exec('CREATE TABLE notes (id INTEGER)');
    const file = writeTemp('chat.db', Buffer.from(other.export()));
    await expect(readAll(imessageImport, file)).rejects.toThrow(/chat\.db: line 1: not a Messages database/);
  });
});
