import path from 'node:path';
import type { Attachment, IncomingConversation, IncomingMessage } from '../domain/conversation.js';
import { makeConversation, makeMessage, normalizeSpaces, stripDirectionMarks } from './chat-text.js';
import { importError, type ImportFormat, withTimeZone } from './import-format.js';
import { checkTimeZone, isValidWallTime, machineTimeZone, wallTimeToInstant } from './local-time.js';
import { ChatParts, type ChatPart } from './parts.js';
import { readLines } from './text-lines.js';

/**
 * LINE "Export chat history" / 「傳送聊天記錄」 / 「トーク履歴を送信」 (.txt, phone apps):
 *
 *   [LINE] Chat history with Emma        [LINE] 与Emma的聊天记录 · Emma的聊天记录 · Emmaとのトーク履歴
 *   Saved on: 2023/12/31 21:41           保存日期：… · 儲存日期：… · 保存日時：…
 *
 *   2023/12/30(Sat)                      2023.12.30 星期六 · 2023/12/30（六） · Sat, 12/30/2023
 *   21:41<TAB>Emma<TAB>Hello!
 *   21:42<TAB>Alex<TAB>"First line
 *   second line"                         (multi-line messages are quoted; "" inside means ")
 *   21:45<TAB>Emma joined the group.     (system lines have no speaker column)
 *
 * Times are the phone's wall clock under the last date line, read in `timeZone` (default: this
 * machine's zone). 12-hour variants (上午/下午, 午前/午後, AM/PM) are read too. System lines, unsent
 * notices and calls (☎) are skipped. Not handled: the Windows PC "Save chat" layout, which separates
 * time, name and text with spaces (ambiguous when names contain spaces).
 */

export interface LineOptions {
  /** IANA zone of the phone; default: this machine's zone. */
  timeZone?: string;
}

const HEADER = /^\[LINE\]\s*(.*)$/;
const SAVED = /^(Saved on|保存日期|儲存日期|保存日時|保存日時)\s*[:：]\s*(.*)$/i;
const YMD = /^(\d{4})[/.-](\d{1,2})[/.-](\d{1,2})\s*(?:[（(][^)）]*[)）]|\s+\S+)?\s*$/;
const MDY = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*\.?,?\s+(\d{1,2})\/(\d{1,2})\/(\d{4})\s*$/i;
const AMPM = '上午|下午|午前|午後|AM|PM|am|pm';
const MESSAGE = new RegExp(`^(?:(${AMPM})\\s?)?(\\d{1,2}):(\\d{2})(?:\\s?(${AMPM}))?\\t(.*)$`);

const CHAT_NAME = [
  /^Chat history (?:with|in) (.+)$/i,
  /^(?:与|與|和)(.+)的聊天(?:记录|記錄)$/,
  /^(.+)的聊天(?:记录|記錄)$/,
  /^(.+)とのトーク履歴$/,
  /^(.+)のトーク履歴$/,
  /^Chat with (.+)$/i,
];

function chatName(title: string): string {
  const t = title.trim();
  for (const re of CHAT_NAME) {
    const m = re.exec(t);
    if (m) return m[1]!.trim();
  }
  return t;
}

// Notices LINE writes in a person's name ("Emma unsent a message."). Anchored and only believed when
// the text starts with the speaker's own name, so "I joined the group yesterday" stays a message.
const SYSTEM = [
  / (unsent a message|joined the group|left the group|invited .{1,80} to the group|removed .{1,80} from the group|changed the group (name|photo|icon).*|created the group.*|added .{1,80} to the group)\.?$/i,
  /\s?(已?收回了?(讯息|訊息|消息|一则讯息|一則訊息)|加入了?(群组|群組|聊天)|退出了?(群组|群組|聊天)|邀请.{1,80}加入.*|邀請.{1,80}加入.*|变更了群组.*|變更了群組.*)。?$/,
  /(メッセージの送信を取り消しました|が参加しました|が退出しました|を招待しました|グループ名を変更しました.*)。?$/,
];

function isNotice(speaker: string, text: string): boolean {
  const fromSpeaker = text.startsWith(speaker) || /^(You|你|您|あなた)/.test(text);
  return fromSpeaker && text.length < 160 && SYSTEM.some((r) => r.test(text));
}

