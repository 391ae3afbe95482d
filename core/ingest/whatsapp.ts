import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { Attachment, IncomingConversation, IncomingMessage } from '../domain/conversation.js';
import { importError, type DateOrder, type ImportFormat, type ReadContext, withTimeZone } from './import-format.js';
import { fileAttachment, makeConversation, makeMessage, normalizeSpaces, stripDirectionMarks } from './chat-text.js';
import { checkTimeZone, isValidWallTime, machineTimeZone, wallTimeToInstant } from './local-time.js';
import { ChatParts, type ChatPart } from './parts.js';
import { readLines, refuseNul, splitLines, type TextLine } from './text-lines.js';
import { listZipEntries, looksLikeZip, zipEntryNamesSync, zipEntryStream } from './zip.js';

/**
 * WhatsApp "Export chat" (.txt, or the .zip with media) from Android and iOS, in any phone locale.
 *
 *   Android: `12/31/23, 9:41 PM - Emma: text`      `31.12.23, 21:41 - Emma: text`
 *   iOS:     `[31/12/2023, 21:41:05] Emma: text`   `[12/31/23, 9:41:05 PM] Emma: text`
 *   Chinese: `2023/12/31 下午9:41 - 张三: text`      Spanish: `31/12/23, 9:41 p. m. - Ana: text`
 *
 * Times are the phone's wall clock without a zone: they are read in `timeZone` (default: this
 * machine's zone), DST-aware, per message. The export does not say whether 03/04 is 3 April or
 * 4 March: the file decides when any date has a first field above 12 (day first) or a second field
 * above 12 (month first); otherwise `dateOrder`, else the order of `locale` (default: this machine's),
 * with a warning.
 */

export interface WhatsAppOptions {
  /** IANA zone the phone was in; default: this machine's zone. */
  timeZone?: string;
  /** Forces day/month order when the file itself does not settle it. */
  dateOrder?: DateOrder;
  /** Locale whose date order is assumed for ambiguous files; default: this machine's locale. */
  locale?: string;
}

const MARKS = '[\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069\\ufeff]*';
// Separators repeat (\2) so `31.12.23` and `12/31/23` match but `31.12/23` does not; `2023. 12. 31.`
// (Hungarian, Korean) allows a space after each dot.
const DATE = '(\\d{1,4})([./-])\\s?(\\d{1,2})\\2\\s?(\\d{1,4})\\.?';
const AMPM = '(?:[AaPp]\\.?\\s?[Mm]\\.?|上午|下午|午前|午後|오전|오후)';
const TIME = `(?:(${AMPM})\\s?)?(\\d{1,2})[:.](\\d{2})(?:[:.](\\d{2}))?(?:\\s?(${AMPM}))?`;
const ANDROID = new RegExp(`^${MARKS}${DATE},?\\s${TIME}\\s?[-–]\\s(.*)$`);
const IOS = new RegExp(`^${MARKS}\\[${DATE},?\\s${TIME}\\]\\s(.*)$`);
/** A date at the start followed only by (part of) a time: a header cut short, if it is the file's last line. */
const CUT_HEADER = new RegExp(`^\\[?${DATE}(,?\\s[\\d:.\\sAPMapm上下午]*)?[\\]\\-–]?\\s?$`);

function isCutHeader(line: string): boolean {
  const n = stripDirectionMarks(normalizeSpaces(line)).trimEnd();
  return CUT_HEADER.test(n) && !matchHeader(line);
}

interface Header {
  f1: number;
  f2: number;
  f3: number;
  yearFirst: boolean;
  hour: number;
  minute: number;
  second: number;
  ampm: string | undefined;
  rest: string;
  platform: 'android' | 'ios';
  /** Two-digit years are 20xx: WhatsApp did not exist before 2009. */
  shortYear: boolean;
}

