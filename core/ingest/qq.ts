import path from 'node:path';
import type { Attachment, IncomingConversation, IncomingMessage } from '../domain/conversation.js';
import { makeConversation, makeMessage } from './chat-text.js';
import { importError, type ImportFormat, withTimeZone } from './import-format.js';
import { checkTimeZone, isValidWallTime, machineTimeZone, wallTimeToInstant } from './local-time.js';
import { ChatParts, type ChatPart } from './parts.js';
import { asciiView, readLines } from './text-lines.js';

/**
 * QQ / TIM "消息管理器 → 导出消息记录 → 文本文件 (*.txt)":
 *
 *   消息记录（此消息记录为文本格式，不支持重新导入）
 *
 *   ================================================================
 *   消息分组:我的好友
 *   ================================================================
 *   消息对象:张三
 *   ================================================================
 *
 *   2019-07-16 18:15:05 张三(12345)
 *   在吗？
 *
 *   2019-07-16 18:16:40 小明<xiaoming@example.com>
 *   [图片]
 *
 * Each `消息对象` section is one conversation (an export of "all messages" holds many). A message runs
 * from its header to the next header or section rule; trailing blank lines are dropped. Times are the
 * PC's wall clock, read in `timeZone` (default: this machine's zone). A person is identified by their
 * QQ number (or e-mail) and shown under the last nickname they used in that chat, so a renamed group
 * member stays one speaker. `[图片]`, `[表情]`, … become attachments; 系统消息(10000) lines are skipped.
 * Encodings: UTF-8 (with or without BOM), UTF-16 with BOM, or GBK.
 */

export interface QqOptions {
  /** IANA zone of the PC that exported; default: this machine's zone. */
  timeZone?: string;
}

const RULE = /^={10,}\s*$/;
const GROUP = /^消息分组[:：]\s*(.*)$/;
const TARGET = /^消息对象[:：]\s*(.*)$/;
const TITLE = /^消息记录（此消息记录为文本格式，不支持重新导入）\s*$|^消息记录\s*$/;
// Group titles ("【管理员】", "【活跃】") precede the nickname; the id is a QQ number or an e-mail address.
const HEADER = /^(\d{4})-(\d{1,2})-(\d{1,2})\s+(\d{1,2}):(\d{2}):(\d{2})\s+(?:【[^】]*】)?(.*?)(?:\((\d{4,12})\)|<([^<>\s]+)>)\s*$/;
const CUT_HEADER = /^\d{4}-\d{1,2}-\d{1,2}(\s+[\d:]*)?\s*$/;

/** System accounts: join/leave notices, recalls, group announcements. */
const SYSTEM_IDS = new Set(['10000', '1000000']);

const PLACEHOLDERS: Record<string, Attachment['kind']> = {
  图片: 'image',
  闪照: 'image',
  表情: 'sticker',
  动画表情: 'sticker',
  语音: 'audio',
  视频: 'video',
  短视频: 'video',
  文件: 'file',
};
const PLACEHOLDER = new RegExp(`\\[(${Object.keys(PLACEHOLDERS).join('|')})\\]`, 'g');

interface Section {
  name: string | null;
  group: string | null;
  /** The section's messages in parts (see parts.ts): one part in memory, however long the chat. */
  parts: ChatParts;
  /** Skipped since the last part: the import report adds the parts up. */
  skipped: number;
  /** Fixed when its first part is handed over: every part carries it. */
  externalId: string | null;
  /** The last nickname of each sender id in this section. */
  lastName: Map<string, string>;
}

interface Pending {
  lineNo: number;
  wall: { year: number; month: number; day: number; hour: number; minute: number; second: number };
  id: string;
  name: string;
  lines: string[];
}

/**
 * The last nickname each sender id used, per section in file order: a first pass, because a chat's
 * parts are stored before its end is read, and a renamed member must be one speaker in all of them.
 * Sections and messages start where `readQq` starts them.
 */
async function lastNicknames(file: string): Promise<Map<string, string>[]> {
  const sections = [new Map<string, string>()];
  let inMessage = false;
  for await (const { line } of readLines(file)) {
    if (RULE.test(line)) {
      inMessage = false;
      continue;
    }
    if (!inMessage && TARGET.test(line.trim())) {
      sections.push(new Map());
      continue;
    }
    const h = HEADER.exec(line);
    if (!h) continue;
    inMessage = true;
    const name = h[7]!.trim();
    if (name) sections.at(-1)!.set(h[8] ?? h[9]!, name);
  }
  return sections;
}

