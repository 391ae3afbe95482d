import fs from 'node:fs/promises';
import initSqlJs from 'sql.js';
import { NemoriError } from '../domain/errors.js';

/**
 * Apple's Messages database (`~/Library/Messages/chat.db`, or a copy), read-only: a foreign SQLite file
 * the iMessage importer reads, never Nemori's store. It lives here because this folder is where SQL
 * is written. sql.js is SQLite compiled to WebAssembly: the same in Node and Electron, nothing to
 * build on the person's machine. It reads the file whole into memory (a chat.db is tens to hundreds
 * of MB).
 */

export interface MessagesChat {
  id: number;
  guid: string;
  identifier: string | null;
  name: string | null;
  /** Handles (phone numbers, e-mail addresses) of the chat's other members. */
  members: string[];
}

export interface MessagesRow {
  id: number;
  guid: string;
  text: string | null;
  /** An archived NSAttributedString: where macOS 13+ keeps the words when `text` is NULL. */
  body: Uint8Array | null;
  /** Since 2001-01-01: seconds, or nanoseconds since macOS 10.13. */
  date: number;
  fromMe: number;
  handle: string | null;
  /** 2000 and above: a tapback (reaction) on another message. */
  associated: number;
  /** Not 0: a group event (someone joined, the name changed), not speech. */
  itemType: number;
}

export interface MessagesAttachment {
  messageId: number;
  filename: string | null;
  mimeType: string | null;
  name: string | null;
}

export interface MessagesDb {
  chats(): MessagesChat[];
  /** A chat's messages in time order. */
  messages(chatId: number): MessagesRow[];
  attachments(chatId: number): MessagesAttachment[];
  close(): void;
}

const CHATS = `SELECT c.ROWID AS id, c.guid AS guid, c.chat_identifier AS identifier, c.display_name AS name,
  (SELECT group_concat(h.id, char(31)) FROM chat_handle_join j JOIN handle h ON h.ROWID = j.handle_id WHERE j.chat_id = c.ROWID) AS members
  FROM chat c ORDER BY c.ROWID`;

const MESSAGES = `SELECT m.ROWID AS id, m.guid AS guid, m.text AS text, m.attributedBody AS body, m.date AS date,
  m.is_from_me AS fromMe, h.id AS handle,
  COALESCE(m.associated_message_type, 0) AS associated, COALESCE(m.item_type, 0) AS itemType
  FROM message m JOIN chat_message_join j ON j.message_id = m.ROWID LEFT JOIN handle h ON h.ROWID = m.handle_id
  WHERE j.chat_id = ? ORDER BY m.date, m.ROWID`;

const ATTACHMENTS = `SELECT maj.message_id AS messageId, a.filename AS filename, a.mime_type AS mimeType, a.transfer_name AS name
  FROM message_attachment_join maj JOIN attachment a ON a.ROWID = maj.attachment_id
  JOIN chat_message_join j ON j.message_id = maj.message_id WHERE j.chat_id = ?`;

export async function openMessagesDb(file: string): Promise<MessagesDb> {
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const hint =
      code === 'EPERM' || code === 'EACCES'
        ? ': macOS protects the Messages database; give Nemori Full Disk Access (System Settings → Privacy & Security → Full Disk Access), or import a copy of chat.db'
        : '';
    throw new NemoriError('INVALID_INPUT', `${file}: cannot read (${code ?? (e as Error).message})${hint}`, { file });
  }
  const SQL = await initSqlJs();
  let db: InstanceType<typeof SQL.Database>;
  try {
    db = new SQL.Database(bytes);
    db.exec('SELECT 1 FROM message, chat, handle, chat_message_join LIMIT 0');
  } catch (e) {
    throw new NemoriError('IMPORT_PARSE', `${file}: line 1: not a Messages database (${(e as Error).message})`, { file, line: 1 });
  }
  const rows = <T>(sql: string, params: number[] = []): T[] => {
    const st = db.prepare(sql);
    try {
      st.bind(params);
      const out: T[] = [];
      while (st.step()) out.push(st.getAsObject() as T);
      return out;
    } finally {
      st.free();
    }
  };
  return {
    chats: () =>
      rows<Omit<MessagesChat, 'members'> & { members: string | null }>(CHATS).map((c) => ({
        ...c,
        members: c.members ? c.members.split('\u001f') : [],
      })),
    messages: (chatId) => rows<MessagesRow>(MESSAGES, [chatId]),
    attachments: (chatId) => rows<MessagesAttachment>(ATTACHMENTS, [chatId]),
    close: () => db.close(),
  };
}
