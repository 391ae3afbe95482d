import path from 'node:path';
import type { Readable } from 'node:stream';
import { parse as csvParse, type CsvError } from 'csv-parse';
import { z } from 'zod';
import type { Attachment, IncomingConversation, IncomingMessage, MessageRole } from '../domain/conversation.js';
import { NemoriError } from '../domain/errors.js';
import { makeConversation, makeMessage } from './chat-text.js';
import { importError, type ImportFormat, type ReadContext, withTimeZone } from './import-format.js';
import { checkJsonMessage, fileSource, jsonError, shapeError, valueError, walkMessages, type JsonSource } from './json-stream.js';
import { checkTimeZone, isValidWallTime, machineTimeZone, offsetAt, wallTimeToInstant } from './local-time.js';
import { ChatParts, type ChatPart } from './parts.js';
import { asciiView, openText } from './text-lines.js';
import { readTime, type Instant } from './time-shapes.js';
import { checkLineMessage } from './message-checks.js';

/**
 * WeChat has no export of its own; people use desktop tools that read the PC client's database:
 *
 * - CSV from WeChatMsg / MemoTrace ("导出聊天记录 → CSV"): columns
 *   `localId, TalkerId, Type, SubType, IsSender, CreateTime, Status, StrContent, StrTime[, Remark, NickName, Sender]`,
 *   one file per contact (`张三_utf8.csv`) or one for everything (`messages.csv`, many TalkerIds).
 *   UTF-8 with a BOM as written, or GBK after a round trip through Excel.
 * - JSON from EchoTrace / WeFlow: `{ session: {wxid|username, displayName, remark, nickname, type},
 *   messages: [{localId, createTime, formattedTime, type, content, isSend, senderUsername, senderDisplayName}] }`
 *   where `type` is a Chinese label ("文本消息", "图片消息", …) or, in some versions, WeChat's numeric type.
 *
 * Time: `CreateTime`/`createTime` (Unix seconds) is the exact instant. The offset is what the exporting
 * PC's clock showed (`StrTime`/`formattedTime` minus the instant); rows with only `StrTime` are read
 * as wall-clock time in `timeZone` (default: this machine's zone), as is the offset when no formatted
 * time is present.
 *
 * `IsSender`/`isSend` = 1 marks the person's own messages: those get role 'user'.
 * Not handled: message bodies kept only in the database's compressed column (link and file cards in
 * CSV often arrive empty: recorded as an attachment without a title), voice transcription, and the
 * PyWxDump CSV layout.
 */

export interface WeChatOptions {
  /** IANA zone of the PC that exported; default: this machine's zone. */
  timeZone?: string;
  /**
   * CSV rows held in memory per pass over a many-chat file (default 300 000): chats are gathered a
   * batch at a time so memory stays bounded by the largest chat, not the whole export.
   */
  rowsPerPass?: number;
}

// ---- message types ----------------------------------------------------------------------------

type Kind = { what: 'text' } | { what: 'media'; kind: Attachment['kind'] } | { what: 'skip'; why: 'system' | 'call' | 'unknown' };

/** WeChat's numeric message types (the `Type` column; `SubType` refines 49). */
function numericKind(type: number, subType: number): Kind {
  switch (type) {
    case 1:
      return { what: 'text' };
    case 3:
      return { what: 'media', kind: 'image' };
    case 34:
      return { what: 'media', kind: 'audio' };
    case 43:
      return { what: 'media', kind: 'video' };
    case 47:
      return { what: 'media', kind: 'sticker' };
    case 42: // contact card
    case 48: // location
      return { what: 'media', kind: 'other' };
    case 49:
      // App messages: 6 file, 5/33/36 link or mini program, 57 a quoted reply (its title is the reply text),
      // 19 a forwarded chat history, 2000/2001 transfer and red packet.
      if (subType === 57) return { what: 'text' };
      if (subType === 6) return { what: 'media', kind: 'file' };
      if (subType === 8) return { what: 'media', kind: 'sticker' };
      if (subType === 2000 || subType === 2001) return { what: 'media', kind: 'other' };
      return { what: 'media', kind: 'link' };
    case 50:
      return { what: 'skip', why: 'call' };
    case 10000:
    case 10002:
      return { what: 'skip', why: 'system' };
    default:
      return { what: 'skip', why: 'unknown' };
  }
}