const PLACEHOLDERS: Record<string, Attachment['kind']> = {
  Photo: 'image',
  Photos: 'image',
  Album: 'image',
  GIF: 'image',
  照片: 'image',
  相片: 'image',
  图片: 'image',
  圖片: 'image',
  相簿: 'image',
  写真: 'image',
  アルバム: 'image',
  Sticker: 'sticker',
  貼圖: 'sticker',
  贴图: 'sticker',
  スタンプ: 'sticker',
  Video: 'video',
  影片: 'video',
  视频: 'video',
  動画: 'video',
  'Voice message': 'audio',
  語音訊息: 'audio',
  语音信息: 'audio',
  语音消息: 'audio',
  ボイスメッセージ: 'audio',
  File: 'file',
  檔案: 'file',
  文件: 'file',
  ファイル: 'file',
  Contact: 'other',
  Location: 'other',
  聯絡資訊: 'other',
  位置資訊: 'other',
  位置信息: 'other',
  連絡先: 'other',
  位置情報: 'other',
};
const PLACEHOLDER = /^\[([^\]]{1,20})\]$/;

function isPm(marker: string): boolean {
  return /^(下午|午後|PM|pm)$/.test(marker);
}

interface Quoted {
  startLine: number;
  wall: { year: number; month: number; day: number; hour: number; minute: number };
  speaker: string;
  parts: string[];
}

