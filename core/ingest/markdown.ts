import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { IncomingConversation } from '../domain/conversation.js';
import { NemoriError } from '../domain/errors.js';
import { charLength, makeConversation, makeMessage } from './chat-text.js';
import { importError, type ImportFormat, withTimeZone } from './import-format.js';
import { checkTimeZone, isValidWallTime, machineTimeZone, offsetAt, wallTimeToInstant, type WallTime } from './local-time.js';
import { ChatParts, type ChatPart } from './parts.js';
import { readLines } from './text-lines.js';

/**
 * Markdown journals and agent memory folders (migrating from other memory tools): a `.md` file, or a folder of them
 * walked recursively in path order. Each file is one conversation (id: its path relative to the folder
 * imported); each paragraph (text between blank lines) is one message by the person (role 'user',
 * speaker 'me' or the front matter's `author`). Headings, horizontal rules, fenced code blocks, HTML
 * comments and fragments under 20 characters are not memories and are skipped.
 *
 * When: a dated heading (`## 2024-03-05`, `## 2024-03-05 14:30`, `## 2024年3月5日`) dates the paragraphs
 * under it; else the front matter's `date:`; else a date in the file name (`2024-03-05.md`); else the
 * file's modification time. Dates without a time are midnight, wall-clock times are read in `timeZone`
 * (default: this machine's zone); a front-matter date with an offset is taken as written.
 *
 * Idempotent: a paragraph's id is a hash of its text, so importing the folder again adds only new
 * paragraphs, even when the time came from a modification time that has changed since.
 */

export interface MarkdownOptions {
  /** IANA zone for dates and times written without an offset; default: this machine's zone. */
  timeZone?: string;
  /** Who wrote the journal when the front matter does not say; default 'me'. */
  speaker?: string;
}

const MIN_CHARS = 20;
const HEADING = /^ {0,3}#{1,6}(\s|$)/;
const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const SETEXT = /^ {0,3}(=+|-+)\s*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const COMMENT = /^\s*<!--.*-->\s*$/;
const DATE_IN_TEXT = /(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})(?:\s*日)?(?:[ T]+(\d{1,2}):(\d{2}))?/;

interface When {
  at: Date;
  utcOffsetMin: number;
  source: 'heading' | 'front-matter' | 'file-name' | 'mtime';
}

function dateOf(text: string, timeZone: string): { at: Date; utcOffsetMin: number } | null {
  const m = DATE_IN_TEXT.exec(text);
  if (!m) return null;
  const wall: WallTime = { year: +m[1]!, month: +m[2]!, day: +m[3]!, hour: m[4] ? +m[4] : 0, minute: m[5] ? +m[5] : 0 };
  if (!isValidWallTime(wall)) return null;
  return wallTimeToInstant(wall, timeZone);
}