/** EchoTrace/WeFlow's Chinese type labels. */
const LABEL_KINDS: Record<string, Kind> = {
  文本消息: { what: 'text' },
  引用消息: { what: 'text' },
  聊天记录合并转发: { what: 'text' },
  图片消息: { what: 'media', kind: 'image' },
  语音消息: { what: 'media', kind: 'audio' },
  视频消息: { what: 'media', kind: 'video' },
  文件消息: { what: 'media', kind: 'file' },
  动画表情: { what: 'media', kind: 'sticker' },
  卡片式链接: { what: 'media', kind: 'link' },
  图文消息: { what: 'media', kind: 'link' },
  小程序分享: { what: 'media', kind: 'link' },
  视频号直播卡片: { what: 'media', kind: 'link' },
  位置消息: { what: 'media', kind: 'other' },
  名片消息: { what: 'media', kind: 'other' },
  红包卡片: { what: 'media', kind: 'other' },
  转账卡片: { what: 'media', kind: 'other' },
  通话消息: { what: 'skip', why: 'call' },
  语音通话: { what: 'skip', why: 'call' },
  视频通话: { what: 'skip', why: 'call' },
  系统消息: { what: 'skip', why: 'system' },
  撤回消息: { what: 'skip', why: 'system' },
  拍一拍: { what: 'skip', why: 'system' },
  // PyWxDump's `type_name`s.
  文本: { what: 'text' },
  引用回复: { what: 'text' },
  合并转发的聊天记录: { what: 'text' },
  图片: { what: 'media', kind: 'image' },
  语音: { what: 'media', kind: 'audio' },
  视频: { what: 'media', kind: 'video' },
  文件: { what: 'media', kind: 'file' },
  位置: { what: 'media', kind: 'other' },
  名片: { what: 'media', kind: 'other' },
  转账: { what: 'media', kind: 'other' },
  红包: { what: 'media', kind: 'other' },
  音视频通话: { what: 'skip', why: 'call' },
  系统通知: { what: 'skip', why: 'system' },
};

function xmlField(xml: string, tag: string): string | undefined {
  const m = new RegExp(`<${tag}>(?:<!\\[CDATA\\[)?([\\s\\S]*?)(?:\\]\\]>)?</${tag}>`).exec(xml);
  const v = m?.[1]?.trim();
  return v
    ? v
        .replace(/&amp;/g, '&')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
    : undefined;
}

/** Text and attachments of one message; media bodies are XML or a "[图片]"-style placeholder, never words said. */
function body(kind: Kind & { what: 'text' | 'media' }, content: string): { text: string; attachments: Attachment[] } {
  const isXml = content.trimStart().startsWith('<');
  if (kind.what === 'text') {
    // A quoted reply's own words are the <title> of its XML.
    return { text: isXml ? (xmlField(content, 'title') ?? '') : content, attachments: [] };
  }
  const a: Attachment = { kind: kind.kind };
  if (isXml) {
    const title = xmlField(content, 'title');
    const url = xmlField(content, 'url');
    if (title) a.name = title;
    if (url && /^https?:/i.test(url)) a.uri = url;
    const label = /\blabel="([^"]+)"/.exec(content)?.[1] ?? /\bpoiname="([^"]+)"/.exec(content)?.[1];
    if (label) a.caption = label;
  } else if (content && !/^\[[^\]]{1,12}\]$/.test(content.trim())) {
    // Exporters render some media as text ("[文件] 行程单.pdf"): keep what is not a bare placeholder.
    a.caption = content.trim();
  }
  return { text: '', attachments: [a] };
}

// ---- time ---------------------------------------------------------------------------------------

const WALL = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})[ T](\d{1,2}):(\d{2})(?::(\d{2}))?$/;

function parseWall(s: string): { year: number; month: number; day: number; hour: number; minute: number; second: number } | null {
  const m = WALL.exec(s.trim());
  if (!m) return null;
  const t = { year: +m[1]!, month: +m[2]!, day: +m[3]!, hour: +m[4]!, minute: +m[5]!, second: m[6] ? +m[6] : 0 };
  return isValidWallTime(t) ? t : null;
}

