import fs from 'node:fs';
import { pipeline, type Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import Assembler from 'stream-json/assembler.js';
import { jsonParser, type parser } from 'stream-json/parser.js';
import verifier from 'stream-json/utils/verifier.js';
import type { z } from 'zod';
import type { IncomingMessage } from '../domain/conversation.js';
import { NemoriError } from '../domain/errors.js';
import { messageProblem } from './message-checks.js';
import { openZipReader, type ZipReader } from './zip.js';

/**
 * Streaming access to the big JSON files chat apps export (ChatGPT, Claude, Telegram, Discord,
 * Messenger, Slack). stream-json tokenises; we assemble only the pieces an importer asks for (one
 * conversation, one message) so memory stays flat however large the file is. Positions are not tracked
 * while streaming (that would cost on every import); when something is wrong, the file is scanned a
 * second time to find the exact line and column, which only costs on the failure path.
 */

export type JsonPath = (string | number)[];

/** A JSON document that can be opened (again) for reading: a file, or a member of a zip archive. */
export interface JsonSource {
  /** The file a person chose (the archive, for a member). */
  file: string;
  /** Path inside the archive, when the document is an archive member. */
  member?: string;
  open(): Promise<Readable>;
}

export function fileSource(file: string): JsonSource {
  return { file, open: async () => fs.createReadStream(file, { highWaterMark: 256 * 1024 }) };
}

export function zipMemberSource(file: string, member: string, zip: ZipReader): JsonSource {
  return {
    file,
    member,
    // The reader may be closed by the time an error is being located: fall back to a fresh one.
    open: async () => {
      try {
        return await zip.stream(member);
      } catch {
        const again = await openZipReader(file);
        const s = await again.stream(member);
        s.on('close', () => again.close());
        return s;
      }
    },
  };
}

export function sourceLabel(src: JsonSource): string {
  return src.member ? `${src.file} (${src.member})` : src.file;
}

export interface Position {
  line: number;
  column: number;
  /** Byte offset from the start of the file (or archive member). */
  byte?: number;
}

/** An import error naming the file and where in it: "…/result.json: line 3, column 14 (byte 52): …". */
export function jsonError(src: JsonSource, at: Position | null, problem: string): NemoriError {
  const where = at ? ` line ${at.line}, column ${at.column}${at.byte === undefined ? '' : ` (byte ${at.byte})`}:` : '';
  return new NemoriError('IMPORT_PARSE', `${sourceLabel(src)}:${where} ${problem}`, {
    file: src.file,
    ...(src.member ? { member: src.member } : {}),
    ...(at ?? {}),
  });
}

export type JsonEvent =
  /** A container the walker was told to descend into has started. */
  | { kind: 'enter'; path: JsonPath; type: 'object' | 'array' }
  /** A complete value (assembled when it is a container the walker did not descend into). */
  | { kind: 'value'; path: JsonPath; value: unknown }
  | { kind: 'exit'; path: JsonPath; type: 'object' | 'array' };

interface Frame {
  type: 'object' | 'array';
  path: JsonPath;
  index: number;
  key: string | null;
}

function childPath(top: Frame | undefined): JsonPath {
  if (!top) return [];
  return [...top.path, top.type === 'array' ? top.index : (top.key ?? '')];
}

/**
 * Streams a document as events. `descend(path, type)` picks the containers to walk into (the root, a
 * `messages` array, a `chats.list`); every other value arrives whole as one `value` event. Throws a
 * `jsonError` with the exact position on malformed or truncated JSON.
 *
 * stream-json's bare tokenizer is driven chunk by chunk, synchronously: going through its Node stream
 * adapter costs a promise per token, five times slower on a 200 MB export.
 */
export async function* walkJson(
  src: JsonSource,
  descend: (path: JsonPath, type: 'object' | 'array') => boolean,
  o: SyntaxWording = {},
): AsyncGenerator<JsonEvent> {
  const input = await openOrExplain(src);
  const tokenize = jsonParser({ packValues: true, streamValues: false });
  const decoder = new StringDecoder('utf8');
  const stack: Frame[] = [];
  let asm: Assembler | null = null;
  let asmPath: JsonPath = [];
  let rootDone = false;
  // Anything but blanks: a lone number is never a token, because the tokenizer waits for what follows it.
  let sawText = false;
  let first = true;
  let events: JsonEvent[] = [];

  const completed = (): void => {
    const top = stack.at(-1);
    if (top?.type === 'array') top.index++;
    if (stack.length === 0) rootDone = true;
  };
  const consume = (token: parser.Token): void => {
    if (asm) {
      asm.consume(token);
      if (asm.done) {
        const value = asm.current;
        asm = null;
        completed();
        events.push({ kind: 'value', path: asmPath, value });
      }
      return;
    }
    switch (token.name) {
      case 'startObject':
      case 'startArray': {
        const type = token.name === 'startObject' ? 'object' : 'array';
        const path = childPath(stack.at(-1));
        if (descend(path, type)) {
          stack.push({ type, path, index: 0, key: null });
          events.push({ kind: 'enter', path, type });
        } else {
          asm = new Assembler();
          asmPath = path;
          asm.consume(token);
        }
        break;
      }
      case 'endObject':
      case 'endArray': {
        const frame = stack.pop()!;
        completed();
        events.push({ kind: 'exit', path: frame.path, type: frame.type });
        break;
      }
      case 'keyValue':
        stack.at(-1)!.key = token.value;
        break;
      case 'stringValue':
      case 'nullValue':
      case 'trueValue':
      case 'falseValue':
      case 'numberValue': {
        const path = childPath(stack.at(-1));
        const value = token.name === 'numberValue' ? Number(token.value) : token.value;
        completed();
        events.push({ kind: 'value', path, value });
        break;
      }
      default:
        // Streamed chunks and whitespace: the packed values above carry the same content.
        break;
    }
  };
  const feed = (text: string): void => {
    sawText ||= /\S/.test(text);
    const out = tokenize(text) as { values?: parser.Token[] } | symbol;
    if (typeof out === 'object' && out.values) for (const token of out.values) consume(token);
  };

  try {
    try {
      for await (const chunk of input as AsyncIterable<Buffer>) {
        let text = decoder.write(chunk);
        if (first && text) {
          // The bare tokenizer rejects a byte-order mark; Messenger and Windows tools write one.
          text = text.replace(/^\uFEFF/, '');
          first = false;
        }
        feed(text);
        const batch = events;
        events = [];
        yield* batch;
      }
      feed(decoder.end());
      yield* events;
    } finally {
      input.destroy();
    }
  } catch (e) {
    if (e instanceof NemoriError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code) throw new NemoriError('INVALID_INPUT', `${sourceLabel(src)}: cannot read (${code})`, { file: src.file });
    throw await syntaxError(src, `invalid JSON: ${(e as Error).message}`, o);
  }
  // Without a final flush the tokenizer cannot tell a cut-off file from one still arriving: the walk
  // knows, because the root value never closed.
  if (!rootDone) throw await syntaxError(src, sawText ? 'expected a JSON object or array at the top of the file' : 'the file is empty', o);
}

async function openOrExplain(src: JsonSource): Promise<Readable> {
  try {
    const s = await src.open();
    return s;
  } catch (e) {
    if (e instanceof NemoriError) throw e;
    const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new NemoriError('INVALID_INPUT', `${sourceLabel(src)}: cannot read (${code})`, { file: src.file });
  }
}

export interface SyntaxWording {
  /**
   * Say "invalid JSON" first for a file that stops mid-value too: Nemori's own format always has, and
   * the scripts that write it may match on that.
   */
  truncatedIsInvalid?: boolean;
}

/**
 * Re-reads the document with stream-json's verifier, which knows the exact line and column. `otherwise`
 * is the problem to report when the verifier finds the JSON valid (a scalar where an object belongs).
 */
async function syntaxError(src: JsonSource, otherwise: string, o: SyntaxWording): Promise<NemoriError> {
  const input = await openOrExplain(src);
  // Characters up to the last non-blank one: an error there means the text stops mid-value.
  const decoder = new StringDecoder('utf8');
  let total = 0;
  let lastInk = 0;
  let first = true;
  input.on('data', (chunk: Buffer) => {
    let text = decoder.write(chunk);
    if (first && text) {
      text = text.replace(/^\uFEFF/, '');
      first = false;
    }
    const inked = text.trimEnd().length;
    if (inked > 0) lastInk = total + inked;
    total += text.length;
  });
  try {
    await new Promise<void>((resolve, reject) => {
      pipeline(input, verifier.asStream(), (err) => (err ? reject(err) : resolve()));
    });
  } catch (e) {
    if (e instanceof NemoriError) return e;
    const v = e as Error & { line?: number; pos?: number; offset?: number };
    if (typeof v.line === 'number' && typeof v.pos === 'number') {
      const what = v.message.replace(/^ERROR at \d+ \(\d+, \d+\): /, '').replace(/^Verifier (cannot parse input: |has )/, '');
      // Nothing but blanks: an empty file, not a cut-off one.
      if (lastInk === 0) return jsonError(src, { line: 1, column: 1, byte: 0 }, otherwise);
      const truncated = typeof v.offset === 'number' && v.offset >= lastInk;
      const cutOff = `the file ends in the middle of the data (truncated?): ${what}`;
      return jsonError(
        src,
        { line: v.line, column: v.pos },
        truncated ? (o.truncatedIsInvalid ? `invalid JSON: ${cutOff}` : cutOff) : `invalid JSON: ${what}`,
      );
    }
  }
  return jsonError(src, { line: 1, column: 1, byte: 0 }, otherwise);
}

/**
 * Finds where the value at `path` starts (or, if it does not exist, the deepest existing value on the
 * way to it) by scanning the raw bytes: only JSON's structural characters matter, and none of them can
 * occur inside a multi-byte UTF-8 sequence, so no decoding is needed except for object keys.
 */
export async function locate(src: JsonSource, target: JsonPath): Promise<Position | null> {
  interface F {
    arr: boolean;
    index: number;
    key: string | null;
    wantKey: boolean;
    matches: boolean;
  }
  const stack: F[] = [];
  // The deepest value found on the way to the target (a closure updates it, hence an object).
  const best: { len: number; pos: Position | null } = { len: -1, pos: null };
  let byte = 0;
  let line = 1;
  let column = 1;
  let inString = false;
  let escaped = false;
  let isKey = false;
  let keyBytes: number[] = [];
  let inScalar = false;
  let bom = 0;

  const input = await openOrExplain(src);
  const startValue = (): { matches: boolean } => {
    const top = stack.at(-1);
    const d = stack.length;
    const comp = top ? (top.arr ? top.index : top.key) : null;
    const matches = !top ? true : top.matches && d - 1 < target.length && comp === target[d - 1];
    if (matches && d > best.len) {
      best.len = d;
      best.pos = { line, column, byte };
    }
    return { matches };
  };
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      for (let i = 0; i < chunk.length; i++, byte++) {
        const c = chunk[i]!;
        if (byte < 3 && c === [0xef, 0xbb, 0xbf][byte] && bom === byte) {
          bom++;
          continue;
        }
        if (inString) {
          if (isKey) keyBytes.push(c);
          if (escaped) escaped = false;
          else if (c === 0x5c) escaped = true;
          else if (c === 0x22) {
            inString = false;
            if (isKey) {
              keyBytes.pop();
              const top = stack.at(-1)!;
              try {
                top.key = JSON.parse(`"${Buffer.from(keyBytes).toString('utf8')}"`) as string;
              } catch {
                top.key = Buffer.from(keyBytes).toString('utf8');
              }
              top.wantKey = false;
              isKey = false;
            }
          }
        } else {
          const structural = c === 0x7b || c === 0x5b || c === 0x7d || c === 0x5d || c === 0x2c || c === 0x3a || c === 0x22;
          const space = c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
          if (structural || space) inScalar = false;
          if (c === 0x7b || c === 0x5b) {
            const { matches } = startValue();
            if (matches && stack.length === target.length) return best.pos;
            stack.push({ arr: c === 0x5b, index: 0, key: null, wantKey: c === 0x7b, matches });
          } else if (c === 0x7d || c === 0x5d) {
            const f = stack.pop();
            // The container on the way to the target closed: what we have is as deep as it gets.
            if (f?.matches) return best.pos;
          } else if (c === 0x2c) {
            const top = stack.at(-1);
            if (top?.arr) top.index++;
            else if (top) top.wantKey = true;
          } else if (c === 0x22) {
            const top = stack.at(-1);
            inString = true;
            if (top && !top.arr && top.wantKey) {
              isKey = true;
              keyBytes = [];
            } else {
              const { matches } = startValue();
              if (matches && stack.length === target.length) return { line, column, byte };
            }
          } else if (!structural && !space && !inScalar) {
            inScalar = true;
            const { matches } = startValue();
            if (matches && stack.length === target.length) return { line, column, byte };
          }
        }
        if (c === 0x0a) {
          line++;
          column = 1;
        } else if ((c & 0xc0) !== 0x80) {
          // Columns count UTF-16 units like editors (and the verifier) do: 4-byte sequences are two.
          column += c >= 0xf0 ? 2 : 1;
        }
      }
    }
  } catch {
    // Locating is best effort: the caller still reports the problem without a position.
  } finally {
    input.destroy();
  }
  return best.pos;
}