async function* readLine(file: string, o: LineOptions): AsyncGenerator<IncomingConversation> {
  const timeZone = checkTimeZone(o.timeZone ?? machineTimeZone());
  let name: string | null = null;
  let savedOn: string | null = null;
  let day: { year: number; month: number; day: number } | null = null;
  let quoted: Quoted | null = null;
  let last: IncomingMessage | null = null;
  // Lines that continue a skipped notice (a group note, a long announcement) are skipped with it.
  let afterSkipped = false;
  let started = false;
  // The chat in parts (see parts.ts); skipped lines are counted per part, the import report adds them up.
  const parts = new ChatParts();
  let skipped = { system: 0, call: 0 };

  const conversation = (part: ChatPart): IncomingConversation => {
    const chat =
      name ||
      chatName(
        path
          .basename(file)
          .replace(/\.txt$/i, '')
          .replace(/^\[LINE\]\s*/, ''),
      );
    const c = makeConversation({
      source: 'line',
      externalId: chat,
      title: chat,
      participants: part.participants,
      metadata: {
        skipped: skipped.system + skipped.call,
        skippedBy: skipped,
        savedOn,
        timeZone,
        ...(part.continued ? { continued: true } : {}),
      },
      messages: part.messages,
    });
    skipped = { system: 0, call: 0 };
    return c;
  };

  /** The message said, or null for a call or a notice; it becomes `last`, which lines after it may continue. */
  const said = (speaker: string, rawText: string, wall: Quoted['wall']): IncomingMessage | null => {
    const text = rawText.trim();
    afterSkipped = false;
    if (text.startsWith('☎')) {
      skipped.call++;
      last = null;
      afterSkipped = true;
      return null;
    }
    if (isNotice(speaker, text)) {
      skipped.system++;
      last = null;
      afterSkipped = true;
      return null;
    }
    const ph = PLACEHOLDER.exec(text);
    const kind = ph ? PLACEHOLDERS[ph[1]!] : undefined;
    const { at, utcOffsetMin } = wallTimeToInstant(wall, timeZone);
    last = makeMessage({ speaker, text: kind ? '' : text, sentAt: at, utcOffsetMin, attachments: kind ? [{ kind }] : undefined });
    return last;
  };

  for await (const { line: raw, lineNo } of readLines(file)) {
    if (quoted) {
      const q = quoted as Quoted;
      // The message ends at the line whose closing quote is not part of a doubled "" pair.
      const trailing = /"+$/.exec(raw)?.[0].length ?? 0;
      if (trailing % 2 === 1) {
        q.parts.push(raw.slice(0, -1));
        quoted = null;
        const message = said(q.speaker, q.parts.join('\n').replace(/""/g, '"'), q.wall);
        // The part before is handed over only now that a new message starts: nothing changes it any more.
        const full = message && parts.add(message);
        if (full) yield conversation(full);
      } else {
        q.parts.push(raw);
      }
      continue;
    }
    const line = stripDirectionMarks(normalizeSpaces(raw));
    const trimmed = line.trim();
    if (trimmed === '') continue;
    const header = HEADER.exec(trimmed);
    if (header && !started) {
      name = chatName(header[1]!);
      started = true;
      continue;
    }
    const saved = SAVED.exec(trimmed);
    if (saved && !day) {
      savedOn = saved[2]!.trim();
      continue;
    }
    const ymd = YMD.exec(trimmed);
    const mdy = ymd ? null : MDY.exec(trimmed);
    if (ymd || mdy) {
      const d = ymd ? { year: +ymd[1]!, month: +ymd[2]!, day: +ymd[3]! } : { year: +mdy![3]!, month: +mdy![1]!, day: +mdy![2]! };
      if (!isValidWallTime({ ...d, hour: 0, minute: 0 })) throw importError(file, { line: lineNo }, `invalid date "${trimmed}"`);
      day = d;
      started = true;
      last = null;
      afterSkipped = false;
      continue;
    }
    const m = MESSAGE.exec(line);
    if (m) {
      if (!day) throw importError(file, { line: lineNo }, 'a message before any date line (expected a line like "2023/12/30(Sat)" first)');
      const marker = m[1] ?? m[4];
      let hour = Number(m[2]);
      if (marker) {
        if (hour < 1 || hour > 12) throw importError(file, { line: lineNo }, `"${m[2]}:${m[3]}" is not a time on a 12-hour clock`);
        hour = (hour % 12) + (isPm(marker) ? 12 : 0);
      }
      const wall = { ...day, hour, minute: Number(m[3]) };
      if (!isValidWallTime(wall)) throw importError(file, { line: lineNo }, `invalid time "${m[2]}:${m[3]}"`);
      const fields = m[5]!.split('\t');
      if (fields.length < 2 || fields[0]!.trim() === '') {
        // "21:45<TAB>Emma joined the group." — no speaker column.
        skipped.system++;
        last = null;
        afterSkipped = true;
        continue;
      }
      const speaker = fields[0]!.trim();
      const text = fields.slice(1).join('\t');
      if (text.startsWith('"') && !closesOnSameLine(text)) {
        quoted = { startLine: lineNo, wall, speaker, parts: [text.slice(1)] };
        continue;
      }
      const message = said(speaker, text, wall);
      const full = message && parts.add(message);
      if (full) yield conversation(full);
      continue;
    }
    if (!started)
      throw importError(
        file,
        { line: lineNo },
        'not a LINE chat export (expected "[LINE] Chat history with …" and date lines like "2023/12/30(Sat)")',
      );
    // A line that is neither date nor message continues the message above (older exports do not
    // always quote multi-line messages).
    if (last) {
      const l = last as IncomingMessage;
      l.text = l.text ? `${l.text}\n${raw}` : raw;
      continue;
    }
    if (afterSkipped) continue;
    throw importError(file, { line: lineNo }, 'text outside any message (expected a date line or "HH:MM<TAB>name<TAB>text")');
  }
  if (quoted)
    throw importError(
      file,
      { line: (quoted as Quoted).startLine },
      'a quoted message that starts on this line is never closed (truncated export?)',
    );
  if (!started) throw importError(file, { line: 1 }, 'no LINE messages in this file (empty, or not a LINE chat export)');
  yield conversation(parts.take());
}

/** `"hello"` on one line is a complete quoted message only if its last quote is not half of a "" pair. */
function closesOnSameLine(text: string): boolean {
  if (text.length < 2) return false;
  const trailing = /"+$/.exec(text.slice(1))?.[0].length ?? 0;
  return trailing % 2 === 1;
}

export function lineFormat(o: LineOptions = {}): ImportFormat {
  if (o.timeZone) checkTimeZone(o.timeZone);
  return {
    id: 'line',
    label: 'LINE chat history (.txt)',
    detect: ({ path: p, head }) => {
      if (path.extname(p).toLowerCase() !== '.txt') return false;
      const h = head.replace(/^\ufeff/, '');
      if (/^\[LINE\]/.test(h)) return true;
      // Without the title line: date lines followed by tab-separated "time, name, text" lines.
      const lines = h.split(/\r?\n/).slice(0, 60);
      return lines.some((l) => YMD.test(l.trim())) && lines.filter((l) => MESSAGE.test(l) && l.split('\t').length >= 3).length >= 2;
    },
    read: (file, ctx) => readLine(file, withTimeZone(o, ctx)),
  };
}

/** Registered instance: the machine's time zone. */
export const lineImport: ImportFormat = lineFormat();
