import fs from 'node:fs';
import type { Readable, Transform } from 'node:stream';
import iconv from 'iconv-lite';
import { importError } from './import-format.js';

/**
 * Text exports come in whatever encoding the exporting app and OS chose: UTF-8 with or without a BOM,
 * UTF-16 (older Windows tools), GBK/GB18030 (Chinese Windows: old QQ, WeChat CSV saved by Excel), or
 * Windows-1252 / Latin-1 (Western Windows and old Android: a WhatsApp chat with é and ü re-saved).
 * Everything here streams: a multi-gigabyte file is read in chunks and never held whole.
 */

export type TextEncoding = 'utf8' | 'utf16le' | 'utf16be' | 'gb18030' | 'windows1252';

export interface TextSource {
  encoding: TextEncoding;
  /** Bytes to skip before decoding (the BOM). */
  skip: number;
}

export interface TextLine {
  /** The line without its line ending. */
  line: string;
  /** 1-based, as an editor shows it. */
  lineNo: number;
}

const SNIFF_BYTES = 64 * 1024;

async function readStart(file: string, bytes: number): Promise<Buffer> {
  const fh = await fs.promises.open(file, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/**
 * Latin-1 or GBK, for bytes that are not UTF-8. Chinese text is pairs of high bytes (GB2312's hanzi are
 * 0xA1–0xFE twice); Western text has a lone high byte between ASCII letters (é in "café ", ü in "für").
 * A high byte followed by a space, a digit or punctuation is no GBK character at all. So: any such
 * byte, or more lone high bytes than pairs, is Latin-1.
 */
function looksLikeGbk(bytes: Uint8Array): boolean {
  let pairs = 0;
  let lone = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b < 0x80) continue;
    if (i + 1 >= bytes.length) break; // cut at the end of the sample
    const next = bytes[i + 1]!;
    if (b === 0x80 || b === 0xff || next < 0x40 || next === 0x7f || next === 0xff) return false;
    if (next >= 0x80) pairs++;
    else lone++;
    i++;
  }
  return pairs > lone;
}

/** BOM first; else strict UTF-8 over the first 64 KiB; else GB18030 (a superset of GBK) or Windows-1252. */
export function sniffEncoding(start: Uint8Array): TextSource {
  if (start[0] === 0xef && start[1] === 0xbb && start[2] === 0xbf) return { encoding: 'utf8', skip: 3 };
  if (start[0] === 0xff && start[1] === 0xfe) return { encoding: 'utf16le', skip: 2 };
  if (start[0] === 0xfe && start[1] === 0xff) return { encoding: 'utf16be', skip: 2 };
  try {
    // `stream: true` tolerates a character cut in half at the end of the sample.
    new TextDecoder('utf-8', { fatal: true }).decode(start, { stream: true });
    return { encoding: 'utf8', skip: 0 };
  } catch {
    return { encoding: looksLikeGbk(start) ? 'gb18030' : 'windows1252', skip: 0 };
  }
}

export async function detectTextEncoding(file: string): Promise<TextSource> {
  return sniffEncoding(await readStart(file, SNIFF_BYTES));
}

function iconvName(e: Exclude<TextEncoding, 'utf8'>): string {
  return e === 'utf16be' ? 'utf16-be' : e;
}

/** The file as a stream of decoded strings (BOM removed). */
export async function openText(file: string): Promise<{ encoding: TextEncoding; stream: Readable }> {
  const src = await detectTextEncoding(file);
  const raw = fs.createReadStream(file, { start: src.skip, highWaterMark: 256 * 1024 });
  let stream: Readable;
  if (src.encoding === 'utf8') {
    raw.setEncoding('utf8');
    stream = raw;
  } else {
    // iconv-lite's typings say ReadWriteStream; at run time it is a stream.Transform.
    const decoder = iconv.decodeStream(iconvName(src.encoding), { stripBOM: true }) as unknown as Transform;
    raw.on('error', (e) => decoder.destroy(e));
    stream = raw.pipe(decoder);
  }
  return { encoding: src.encoding, stream };
}

