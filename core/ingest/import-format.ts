import path from 'node:path';
import type { IncomingConversation } from '../domain/conversation.js';
import { NemoriError } from '../domain/errors.js';

export interface ReadContext {
  /** Non-fatal oddities (skipped lines, unknown message types) for the import report. */
  warn(message: string): void;
  /**
   * IANA zone of the device that wrote an export with wall-clock times and no zone (WhatsApp, QQ, LINE,
   * WeChat, Markdown), and the calendar of exact instants written in UTC (unix times, `Z`); overrides the
   * format's default (this machine's zone). Instants written with an offset keep it.
   */
  timeZone?: string | undefined;
  /**
   * Day or month first, for exports whose dates are numbers only (WhatsApp) when the file itself does
   * not settle it (no day above 12): overrides the order of this machine's locale.
   */
  dateOrder?: DateOrder | undefined;
}

/** `dmy`: 09/03/2024 is 9 March; `mdy`: September 3. */
export type DateOrder = 'dmy' | 'mdy';

/** The format's options with the import's time zone and date order, when given, taking precedence. */
export function withTimeZone<O extends { timeZone?: string | undefined; dateOrder?: DateOrder | undefined }>(o: O, ctx: ReadContext): O {
  return { ...o, ...(ctx.timeZone ? { timeZone: ctx.timeZone } : {}), ...(ctx.dateOrder ? { dateOrder: ctx.dateOrder } : {}) };
}

/** One importer: recognises its files and turns one into conversations. A registry is just a list of these. */
export interface ImportFormat {
  id: string;
  /** Human name for previews and errors. */
  label: string;
  /** Cheap check on the file name and its first bytes (up to 64 KiB, decoded as UTF-8). */
  detect(file: { path: string; head: string }): boolean;
  /** Whether `read` also takes a folder (a journal directory); detection offers folders only to these. */
  readsFolders?: boolean;
  /**
   * Streams the file's conversations, each complete and validated, without holding the whole file in
   * memory. Throws `importError` (file + line or byte offset) on malformed input. The importer runs it
   * twice — once to validate, once to store — so bad input stores nothing.
   */
  read(path: string, ctx: ReadContext): AsyncIterable<IncomingConversation>;
}

/** Whether `file` is a `.json` file whose first bytes match every one of `marks` (a format's telltale keys). */
export function jsonFileWith(file: { path: string; head: string }, ...marks: RegExp[]): boolean {
  return path.extname(file.path).toLowerCase() === '.json' && marks.every((m) => m.test(file.head));
}

/** Byte offset → 1-based line and column, for messages a person can find in an editor. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

export function importError(file: string, where: { line: number; column?: number }, problem: string): NemoriError {
  const at = where.column ? `line ${where.line}, column ${where.column}` : `line ${where.line}`;
  return new NemoriError('IMPORT_PARSE', `${file}: ${at}: ${problem}`, { file, ...where });
}