function matchHeader(rawLine: string): Header | null {
  const line = normalizeSpaces(rawLine);
  let platform: Header['platform'] = 'android';
  let m = ANDROID.exec(line);
  if (!m) {
    m = IOS.exec(line);
    platform = 'ios';
  }
  if (!m) return null;
  const [, a, , b, c, pre, h, mi, s, post, rest] = m;
  const yearFirst = a!.length === 4;
  return {
    f1: Number(a),
    f2: Number(b),
    f3: Number(c),
    yearFirst,
    hour: Number(h),
    minute: Number(mi),
    second: s === undefined ? 0 : Number(s),
    ampm: pre ?? post,
    rest: rest!,
    platform,
    shortYear: (yearFirst ? a! : c!).length <= 2,
  };
}

function isPm(marker: string): boolean {
  return /^[Pp]|下午|午後|오후/.test(marker);
}

function localeDateOrder(locale: string | undefined): DateOrder {
  try {
    const parts = new Intl.DateTimeFormat(locale, { year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(
      new Date(Date.UTC(2000, 11, 31, 12)),
    );
    const month = parts.findIndex((p) => p.type === 'month');
    const day = parts.findIndex((p) => p.type === 'day');
    return month < day ? 'mdy' : 'dmy';
  } catch {
    return 'dmy';
  }
}

/** First pass: which of day/month comes first, settled by any field above 12. Stops as soon as it knows. */
async function inferDateOrder(lines: AsyncIterable<TextLine>): Promise<DateOrder | 'ymd' | null> {
  let yearLast = false;
  for await (const { line } of lines) {
    const h = matchHeader(line);
    if (!h || h.yearFirst) continue;
    yearLast = true;
    if (h.f1 > 12 && h.f2 <= 12) return 'dmy';
    if (h.f2 > 12 && h.f1 <= 12) return 'mdy';
  }
  // Year-first dates (zh, ja, hu, sv locales) are always year/month/day: nothing to decide.
  return yearLast ? null : 'ymd';
}

// ---- what a line's text means ---------------------------------------------------------------

/**
 * Group changes WhatsApp writes itself whose new text may contain ": " (`Leo changed the subject from "A"
 * to "Trip: Barcelona"`); tested on the part before the first colon, where the verb is.
 */
const SYSTEM_WITH_COLON = [
  /\bchanged the (subject|group name|group description)\b/i,
  /\bcambió (el asunto|la descripción|el nombre)\b/i,
  /(更改了|修改了|更改|将).*(群组|群組|群)(名称|名稱|描述|主题|說明)/,
];

const DELETED = [
  /^(This message was deleted|You deleted this message)\.?$/i,
  /^(Se eliminó este mensaje|Eliminaste este mensaje)\.?$/i,
  /^Waiting for this message/i,
  /^(此消息已删除|你删除了此消息|此訊息已刪除|你已刪除此訊息)。?$/,
];

const CALL = [
  /^(Missed |Silenced |Declined )?(group )?(voice|video) call\b/i,
  /^(Llamada|Videollamada)( de voz| de video)?( perdida| silenciada)?\b/i,
  /^(未接|已静音的|已拒绝的)?(群组)?(语音|视频|語音|視訊)通話?话?/,
];

const EDITED = /\s*<(This message was edited|Se editó este mensaje\.?|此消息已编辑|此訊息已編輯|Nachricht wurde bearbeitet)>$/i;

/** iOS with media: `<attached: 00000012-PHOTO-2023-12-31-21-41-05.jpg>` (possibly after a document's title). */
const ATTACHED = /^(.*?)\s*<(?:attached|adjunto|附件|Anhang|pièce jointe|allegato)[:：]\s*([^<>]+)>$/i;
/** Android with media: `IMG-20231231-WA0001.jpg (file attached)`. */
const FILE_ATTACHED =
  /^(\S(?:.*\S)?\.\w{2,5}) \((file attached|archivo adjunto|文件附件|附件|Datei angehängt|fichier joint|file allegato)\)$/i;
/** Android without media: `<Media omitted>` and its translations. */
const MEDIA_OMITTED =
  /^<(Media omitted|Multimedia omitido|Archivo omitido|Medien ausgeschlossen|Médias omis|媒体文件已省略|省略影音内容|省略影音內容|媒體已略過|[^<>]{0,30}(omitted|omitido|省略|忽略|略過)[^<>]{0,10})>$/i;
/** iOS without media: `image omitted`, `imagen omitida`, `图片已忽略`; documents carry their title first ("Trip.pdf • 3 pages document omitted"). */
const OMITTED = '\\s?(omitted|omitida|omitido|已忽略|已省略)$';
const KIND_OMITTED: Array<[RegExp, Attachment['kind']]> = [
  [new RegExp(`(?:^|\\s)(image|photo|GIF|imagen|foto|图片|圖片|照片|动图)${OMITTED}`, 'i'), 'image'],
  [new RegExp(`(?:^|\\s)(video|vídeo|视频|影片)${OMITTED}`, 'i'), 'video'],
  [new RegExp(`(?:^|\\s)(audio|voice message|音频|语音|音訊)${OMITTED}`, 'i'), 'audio'],
  [new RegExp(`(?:^|\\s)(sticker|贴图|貼圖)${OMITTED}`, 'i'), 'sticker'],
  [new RegExp(`(?:^|\\s)(document|documento|文档|文件)${OMITTED}`, 'i'), 'file'],
  [new RegExp(`(?:^|\\s)(Contact card|Tarjeta de contacto|联系人名片)${OMITTED}`, 'i'), 'other'],
];

/** iOS marks these with U+200E too, but they are a person's own: a poll they created, a location they shared. */
const MARKED_BUT_SAID = /^(POLL|ENCUESTA|投票|location|ubicación|位置)[:：]/i;

type Classified =
  { type: 'message'; text: string; attachments: Attachment[]; edited: boolean } | { type: 'skip'; why: 'system' | 'deleted' | 'call' };

function mediaUri(name: string, media: MediaIndex): string | undefined {
  return media.has(name) ? media.uri(name) : undefined;
}

function classifyAuthored(rawText: string, media: MediaIndex): Classified {
  const startsWithMark = /^[\u200e\u200f]/.test(rawText);
  let text = stripDirectionMarks(rawText).trim();
  // Most messages are plain words: the marker patterns below only run when the text could hold one
  // (ends in ">" or ")", or is short), which keeps a two-million-message import fast.
  let edited = false;
  if (text.endsWith('>') && EDITED.test(text)) {
    text = text.replace(EDITED, '');
    edited = true;
  }
  const short = text.length <= 60;
  if (short && DELETED.some((r) => r.test(text))) return { type: 'skip', why: 'deleted' };
  if (short && CALL.some((r) => r.test(text))) return { type: 'skip', why: 'call' };
  // Media markers fill the first line; lines after it are the caption the sender typed.
  const nl = text.indexOf('\n');
  const first = nl < 0 ? text : text.slice(0, nl);
  const caption = nl < 0 ? '' : text.slice(nl + 1).trim();
  if (first.endsWith('>')) {
    const attached = ATTACHED.exec(first);
    if (attached) {
      const name = attached[2]!.trim();
      // A document line reads "Trip.pdf • 3 pages <attached: …>": the part before is a description, not words said.
      const before = attached[1]!.includes('•') ? '' : attached[1]!.trim();
      const said = [before, caption].filter(Boolean).join('\n');
      return { type: 'message', text: said, attachments: [fileAttachment(name, mediaUri(name, media))], edited };
    }
    if (MEDIA_OMITTED.test(first)) return { type: 'message', text: caption, attachments: [{ kind: 'other' }], edited };
  }
  if (first.endsWith(')')) {
    const fileAttached = FILE_ATTACHED.exec(first);
    if (fileAttached) {
      const name = fileAttached[1]!;
      return { type: 'message', text: caption, attachments: [fileAttachment(name, mediaUri(name, media))], edited };
    }
  }
  if (first.length <= 120 && /(omitted|omitida|omitido|已忽略|已省略)$/i.test(first)) {
    for (const [re, kind] of KIND_OMITTED) {
      if (re.test(first)) return { type: 'message', text: caption, attachments: [{ kind }], edited };
    }
  }
  // iOS attributes group events to the group itself and marks their text with U+200E
  // ("Family: ‎Emma added Ben"); a person's own words never start with that mark.
  if (startsWithMark && !MARKED_BUT_SAID.test(text)) return { type: 'skip', why: 'system' };
  return { type: 'message', text, attachments: [], edited };
}

// ---- media next to the chat -----------------------------------------------------------------

/** Which media files came with the export, so attachments can link to them (never copied). */
export interface MediaIndex {
  has(name: string): boolean;
  uri(name: string): string;
}

const NO_MEDIA: MediaIndex = { has: () => false, uri: (n) => n };

function folderMedia(txtFile: string): MediaIndex {
  const dir = path.dirname(path.resolve(txtFile));
  let names: Set<string>;
  try {
    names = new Set(fs.readdirSync(dir));
  } catch {
    return NO_MEDIA;
  }
  return { has: (n) => names.has(n), uri: (n) => path.join(dir, n) };
}

// ---- chat name ------------------------------------------------------------------------------

const NAME_PATTERNS = [
  /^WhatsApp Chat with (.+)$/i,
  /^WhatsApp Chat - (.+)$/i,
  /^Chat de WhatsApp con (.+)$/i,
  /^WhatsApp-Chat mit (.+)$/i,
  /^Discussion WhatsApp avec (.+)$/i,
  /^与(.+)的 ?WhatsApp ?聊天$/,
  /^與(.+)的 ?WhatsApp ?對話$/,
  /^WhatsApp ?聊天 ?[-–] ?(.+)$/,
];

/** The chat's name from the export's file (or folder) name: stable across re-exports of the same chat. */
export function chatNameFromPath(file: string): string {
  let base = path.basename(file).replace(/\.(txt|zip)$/i, '');
  if (/^_?chat$/i.test(base)) base = path.basename(path.dirname(path.resolve(file)));
  base = base.replace(/\s\(\d+\)$/, ''); // "WhatsApp Chat with Emma (1).txt" is the same chat exported again
  for (const re of NAME_PATTERNS) {
    const m = re.exec(base);
    if (m) return m[1]!.trim();
  }
  return base;
}

// ---- the parser -----------------------------------------------------------------------------

interface ParseInput {
  /** What error messages call the file: the .txt path, or "chat.zip/_chat.txt". */
  label: string;
  chatName: string;
  /** Fresh line iterator each call: the date-order pass and the parse pass each read the file. */
  lines: () => AsyncIterable<TextLine>;
  media: MediaIndex;
}

interface Pending {
  lineNo: number;
  header: Header;
  speaker: string | null;
  parts: string[];
}

/** The chat in parts (see parts.ts): one part's messages in memory, however long the chat. */
async function* parseChat(input: ParseInput, o: WhatsAppOptions, ctx: ReadContext): AsyncGenerator<IncomingConversation> {
  const timeZone = checkTimeZone(o.timeZone ?? machineTimeZone());
  const inferred = await inferDateOrder(input.lines());
  let order: DateOrder | 'ymd';
  let orderSource = 'file';
  if (inferred) order = inferred;
  else {
    order = o.dateOrder ?? localeDateOrder(o.locale);
    orderSource = o.dateOrder ? 'option' : 'locale';
  }

  const parts = new ChatParts();
  // One string per speaker instead of one slice of the file per message.
  const names = new Map<string, string>();
  // Counted per part: the import report adds the parts up.
  let skipped = { system: 0, deleted: 0, call: 0 };
  let sawAmbiguousDate = false;
  let platform: Header['platform'] | null = null;
  let pending: Pending | null = null;
  let lastLine: TextLine | null = null;
  let any = false;

  const conversation = (part: ChatPart): IncomingConversation => {
    const c = makeConversation({
      source: 'whatsapp',
      externalId: input.chatName,
      title: input.chatName,
      participants: part.participants,
      metadata: {
        skipped: skipped.system + skipped.deleted + skipped.call,
        skippedBy: skipped,
        platform,
        dateOrder: order,
        // Until a date reads two ways, the order is not in question (the report takes the first part that says it is).
        dateOrderFrom: sawAmbiguousDate ? orderSource : 'file',
        timeZone,
        ...(part.continued ? { continued: true } : {}),
      },
      messages: part.messages,
    });
    skipped = { system: 0, deleted: 0, call: 0 };
    return c;
  };

  /** The pending message, complete now that the line after it is read; null when it is not one to keep. */
  const flush = (): IncomingMessage | null => {
    if (!pending) return null;
    const p = pending;
    pending = null;
    const h = p.header;
    let year: number;
    let month: number;
    let day: number;
    if (h.yearFirst) [year, month, day] = [h.f1, h.f2, h.f3];
    else if (order === 'dmy') [day, month, year] = [h.f1, h.f2, h.f3];
    else [month, day, year] = [h.f1, h.f2, h.f3];
    if (h.shortYear) year += 2000;
    if (!h.yearFirst && h.f1 <= 12 && h.f2 <= 12 && h.f1 !== h.f2) sawAmbiguousDate = true;
    let hour = h.hour;
    if (h.ampm !== undefined) {
      if (hour < 1 || hour > 12) throw importError(input.label, { line: p.lineNo }, `"${h.hour}" is not an hour on a 12-hour clock`);
      hour = (hour % 12) + (isPm(h.ampm) ? 12 : 0);
    }
    const wall = { year, month, day, hour, minute: h.minute, second: h.second };
    if (!isValidWallTime(wall)) {
      const shown = `${h.f1}/${h.f2}/${h.f3} ${h.hour}:${String(h.minute).padStart(2, '0')}`;
      throw importError(
        input.label,
        { line: p.lineNo },
        `invalid date or time "${shown}" (read as ${h.yearFirst ? 'year/month/day' : order === 'dmy' ? 'day/month/year' : 'month/day/year'}); the lines disagree on the date order or the file is damaged`,
      );
    }
    if (p.speaker === null) {
      skipped.system++;
      return null;
    }
    const raw = p.parts.length === 1 ? p.parts[0]! : p.parts.join('\n');
    const c = classifyAuthored(raw, input.media);
    if (c.type === 'skip') {
      skipped[c.why]++;
      return null;
    }
    const { at, utcOffsetMin } = wallTimeToInstant(wall, timeZone);
    return makeMessage({
      speaker: p.speaker,
      text: c.text,
      sentAt: at,
      utcOffsetMin,
      attachments: c.attachments,
      metadata: c.edited ? { edited: true } : undefined,
    });
  };

  for await (const tl of input.lines()) {
    lastLine = tl;
    const h = matchHeader(tl.line);
    if (!h) {
      if (!pending) {
        if (tl.line.trim() === '' && !any) continue;
        throw importError(
          input.label,
          { line: tl.lineNo },
          'no timestamp where a WhatsApp message should start (expected e.g. "12/31/23, 9:41 PM - Name: text" or "[31/12/2023, 21:41:05] Name: text")',
        );
      }
      // A line without a header continues the message above (multi-line messages and captions).
      (pending as Pending).parts.push(stripDirectionMarks(tl.line));
      continue;
    }
    any = true;
    const done = flush();
    const full = done && parts.add(done);
    if (full) yield conversation(full);
    platform ??= h.platform;
    const rest = h.rest;
    const colon = rest.indexOf(': ');
    let speaker: string | null = null;
    let text = rest;
    // The verb of a group change comes before the colon that is part of the new subject.
    if (colon > 0 && !SYSTEM_WITH_COLON.some((r) => r.test(rest.slice(0, colon)))) {
      const raw = rest.slice(0, colon);
      let name = names.get(raw);
      if (name === undefined) {
        name = stripDirectionMarks(raw).trim();
        if (names.size < 10_000) names.set(raw, name);
      }
      if (name) {
        speaker = name;
        text = rest.slice(colon + 2);
      }
    }
    pending = { lineNo: tl.lineNo, header: h, speaker, parts: [text] };
  }
  if (!any)
    throw importError(input.label, { line: lastLine?.lineNo ?? 1 }, 'no WhatsApp messages in this file (empty, or not a WhatsApp export)');
  // The last line is a date and a time that stop short of the author: the file was cut off.
  if (lastLine && isCutHeader(lastLine.line)) {
    throw importError(input.label, { line: lastLine.lineNo }, 'the file ends in the middle of a message header (truncated export?)');
  }
  const last = flush();
  const full = last && parts.add(last);
  if (full) yield conversation(full);

  if (sawAmbiguousDate && orderSource === 'locale') {
    ctx.warn(
      `${input.label}: no date in this chat has a day above 12, so day/month order cannot be told from the file; assumed ${order === 'dmy' ? 'day/month' : 'month/day'} (locale ${o.locale ?? 'of this machine'}). Re-import with the other order if dates look wrong.`,
    );
  }
  yield conversation(parts.take());
}

// ---- zip ------------------------------------------------------------------------------------

function isChatEntry(name: string): boolean {
  const base = path.posix.basename(name);
  return (
    /\.txt$/i.test(base) &&
    (/^_chat\.txt$/i.test(base) || NAME_PATTERNS.some((re) => re.test(base.replace(/\.txt$/i, '').replace(/\s\(\d+\)$/, ''))))
  );
}

function pickChatEntry(names: string[]): string | undefined {
  const chats = names.filter(isChatEntry);
  return chats.find((n) => /^_chat\.txt$/i.test(path.posix.basename(n))) ?? chats[0];
}

async function* entryLines(file: string, entry: string): AsyncGenerator<TextLine> {
  const stream = await zipEntryStream(file, entry);
  try {
    // WhatsApp writes UTF-8 (iOS adds a BOM, which splitLines drops).
    yield* refuseNul(`${file} (${entry})`, splitLines(decodeUtf8(stream)));
  } finally {
    stream.destroy();
  }
}

async function* decodeUtf8(s: Readable): AsyncGenerator<string> {
  const d = new TextDecoder('utf-8');
  for await (const chunk of s as AsyncIterable<Buffer>) yield d.decode(chunk, { stream: true });
  const tail = d.decode();
  if (tail) yield tail;
}

async function* readZip(file: string, o: WhatsAppOptions, ctx: ReadContext): AsyncGenerator<IncomingConversation> {
  const names = (await listZipEntries(file)).map((e) => e.name);
  const entry = pickChatEntry(names);
  if (!entry)
    throw importError(file, { line: 1 }, 'this zip has no chat text (_chat.txt or "WhatsApp Chat with ….txt"): not a WhatsApp export');
  const dir = path.posix.dirname(entry);
  const inZip = new Set(names);
  const within = (n: string) => (dir === '.' ? n : `${dir}/${n}`);
  const media: MediaIndex = {
    has: (n) => inZip.has(within(n)),
    // Linked, not copied: the archive and the member inside it.
    uri: (n) => `${file}#${within(n)}`,
  };
  // iOS names the text _chat.txt and the archive after the chat; Android names both after the chat.
  const chatName = chatNameFromPath(/^_chat\.txt$/i.test(path.posix.basename(entry)) ? file : entry);
  yield* parseChat({ label: `${file}/${entry}`, chatName, lines: () => entryLines(file, entry), media }, o, ctx);
}

// ---- the format -----------------------------------------------------------------------------

export function whatsappFormat(o: WhatsAppOptions = {}): ImportFormat {
  if (o.timeZone) checkTimeZone(o.timeZone);
  return {
    id: 'whatsapp',
    label: 'WhatsApp chat export (.txt or .zip)',
    detect: ({ path: p, head }) => {
      const ext = path.extname(p).toLowerCase();
      if (ext === '.zip') {
        if (!looksLikeZip(head)) return false;
        const names = zipEntryNamesSync(p);
        return names !== null && pickChatEntry(names) !== undefined;
      }
      if (ext !== '.txt') return false;
      // Two or more header-shaped lines among the first ones: a single date-like line could be anything.
      const sample = normalizeSpaces(head.slice(0, 16 * 1024));
      const lines = sample.split(/\r?\n/).slice(0, 80);
      const headers = lines.filter((l) => matchHeader(l) !== null).length;
      return headers >= 2 || (headers >= 1 && /whatsapp|_chat/i.test(path.basename(p)));
    },
    async *read(file, ctx) {
      if (path.extname(file).toLowerCase() === '.zip') {
        yield* readZip(file, withTimeZone(o, ctx), ctx);
        return;
      }
      yield* parseChat(
        { label: file, chatName: chatNameFromPath(file), lines: () => readLines(file), media: folderMedia(file) },
        withTimeZone(o, ctx),
        ctx,
      );
    },
  };
}

/** Registered instance: the machine's time zone and locale. */
export const whatsappImport: ImportFormat = whatsappFormat();