async function* readQq(file: string, o: QqOptions): AsyncGenerator<IncomingConversation> {
  const timeZone = checkTimeZone(o.timeZone ?? machineTimeZone());
  const stem = path.basename(file).replace(/\.txt$/i, '');
  const nicknames = await lastNicknames(file);
  let sections = 0;
  const newSection = (name: string | null, group: string | null): Section => ({
    name,
    group,
    parts: new ChatParts(),
    skipped: 0,
    externalId: null,
    lastName: nicknames[sections++] ?? new Map(),
  });
  let section = newSection(null, null);
  let group: string | null = null;
  let pending: Pending | null = null;
  let sawAnything = false;
  let lastContentLine: { lineNo: number; line: string; isHeader: boolean } | null = null;
  const seenNames = new Map<string, number>();

  const conversation = (s: Section, part: ChatPart): IncomingConversation => {
    const base = s.name ?? stem;
    if (s.externalId === null) {
      // The same contact name twice (a friend and a group both called "家人"): keep both, apart.
      const n = (seenNames.get(base) ?? 0) + 1;
      seenNames.set(base, n);
      s.externalId = n === 1 ? base : `${base} (${n})`;
    }
    const c = makeConversation({
      source: 'qq',
      externalId: s.externalId,
      title: base,
      participants: part.participants,
      metadata: { skipped: s.skipped, group: s.group, timeZone, ...(part.continued ? { continued: true } : {}) },
      messages: part.messages,
    });
    s.skipped = 0;
    return c;
  };

  /** The message whose lines have all been read, as its section's next message; null when it is a system notice. */
  const flushMessage = (): IncomingMessage | null => {
    if (!pending) return null;
    const p = pending;
    pending = null;
    if (SYSTEM_IDS.has(p.id)) {
      section.skipped++;
      return null;
    }
    while (p.lines.length && p.lines.at(-1)!.trim() === '') p.lines.pop();
    const raw = p.lines.join('\n');
    const attachments: Attachment[] = [];
    const text = raw
      .replace(PLACEHOLDER, (_, what: string) => {
        attachments.push({ kind: PLACEHOLDERS[what]! });
        return '';
      })
      .trim();
    const { at, utcOffsetMin } = wallTimeToInstant(p.wall, timeZone);
    const speaker = section.lastName.get(p.id) || p.id;
    return makeMessage({ speaker, text, sentAt: at, utcOffsetMin, attachments });
  };
  /** Ends the message being read; the section's part it fills up, if it starts the next one. */
  const endMessage = (): IncomingConversation | null => {
    const m = flushMessage();
    const full = m && section.parts.add(m);
    return full ? conversation(section, full) : null;
  };

  /** The section's last part: none for the lines before the first section when they hold no message. */
  const finishSection = (): IncomingConversation | null => {
    const part = section.parts.take();
    if (section.name === null && part.messages.length === 0) return null;
    return conversation(section, part);
  };

  for await (const { line, lineNo } of readLines(file)) {
    const trimmed = line.trim();
    if (trimmed !== '') lastContentLine = { lineNo, line, isHeader: false };
    if (RULE.test(line)) {
      const full = endMessage();
      if (full) yield full;
      continue;
    }
    const g = GROUP.exec(trimmed);
    if (g && !pending) {
      group = g[1]!.trim() || null;
      continue;
    }
    // "消息对象:" inside a message is its text: sections only start after a rule, and rules end messages.
    const t = TARGET.exec(trimmed);
    if (t && !pending) {
      // Not in a message: a rule ended it.
      const done = finishSection();
      if (done) yield done;
      section = newSection(t[1]!.trim() || null, group);
      sawAnything = true;
      continue;
    }
    const h = HEADER.exec(line);
    if (h) {
      const full = endMessage();
      if (full) yield full;
      const wall = { year: +h[1]!, month: +h[2]!, day: +h[3]!, hour: +h[4]!, minute: +h[5]!, second: +h[6]! };
      if (!isValidWallTime(wall))
        throw importError(file, { line: lineNo }, `invalid date or time "${h[1]}-${h[2]}-${h[3]} ${h[4]}:${h[5]}:${h[6]}"`);
      pending = { lineNo, wall, id: h[8] ?? h[9]!, name: h[7]!.trim(), lines: [] };
      lastContentLine = { lineNo, line, isHeader: true };
      sawAnything = true;
      continue;
    }
    if (pending) {
      (pending as Pending).lines.push(line);
      continue;
    }
    if (trimmed === '' || TITLE.test(trimmed)) continue;
    throw importError(
      file,
      { line: lineNo },
      sawAnything
        ? 'text outside any message (expected a header like "2019-07-16 18:15:05 昵称(12345)")'
        : 'not a QQ text export (expected "消息记录" and "消息对象:" sections, or message headers like "2019-07-16 18:15:05 昵称(12345)")',
    );
  }
  if (!sawAnything) throw importError(file, { line: 1 }, 'no QQ messages in this file (empty, or not a QQ text export)');
  if (lastContentLine && (lastContentLine.isHeader || (CUT_HEADER.test(lastContentLine.line) && !HEADER.test(lastContentLine.line)))) {
    throw importError(
      file,
      { line: lastContentLine.lineNo },
      'the file ends at a message header with no message after it (truncated export?)',
    );
  }
  const full = endMessage();
  if (full) yield full;
  const done = finishSection();
  if (done) yield done;
}

export function qqFormat(o: QqOptions = {}): ImportFormat {
  if (o.timeZone) checkTimeZone(o.timeZone);
  return {
    id: 'qq',
    label: 'QQ / TIM text export (消息记录 .txt)',
    detect: ({ path: p, head }) => {
      if (path.extname(p).toLowerCase() !== '.txt') return false;
      const h = asciiView(head);
      if (/消息记录（此消息记录为文本格式|^消息对象[:：]/m.test(h)) return true;
      // GBK heads decoded as UTF-8 lose the Chinese but keep the ASCII structure.
      return /^={40,}\s*$/m.test(h) && /^\d{4}-\d{2}-\d{2} \d{1,2}:\d{2}:\d{2} .*(\(\d{4,12}\)|<[^<>\s]+>)\s*$/m.test(h);
    },
    read: (file, ctx) => readQq(file, withTimeZone(o, ctx)),
  };
}

/** Registered instance: the machine's time zone. */
export const qqImport: ImportFormat = qqFormat();