/** Reads the zod issue a person can act on: the deepest one, with its path relative to the element. */
export function firstIssue(error: z.ZodError): { path: JsonPath; message: string } {
  const issues = error.issues.flatMap((i) =>
    i.code === 'invalid_union' ? i.errors.flat().map((x) => ({ ...x, path: [...i.path, ...x.path] })) : [i],
  );
  const issue = issues.sort((a, b) => b.path.length - a.path.length)[0] ?? error.issues[0]!;
  return { path: issue.path.filter((p): p is string | number => typeof p !== 'symbol'), message: issue.message };
}

export function describePath(path: JsonPath): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

/**
 * The error for a value that is well-formed JSON but not what the export should contain: locates the
 * offending field (or the nearest enclosing value) in the file.
 */
export async function shapeError(src: JsonSource, at: JsonPath, what: string, error: z.ZodError): Promise<NemoriError> {
  const issue = firstIssue(error);
  const pos = await locate(src, [...at, ...issue.path]);
  const field = issue.path.length ? `${describePath(issue.path)}: ` : '';
  return jsonError(src, pos, `${what}: ${field}${issue.message}`);
}

/** An error about a value at `at` that zod did not catch (a dangling reference, an impossible date). */
export async function valueError(src: JsonSource, at: JsonPath, problem: string): Promise<NemoriError> {
  return jsonError(src, await locate(src, at), problem);
}

/**
 * The shape most chat exports share: a top-level object (walked into, never assembled whole) whose
 * `messages` array arrives item by item; every other value arrives whole, as does a root that is not
 * an object (`anyRoot`: walked into whatever it is). `found.messages` tells the caller, once the walk
 * is over, whether there was a `messages` array at all.
 */
export async function* walkMessages(
  src: JsonSource,
  found: { messages: boolean },
  o: { anyRoot?: boolean } = {},
): AsyncGenerator<{ path: JsonPath; value: unknown }> {
  const descend = (p: JsonPath, type: 'object' | 'array') =>
    (p.length === 0 && (o.anyRoot || type === 'object')) || (p.length === 1 && p[0] === 'messages' && type === 'array');
  for await (const ev of walkJson(src, descend)) {
    if (ev.kind === 'enter' && ev.path.length === 1) found.messages = true;
    if (ev.kind === 'value') yield ev;
  }
}

/** Throws, with the message's place in a JSON export, when `m` cannot be stored. */
export async function checkJsonMessage(src: JsonSource, at: JsonPath, label: string, m: IncomingMessage): Promise<void> {
  const problem = messageProblem(m);
  if (problem) throw await valueError(src, at, `${label}: ${problem}`);
}