/** Front-matter dates: `2024-03-05`, `2024-03-05 14:30`, or ISO with an offset (taken as written). */
function frontMatterDate(value: string, timeZone: string): { at: Date; utcOffsetMin: number } | null {
  const v = value.replace(/^["']|["']$/g, '').trim();
  const iso = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)\s*(Z|[+-]\d{2}:?\d{2})$/.exec(v);
  if (iso) {
    const at = new Date(`${iso[1]}T${iso[2]}${iso[3] === 'Z' ? 'Z' : iso[3]!.replace(/^([+-]\d{2})(\d{2})$/, '$1:$2')}`);
    if (Number.isNaN(at.getTime())) return null;
    const off = iso[3] === 'Z' ? 0 : (iso[3]!.startsWith('-') ? -1 : 1) * (Number(iso[3]!.slice(1, 3)) * 60 + Number(iso[3]!.slice(-2)));
    return { at, utcOffsetMin: off };
  }
  return dateOf(v, timeZone);
}

function fileNameDate(file: string, timeZone: string): { at: Date; utcOffsetMin: number } | null {
  const stem = path.basename(file).replace(/\.(md|markdown)$/i, '');
  const compact = /^(\d{4})(\d{2})(\d{2})$/.exec(stem);
  if (compact) return dateOf(`${compact[1]}-${compact[2]}-${compact[3]}`, timeZone);
  const m = /(\d{4})[-_.](\d{2})[-_.](\d{2})/.exec(stem);
  return m ? dateOf(`${m[1]}-${m[2]}-${m[3]}`, timeZone) : null;
}

function paragraphId(text: string, seen: Map<string, number>): string {
  const h = createHash('sha256').update(text).digest('hex').slice(0, 32);
  const n = (seen.get(h) ?? 0) + 1;
  seen.set(h, n);
  // The same paragraph twice in one file stays twice.
  return n === 1 ? `p:${h}` : `p:${h}#${n}`;
}

/** One file as one conversation, in parts (see parts.ts): one part's paragraphs in memory, however long the file. */
async function* readMarkdownFile(
  file: string,
  relative: string,
  o: MarkdownOptions,
  timeZone: string,
): AsyncGenerator<IncomingConversation> {
  const parts = new ChatParts();
  /** A part handed back by the paragraph that did not fit in it, yielded before the next line is read. */
  const ready: ChatPart[] = [];
  const ids = new Map<string, number>();
  // Counted per part: the import report adds the parts up.
  let skipped = 0;
  let codeBlocks = 0;
  let front: Record<string, string> | null = null;
  let inFront = false;
  let fence: { marker: string; line: number } | null = null;
  let para: string[] = [];
  let title: string | null = null;
  let headingWhen: When | null = null;
  let base: When | null = null;
  let speaker = o.speaker ?? 'me';
  const sources = new Set<When['source']>();

  const baseWhen = async (): Promise<When> => {
    if (base) return base;
    const fm = front?.date ? frontMatterDate(front.date, timeZone) : null;
    if (fm) base = { ...fm, source: 'front-matter' };
    else {
      const fn = fileNameDate(file, timeZone);
      if (fn) base = { ...fn, source: 'file-name' };
      else {
        const at = (await fs.promises.stat(file)).mtime;
        base = { at, utcOffsetMin: offsetAt(at, timeZone), source: 'mtime' };
      }
    }
    return base;
  };

  const endParagraph = async () => {
    if (para.length === 0) return;
    const text = para.join('\n').trim();
    para = [];
    if (charLength(text) < MIN_CHARS) {
      if (text) skipped++;
      return;
    }
    const when = headingWhen ?? (await baseWhen());
    sources.add(when.source);
    const full = parts.add(
      makeMessage({ externalId: paragraphId(text, ids), speaker, role: 'user', text, sentAt: when.at, utcOffsetMin: when.utcOffsetMin }),
    );
    if (full) ready.push(full);
  };

  // The title so far: the store keeps the last part's, which has seen the whole file.
  const conversation = (part: ChatPart): IncomingConversation => {
    const fm = front as Record<string, string> | null;
    const c = makeConversation({
      source: 'markdown',
      externalId: relative,
      title: fm?.title || title || path.basename(file).replace(/\.(md|markdown)$/i, ''),
      participants: part.participants,
      metadata: { skipped, codeBlocks, timeFrom: [...sources], timeZone, ...(part.continued ? { continued: true } : {}) },
      messages: part.messages,
    });
    skipped = 0;
    return c;
  };

  let first = true;
  for await (const { line, lineNo } of readLines(file)) {
    for (const part of ready.splice(0)) yield conversation(part);
    if (first) {
      first = false;
      if (/^---\s*$/.test(line)) {
        inFront = true;
        front = {};
        continue;
      }
    }
    if (inFront) {
      if (/^(---|\.\.\.)\s*$/.test(line)) {
        inFront = false;
        if (front?.author) speaker = front.author;
        continue;
      }
      const kv = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line);
      if (kv) front![kv[1]!.toLowerCase()] = kv[2]!.replace(/^["']|["']$/g, '').trim();
      // A date that is no real one (2023-02-30) would silently give way to the file name or its time: refuse it.
      if (kv?.[1]!.toLowerCase() === 'date' && DATE_IN_TEXT.test(front!.date ?? '') && !frontMatterDate(front!.date!, timeZone))
        throw importError(
          file,
          { line: lineNo },
          `date: "${front!.date}" is not a real date (expected 2024-03-05, 2024-03-05 14:30 or ISO 8601)`,
        );
      continue;
    }
    if (fence) {
      if (line.trim().startsWith(fence.marker)) fence = null;
      continue;
    }
    const f = FENCE.exec(line);
    if (f) {
      await endParagraph();
      fence = { marker: f[1]!, line: lineNo };
      codeBlocks++;
      continue;
    }
    if (HEADING.test(line)) {
      await endParagraph();
      const heading = line
        .replace(/^ {0,3}#{1,6}\s*/, '')
        .replace(/\s+#+\s*$/, '')
        .trim();
      if (title === null && /^ {0,3}#\s/.test(line)) title = heading;
      const d = dateOf(heading, timeZone);
      if (d) headingWhen = { ...d, source: 'heading' };
      continue;
    }
    // "Title\n=====" / "Title\n-----": the line above was a heading, not a paragraph.
    if (SETEXT.test(line) && para.length === 1) {
      const heading = para[0]!.trim();
      para = [];
      if (title === null && line.trim().startsWith('=')) title = heading;
      const d = dateOf(heading, timeZone);
      if (d) headingWhen = { ...d, source: 'heading' };
      continue;
    }
    if (RULE.test(line) || COMMENT.test(line)) {
      await endParagraph();
      continue;
    }
    if (line.trim() === '') {
      await endParagraph();
      continue;
    }
    para.push(line);
  }
  if (inFront) throw importError(file, { line: 1 }, 'the front matter opened here ("---") is never closed (truncated file?)');
  if (fence)
    throw importError(file, { line: (fence as { line: number }).line }, 'a code block opened here is never closed (truncated file?)');
  await endParagraph();
  for (const part of ready.splice(0)) yield conversation(part);
  yield conversation(parts.take());
}

const IGNORED_DIRS = new Set(['node_modules', '.git', '.obsidian', '.trash']);

async function markdownFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    const entries = await fs.promises.readdir(d, { withFileTypes: true });
    for (const e of entries) {
      if (e.name.startsWith('.') && e.isDirectory()) continue;
      const full = path.join(d, e.name);
      if (e.isDirectory()) {
        if (!IGNORED_DIRS.has(e.name)) await walk(full);
      } else if (e.isFile() && /\.(md|markdown)$/i.test(e.name)) {
        out.push(full);
      }
    }
  };
  await walk(dir);
  const rel = (f: string) => path.relative(dir, f).split(path.sep).join('/');
  // Code-unit order, not locale order: the same folder always imports in the same order.
  return out.sort((a, b) => (rel(a) < rel(b) ? -1 : rel(a) > rel(b) ? 1 : 0));
}

async function* readMarkdown(target: string, o: MarkdownOptions): AsyncGenerator<IncomingConversation> {
  const timeZone = checkTimeZone(o.timeZone ?? machineTimeZone());
  let stat: fs.Stats;
  try {
    stat = await fs.promises.stat(target);
  } catch (e) {
    throw new NemoriError('INVALID_INPUT', `${target}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, {
      file: target,
    });
  }
  if (!stat.isDirectory()) {
    yield* readMarkdownFile(target, path.basename(target), o, timeZone);
    return;
  }
  const files = await markdownFiles(target);
  if (files.length === 0) throw importError(target, { line: 1 }, 'no Markdown files (*.md) in this folder');
  for (const f of files) yield* readMarkdownFile(f, path.relative(target, f).split(path.sep).join('/'), o, timeZone);
}

export function markdownFormat(o: MarkdownOptions = {}): ImportFormat {
  if (o.timeZone) checkTimeZone(o.timeZone);
  return {
    id: 'markdown',
    label: 'Markdown journal or memory folder (.md)',
    detect: ({ path: p }) => /\.(md|markdown)$/i.test(p),
    readsFolders: true,
    read: (target, ctx) => readMarkdown(target, withTimeZone(o, ctx)),
  };
}

/** Registered instance: the machine's time zone, speaker 'me'. */
export const markdownImport: ImportFormat = markdownFormat();