/**
 * Instant from Unix seconds when present; offset from the exporter's formatted wall time when it agrees
 * with a real UTC offset (whole quarter hours within ±14 h), else from the zone.
 */
function resolveTime(created: CreateTime | null, formatted: string | null, timeZone: string): { at: Date; utcOffsetMin: number } | null {
  // A converter's local CreateTime ("2024-02-10 00:04:00") is a wall time already read in the zone.
  if (created && !created.exact) return created.instant;
  const exact = created ? created.instant.at : null;
  const wall = formatted ? parseWall(formatted) : null;
  if (exact !== null) {
    const at = exact;
    if (wall) {
      const diffMin = (Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second) - at.getTime()) / 60000;
      if (Number.isInteger(diffMin) && diffMin % 15 === 0 && Math.abs(diffMin) <= 14 * 60) return { at, utcOffsetMin: diffMin };
    }
    return { at, utcOffsetMin: offsetAt(at, timeZone) };
  }
  return wall ? wallTimeToInstant(wall, timeZone) : null;
}

const NOT_UNIX = 'is not a time (unix seconds or milliseconds from 1980, or ISO 8601)';

type CreateTime = { instant: Instant; exact: boolean };

/** CreateTime: unix seconds (some tools write milliseconds, or ISO); null when it is no time at all. */
function createTime(v: unknown, timeZone: string): CreateTime | null {
  if (typeof v !== 'number' && typeof v !== 'string') return null;
  const r = readTime(v, { timeZone });
  if (!r.ok) return null;
  // Whole seconds, as WeChat keeps them.
  return { ...r, instant: { ...r.instant, at: new Date(Math.floor(r.instant.at.getTime() / 1000) * 1000) } };
}

// ---- CSV ----------------------------------------------------------------------------------------

interface CsvRow {
  record: Record<string, string | undefined>;
  /** First line of the record (1-based). */
  line: number;
}

/**
 * csv-parse as an async iterator that keeps exact line numbers and does not lose records already
 * parsed when a later one fails (iterating the stream directly drops them on error).
 */