/**
 * Splits a stream of strings into lines; accepts \n, \r\n and lone \r (old Mac exports). Each chunk is
 * searched once: the unfinished line carried between chunks is kept in pieces and joined only when its
 * line ends (a 60 MB file on one line was re-joined and re-searched for every chunk: quadratic).
 */
export async function* splitLines(chunks: AsyncIterable<string | Buffer>): AsyncGenerator<TextLine> {
  const rest: string[] = [];
  let lineNo = 0;
  let first = true;
  let pendingCr = false;
  const line = (chunk: string, from: number, to: number) => {
    const tail = chunk.slice(from, to);
    if (rest.length === 0) return tail;
    const whole = rest.join('') + tail;
    rest.length = 0;
    return whole;
  };
  for await (const c of chunks) {
    let text = typeof c === 'string' ? c : c.toString('utf8');
    if (first) {
      // A BOM can survive when the file was concatenated or re-saved: drop it at the very start only.
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
    }
    if (pendingCr && text.charCodeAt(0) === 10) text = text.slice(1);
    pendingCr = false;
    let start = 0;
    // Where the next \r is (-1: none in this text). Looked up once per \r, not once per line: searching
    // to the end of a 256 KiB chunk for every line would be quadratic.
    let cr = text.indexOf('\r');
    for (;;) {
      if (cr >= 0 && cr < start) cr = text.indexOf('\r', start);
      const lf = text.indexOf('\n', start);
      const nl = cr < 0 ? lf : lf < 0 ? cr : Math.min(cr, lf);
      if (nl < 0) break;
      yield { line: line(text, start, nl), lineNo: ++lineNo };
      if (text.charCodeAt(nl) === 13) {
        if (nl + 1 < text.length) {
          start = text.charCodeAt(nl + 1) === 10 ? nl + 2 : nl + 1;
        } else {
          // \r at the end of a chunk: its \n may start the next one.
          pendingCr = true;
          start = nl + 1;
        }
      } else {
        start = nl + 1;
      }
    }
    if (start < text.length) rest.push(text.slice(start));
  }
  if (rest.length > 0) yield { line: rest.join(''), lineNo: ++lineNo };
}

/**
 * Lines that can be stored: a NUL character is refused where it is. No chat app writes one; it means a
 * damaged file or a binary one under a text name, and the store could not hold it.
 */
export async function* refuseNul(label: string, lines: AsyncIterable<TextLine>): AsyncGenerator<TextLine> {
  for await (const l of lines) {
    const at = l.line.indexOf('\u0000');
    if (at >= 0) throw importError(label, { line: l.lineNo, column: at + 1 }, 'a NUL character (U+0000): the file is damaged or not text');
    yield l;
  }
}

/** Decoded lines of a text file, streamed, with 1-based line numbers. */
export async function* readLines(file: string): AsyncGenerator<TextLine> {
  const { stream } = await openText(file);
  try {
    yield* refuseNul(file, splitLines(stream as AsyncIterable<string>));
  } finally {
    stream.destroy();
  }
}

/** The first `bytes` of a file decoded with the detected encoding: for detection of non-UTF-8 exports. */
export async function readTextHead(file: string, bytes = SNIFF_BYTES): Promise<string> {
  const start = await readStart(file, bytes);
  const src = sniffEncoding(start);
  const body = start.subarray(src.skip);
  if (src.encoding === 'utf8') return new TextDecoder('utf-8').decode(body);
  return iconv.decode(Buffer.from(body), iconvName(src.encoding));
}

/**
 * `detect()` receives the head decoded as UTF-8. For UTF-16 files that leaves NULs between ASCII
 * characters; for GBK files the Chinese turns to U+FFFD but ASCII survives. This makes the ASCII
 * structure (timestamps, separators, column names) visible again for cheap detection.
 */
export function asciiView(head: string): string {
  return head.includes('\u0000') ? head.replace(/\u0000/g, '') : head;
}