async function* csvRows(text: Readable, file: string): AsyncGenerator<CsvRow> {
  const parser = csvParse({
    columns: (header: string[]) => header.map((h) => h.replace(/^\ufeff/, '').trim()),
    relax_column_count: true,
    skip_empty_lines: true,
    info: true,
    bom: true,
  });
  const queue: Array<{ record: Record<string, string>; info: { lines: number } }> = [];
  let failure: Error | null = null;
  let ended = false;
  let wake: (() => void) | null = null;
  const notify = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  parser.on('data', (r) => {
    queue.push(r);
    // Backpressure: a paused parser stops reading once its buffers fill, so the file is not read ahead.
    if (queue.length > 1000) parser.pause();
    notify();
  });
  parser.on('error', (e) => {
    failure = e;
    notify();
  });
  parser.on('end', () => {
    ended = true;
    notify();
  });
  text.on('error', (e) => {
    failure = e;
    notify();
  });
  text.pipe(parser);
  let lastEnd = 1; // the header line
  try {
    for (;;) {
      const next = queue.shift();
      if (next) {
        if (queue.length < 100 && parser.isPaused()) parser.resume();
        const line = lastEnd + 1;
        lastEnd = next.info.lines;
        yield { record: next.record, line };
        continue;
      }
      if (failure) {
        const e = failure as CsvError & { lines?: number };
        if (e.code === 'CSV_QUOTE_NOT_CLOSED')
          throw importError(file, { line: lastEnd + 1 }, 'a quoted field that starts on this line is never closed (truncated file?)');
        if (typeof e.code === 'string' && e.code.startsWith('CSV_'))
          throw importError(file, { line: e.lines ?? lastEnd + 1 }, `invalid CSV: ${e.message}`);
        throw new NemoriError('INVALID_INPUT', `${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? e.message})`, { file });
      }
      if (ended) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    text.unpipe(parser);
    text.destroy();
    parser.destroy();
  }
}

function col(record: Record<string, string | undefined>, name: string): string | undefined {
  return record[name];
}

interface CsvLayout {
  /** Column names as written (case kept), found case-insensitively. */
  names: Record<keyof typeof CSV_COLUMNS, string | undefined>;
}

/**
 * Each field's column in WeChatMsg/MemoTrace's CSV (first name) and PyWxDump's (`id, MsgSvrID,
 * type_name, is_sender, talker, room_name, msg, src, CreateTime`: `talker` is the sender, `room_name`
 * the chat, `CreateTime` a local time, `type_name` a label).
 */
const CSV_COLUMNS = {
  isSender: ['IsSender', 'is_sender'],
  content: ['StrContent', 'msg', 'content'],
  createTime: ['CreateTime'],
  strTime: ['StrTime'],
  type: ['Type'],
  typeName: ['type_name'],
  subType: ['SubType'],
  talker: ['TalkerId', 'room_name'],
  remark: ['Remark'],
  nickName: ['NickName'],
  sender: ['Sender', 'talker'],
} as const;

function layoutOf(record: Record<string, string | undefined>): CsvLayout {
  const keys = Object.keys(record);
  const find = (names: readonly string[]) => keys.find((k) => names.some((n) => k.toLowerCase() === n.toLowerCase()));
  const names = Object.fromEntries(Object.entries(CSV_COLUMNS).map(([k, v]) => [k, find(v)])) as CsvLayout['names'];
  return { names };
}

/** "张三_utf8.csv" → "张三": WeChatMsg names each file after the contact's remark. */
function stemOf(file: string): string {
  return (
    path
      .basename(file)
      .replace(/\.csv$/i, '')
      .replace(/_(utf-?8|gbk)$/i, '')
      // PyWxDump pages a chat into "<wxid>_0_5000.csv", "<wxid>_5000_10000.csv": one conversation.
      .replace(/_\d+_\d+$/, '') || path.basename(file)
  );
}

async function* csvRecords(file: string): AsyncGenerator<CsvRow> {
  const { stream } = await openText(file);
  yield* csvRows(stream, file);
}

interface TalkerCount {
  id: string;
  rows: number;
}

/** Pass over the file counting rows per conversation, in order of first appearance; checks the columns. */
async function countTalkers(file: string): Promise<{ talkers: TalkerCount[]; layout: CsvLayout }> {
  let layout: CsvLayout | null = null;
  const counts = new Map<string, TalkerCount>();
  for await (const { record } of csvRecords(file)) {
    layout ??= checkedLayout(file, record);
    const id = talkerOf(record, layout);
    const c = counts.get(id);
    if (c) c.rows++;
    else counts.set(id, { id, rows: 1 });
  }
  if (!layout) throw importError(file, { line: 1 }, 'no message rows (empty file, or not a WeChat CSV export)');
  return { talkers: [...counts.values()], layout };
}

function checkedLayout(file: string, record: Record<string, string | undefined>): CsvLayout {
  const layout = layoutOf(record);
  const missing: string[] = (['isSender', 'content'] as const).filter((k) => !layout.names[k]).map((k) => CSV_COLUMNS[k].join(' or '));
  if (!layout.names.createTime && !layout.names.strTime) missing.push('CreateTime or StrTime');
  if (missing.length)
    throw importError(
      file,
      { line: 1 },
      `not a WeChat CSV export: missing column ${missing.join(', ')} (expected WeChatMsg's localId, TalkerId, Type, SubType, IsSender, CreateTime, Status, StrContent, StrTime, … or PyWxDump's id, MsgSvrID, type_name, is_sender, talker, room_name, msg, src, CreateTime)`,
    );
  return layout;
}

function talkerOf(record: Record<string, string | undefined>, layout: CsvLayout): string {
  return (layout.names.talker ? col(record, layout.names.talker) : undefined)?.trim() || '';
}

/** Rows held in memory per pass: several small conversations share a pass, a big one gets its own. */
const ROWS_PER_PASS = 300_000;

interface Building {
  talker: string;
  /** The conversation in parts (see parts.ts): a chat of millions of rows holds one part in memory. */
  parts: ChatParts;
  /** The name the others go by, for the title of a one-to-one chat. */
  otherNames: Set<string>;
  /** Skipped since the last part: the import report adds the parts up. */
  skipped: { system: number; call: number; unknown: number };
}

async function* readCsv(file: string, o: WeChatOptions, ctx: ReadContext): AsyncGenerator<IncomingConversation> {
  const timeZone = checkTimeZone(o.timeZone ?? machineTimeZone());
  const { talkers, layout } = await countTalkers(file);
  const n = layout.names;
  const stem = stemOf(file);
  const single = talkers.length === 1;

  // Pack conversations into passes, keeping the order in which they first appear.
  const passes: TalkerCount[][] = [];
  let current: TalkerCount[] = [];
  let rowsInPass = 0;
  for (const t of talkers) {
    if (current.length > 0 && rowsInPass + t.rows > (o.rowsPerPass ?? ROWS_PER_PASS)) {
      passes.push(current);
      current = [];
      rowsInPass = 0;
    }
    current.push(t);
    rowsInPass += t.rows;
  }
  if (current.length) passes.push(current);

  // The title so far (the store keeps the last part's, which has seen every row of the chat).
  const conversation = (b: Building, part: ChatPart): IncomingConversation => {
    const others = [...b.otherNames];
    const title = single ? stem : others.length === 1 ? others[0]! : `${stem} (${b.talker || 'no TalkerId'})`;
    const c = makeConversation({
      source: 'wechat',
      externalId: single ? stem : `${stem}#${b.talker}`,
      title,
      participants: part.participants,
      metadata: {
        skipped: b.skipped.system + b.skipped.call + b.skipped.unknown,
        skippedBy: b.skipped,
        talkerId: b.talker || null,
        timeZone,
        exporter: n.typeName ? 'pywxdump-csv' : 'wechatmsg-csv',
        ...(part.continued ? { continued: true } : {}),
      },
      messages: part.messages,
    });
    b.skipped = { system: 0, call: 0, unknown: 0 };
    return c;
  };

  const unknownTypes = new Set<string>();
  for (const pass of passes) {
    const building = new Map<string, Building>(
      pass.map((t) => [t.id, { talker: t.id, parts: new ChatParts(), otherNames: new Set(), skipped: { system: 0, call: 0, unknown: 0 } }]),
    );
    for await (const { record, line } of csvRecords(file)) {
      const b = building.get(talkerOf(record, layout));
      if (!b) continue;
      const typeRaw = n.type ? (col(record, n.type) ?? '').trim() : '1';
      const type = typeRaw === '' ? 1 : Number(typeRaw);
      const subType = Number(n.subType ? col(record, n.subType) || 0 : 0);
      if (!Number.isInteger(type)) throw importError(file, { line }, `Type "${typeRaw}" is not a WeChat message type number`);
      const label = n.typeName ? (col(record, n.typeName) ?? '').trim() : null;
      const kind: Kind = label !== null ? (LABEL_KINDS[label] ?? { what: 'skip', why: 'unknown' }) : numericKind(type, subType);
      const senderRaw = (col(record, n.isSender!) ?? '').trim();
      if (senderRaw !== '0' && senderRaw !== '1') throw importError(file, { line }, `IsSender is "${senderRaw}", expected 0 or 1`);
      const createRaw = n.createTime ? (col(record, n.createTime) ?? '').trim() : '';
      const strTime = n.strTime ? (col(record, n.strTime) ?? '').trim() : '';
      const created = createRaw ? createTime(createRaw, timeZone) : null;
      if (createRaw && created === null) throw importError(file, { line }, `CreateTime "${createRaw}" ${NOT_UNIX}`);
      const time = resolveTime(created, strTime || null, timeZone);
      if (!time)
        throw importError(
          file,
          { line },
          strTime ? `StrTime "${strTime}" is not a date and time (YYYY-MM-DD HH:MM:SS)` : 'the row has neither CreateTime nor StrTime',
        );
      if (kind.what === 'skip') {
        b.skipped[kind.why]++;
        if (kind.why === 'unknown') unknownTypes.add(label ?? `${type}/${subType}`);
        continue;
      }
      const isMe = senderRaw === '1';
      const remark = n.remark ? col(record, n.remark)?.trim() : undefined;
      const nick = n.nickName ? col(record, n.nickName)?.trim() : undefined;
      const wxid = n.sender ? col(record, n.sender)?.trim() : undefined;
      // One's own remark is rarely set; the others' remark is the name the person gave them.
      // Without name columns, a one-chat file is named after its contact; a many-chat file has only ids.
      const speaker = isMe ? nick || remark || 'me' : remark || nick || wxid || (single ? stem : `contact #${b.talker || '?'}`);
      const role: MessageRole = isMe ? 'user' : 'other';
      const { text, attachments } = body(kind, col(record, n.content!) ?? '');
      if (!isMe) b.otherNames.add(speaker);
      const msg = makeMessage({ speaker, role, text, sentAt: time.at, utcOffsetMin: time.utcOffsetMin, attachments });
      checkLineMessage(file, line, msg);
      const full = b.parts.add(msg);
      if (full) yield conversation(b, full);
    }
    for (const t of pass) {
      const b = building.get(t.id)!;
      building.delete(t.id);
      yield conversation(b, b.parts.take());
    }
  }
  if (unknownTypes.size) ctx.warn(`${file}: skipped messages of WeChat types Nemori does not read (${[...unknownTypes].join(', ')})`);
}

// ---- EchoTrace / WeFlow JSON ----------------------------------------------------------------------

const Session = z
  .object({
    wxid: z.string().optional(),
    username: z.string().optional(),
    displayName: z.string().nullish(),
    remark: z.string().nullish(),
    nickname: z.string().nullish(),
    type: z.string().nullish(),
  })
  .loose();

const EchoMessage = z
  .object({
    localId: z.number().optional(),
    createTime: z.union([z.number(), z.string()]),
    formattedTime: z.string().nullish(),
    type: z.union([z.string(), z.number()]).nullish(),
    subType: z.number().nullish(),
    content: z.string().nullish(),
    isSend: z.number().nullish(),
    senderUsername: z.string().nullish(),
    senderDisplayName: z.string().nullish(),
  })
  .loose();

function echoKind(m: z.infer<typeof EchoMessage>): Kind {
  if (typeof m.type === 'number') return numericKind(m.type, m.subType ?? 0);
  if (typeof m.type === 'string') {
    const k = LABEL_KINDS[m.type.trim()];
    if (k) return k;
    if (/^\d+$/.test(m.type.trim())) return numericKind(Number(m.type), m.subType ?? 0);
    return { what: 'skip', why: 'unknown' };
  }
  return { what: 'text' };
}

async function readEchoJson(file: string, o: WeChatOptions, ctx: ReadContext): Promise<IncomingConversation> {
  const timeZone = checkTimeZone(o.timeZone ?? machineTimeZone());
  const src: JsonSource = fileSource(file);
  let session: z.infer<typeof Session> | null = null;
  const found = { messages: false };
  const messages: IncomingMessage[] = [];
  const skipped = { system: 0, call: 0, unknown: 0 };
  const unknownTypes = new Set<string>();
  // Rows from others need the chat's name when they carry no sender name, and the session may come last.
  const unnamed: Array<{ msg: IncomingMessage; sender: string }> = [];
  // Walk into the root (whatever it is, so a wrong file is never assembled whole) and the messages array.
  for await (const ev of walkMessages(src, found, { anyRoot: true })) {
    if (ev.path.length === 1 && ev.path[0] === 'session') {
      const parsed = Session.safeParse(ev.value);
      if (!parsed.success) throw await shapeError(src, ['session'], 'session', parsed.error);
      session = parsed.data;
      continue;
    }
    if (ev.path.length === 1 && ev.path[0] === 'messages')
      throw await valueError(src, ['messages'], '"messages" must be an array of messages');
    if (ev.path.length !== 2 || ev.path[0] !== 'messages') continue;
    const parsed = EchoMessage.safeParse(ev.value);
    if (!parsed.success) throw await shapeError(src, ev.path, 'message', parsed.error);
    const m = parsed.data;
    const created = createTime(m.createTime, timeZone);
    if (created === null) throw await valueError(src, [...ev.path, 'createTime'], `message: createTime "${m.createTime}" ${NOT_UNIX}`);
    const time = resolveTime(created, m.formattedTime ?? null, timeZone)!;
    const kind = echoKind(m);
    const sender = m.senderUsername ?? '';
    // isSend null marks system rows; so does a sender that is the group itself.
    if (m.isSend === null || sender.endsWith('@chatroom')) {
      skipped.system++;
      continue;
    }
    if (kind.what === 'skip') {
      skipped[kind.why]++;
      if (kind.why === 'unknown') unknownTypes.add(String(m.type));
      continue;
    }
    const isMe = m.isSend === 1;
    const name = m.senderDisplayName?.trim() || '';
    const { text, attachments } = body(kind, m.content ?? '');
    const msg = makeMessage({
      speaker: name || (isMe ? 'me' : sender.trim() || '?'),
      role: isMe ? 'user' : 'other',
      text,
      sentAt: time.at,
      utcOffsetMin: time.utcOffsetMin,
      attachments,
    });
    await checkJsonMessage(src, ev.path, 'message', msg);
    if (!name && !isMe) unnamed.push({ msg, sender: sender.trim() });
    messages.push(msg);
  }
  if (!found.messages) throw jsonError(src, { line: 1, column: 1 }, 'no "messages" array: not an EchoTrace/WeFlow WeChat export');
  const s = session as z.infer<typeof Session> | null;
  const stem = path.basename(file).replace(/\.json$/i, '');
  const title = s?.remark || s?.displayName || s?.nickname || stem;
  const chatId = s?.wxid || s?.username || '';
  // A nameless sender who is the other side of a one-to-one chat is the chat's contact.
  for (const { msg, sender } of unnamed) {
    msg.speaker = !sender || sender === chatId ? title : sender;
  }
  // Participants in order of first message, once every speaker has its final name.
  const participants = new Set<string>();
  for (const m of messages) participants.add(m.speaker);
  if (unknownTypes.size) ctx.warn(`${file}: skipped messages of types Nemori does not read (${[...unknownTypes].join(', ')})`);
  return makeConversation({
    source: 'wechat',
    externalId: chatId || stem,
    title,
    participants: [...participants],
    metadata: {
      skipped: skipped.system + skipped.call + skipped.unknown,
      skippedBy: skipped,
      chatType: s?.type === '群聊' ? 'group' : s?.type === '私聊' ? 'private' : null,
      timeZone,
      exporter: 'echotrace-json',
    },
    messages,
  });
}

// ---- the format -----------------------------------------------------------------------------------

export function wechatFormat(o: WeChatOptions = {}): ImportFormat {
  if (o.timeZone) checkTimeZone(o.timeZone);
  return {
    id: 'wechat',
    label: 'WeChat export (WeChatMsg/MemoTrace CSV, EchoTrace/WeFlow JSON)',
    detect: ({ path: p, head }) => {
      const ext = path.extname(p).toLowerCase();
      if (ext === '.csv') {
        // Column names are ASCII, so they survive GBK and UTF-16 heads decoded as UTF-8.
        const first = asciiView(head).split(/\r?\n/, 1)[0] ?? '';
        return (
          (/\bStrContent\b/i.test(first) && /\bIsSender\b/i.test(first)) ||
          (/\btype_name\b/.test(first) && /\bis_sender\b/.test(first) && /\bCreateTime\b/.test(first))
        );
      }
      if (ext === '.json')
        return (
          /"senderUsername"\s*:/.test(head) || (/"session"\s*:/.test(head) && /"createTime"\s*:/.test(head) && /"isSend"\s*:/.test(head))
        );
      return false;
    },
    async *read(file, ctx) {
      if (path.extname(file).toLowerCase() === '.json') {
        yield await readEchoJson(file, withTimeZone(o, ctx), ctx);
        return;
      }
      yield* readCsv(file, withTimeZone(o, ctx), ctx);
    },
  };
}

/** Registered instance: the machine's time zone. */
export const wechatImport: ImportFormat = wechatFormat();
