import path from 'node:path';
import { z } from 'zod';
import { Attachment, IncomingConversation, MessageRole, type IncomingMessage } from '../domain/conversation.js';
import { importError, jsonFileWith, type ImportFormat, type ReadContext } from './import-format.js';
import {
  checkJsonMessage,
  describePath,
  fileSource,
  firstIssue,
  jsonError,
  locate,
  walkJson,
  type JsonPath,
  type JsonSource,
} from './json-stream.js';
import { checkLineMessage, nulFree } from './message-checks.js';
import { ChatParts, PART_MESSAGES, type ChatPart } from './parts.js';
import { readLines } from './text-lines.js';
import { importTimeZone, instantOf, timeField } from './time-shapes.js';

/**
 * Nemori's own interchange format (documented in README "Formats"): what a companion app or a script
 * writes when no chat-app exporter fits. Both shapes stream like every other importer: a JSON file is
 * walked (json-stream.ts), never assembled whole, each message validated as it arrives; a JSONL file is
 * read line by line. A long conversation is handed back in parts (parts.ts).
 */
const GenericMessage = z.object({
  id: z.union([z.string().min(1), z.number()]).optional(),
  speaker: nulFree.min(1),
  role: MessageRole.optional(),
  text: nulFree,
  timestamp: timeField(),
  attachments: z.array(Attachment).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
type GenericMessage = z.infer<typeof GenericMessage>;

const GenericConversation = z.object({
  id: z.union([z.string().min(1), z.number()]),
  title: z.string().optional(),
  participants: z.array(z.string()).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  messages: z.array(GenericMessage),
});

/** A conversation without its messages, which arrive one by one. */
const Header = GenericConversation.omit({ messages: true });
type Header = z.infer<typeof Header>;
const HEADER_KEYS = new Set(Object.keys(Header.shape));

const GenericFile = z.union([z.object({ conversations: z.array(GenericConversation) }), z.array(GenericConversation), GenericConversation]);

const GenericLine = GenericMessage.extend({
  conversation: z.union([z.string().min(1), z.number()]),
  conversation_title: z.string().optional(),
});

function toMessage(m: GenericMessage, timeZone: string): IncomingMessage {
  const { at, utcOffsetMin } = instantOf(m.timestamp, { timeZone }).instant;
  return {
    externalId: m.id === undefined ? undefined : String(m.id),
    speaker: m.speaker,
    role: m.role ?? 'other',
    text: m.text,
    sentAt: at,
    utcOffsetMin,
    attachments: m.attachments ?? [],
    metadata: m.metadata ?? {},
  };
}

function toIncoming(source: string, h: Header, part: ChatPart): IncomingConversation {
  return IncomingConversation.parse({
    source,
    externalId: String(h.id),
    title: h.title,
    participants: h.participants,
    metadata: { ...h.metadata, ...(part.continued ? { continued: true } : {}) },
    messages: part.messages,
  });
}

/** "chat.json: line 19, column 31: conversations[1].messages[0].timestamp: …": the bad field, found in the file. */
async function fieldError(src: JsonSource, at: JsonPath, error: z.ZodError): Promise<Error> {
  const issue = firstIssue(error);
  const where = [...at, ...issue.path];
  const pos = await locate(src, where);
  return jsonError(src, pos && { line: pos.line, column: pos.column }, `${describePath(where) || 'the file'}: ${issue.message}`);
}

/** A conversation being read: its header fields as they come, its messages in parts. */
interface Reading {
  at: JsonPath;
  /** Header fields as written, checked when the messages start and again at the end. */
  raw: Record<string, unknown>;
  /** Set when the messages start; cut into parts only when the id came before them. */
  parts: ChatParts | null;
  header: Header | null;
}

function isConversationPath(p: JsonPath): boolean {
  return (p.length === 1 && typeof p[0] === 'number') || (p.length === 2 && p[0] === 'conversations' && typeof p[1] === 'number');
}

/** Containers walked into: the root, the `conversations` array, each conversation and its `messages`. */
function descend(p: JsonPath, type: 'object' | 'array'): boolean {
  if (p.length === 0) return true;
  if (type === 'object') return isConversationPath(p);
  return (
    (p.length === 1 && p[0] === 'conversations') || (p.at(-1) === 'messages' && (p.length === 1 || isConversationPath(p.slice(0, -1))))
  );
}

/**
 * The three shapes — `{"conversations": […]}`, `[…]`, one conversation `{id, messages}` — walked: each
 * conversation's header fields and messages are checked where they are, and a long conversation is
 * handed back in parts once its id is known (written before its messages, as every writer we know
 * does; one written after them is held until its end).
 */
async function* readJson(file: string, ctx: ReadContext): AsyncIterable<IncomingConversation> {
  const timeZone = importTimeZone(ctx);
  const src = fileSource(file);
  const source = 'nemori-json';
  // The root object is one conversation until a `conversations` array says it holds them.
  let root: Reading | null = null;
  let reading: Reading | null = null;
  const readingAt = (at: JsonPath): Reading => ({ at, raw: {}, parts: null, header: null });
  const conversationOf = (p: JsonPath): Reading | null => (p.length > 0 && isConversationPath(p) ? reading : root);

  for await (const ev of walkJson(src, descend, { truncatedIsInvalid: true })) {
    const p = ev.path;
    if (ev.kind === 'enter') {
      if (p.length === 0) root = ev.type === 'object' ? readingAt([]) : null;
      else if (isConversationPath(p)) reading = readingAt(p);
      else if (p.at(-1) === 'conversations') {
        if (root?.parts) throw await fieldError(src, p, bothShapes());
        root = null;
      } else {
        // A conversation's messages start: its header so far must hold.
        const c = conversationOf(p.slice(0, -1));
        if (!c) throw await fieldError(src, p, bothShapes());
        const known = Header.partial().safeParse(c.raw);
        if (!known.success) throw await fieldError(src, c.at, known.error);
        if (known.data.id !== undefined) c.header = { ...known.data, id: known.data.id };
        c.parts ??= new ChatParts(c.header ? PART_MESSAGES : Infinity);
      }
    } else if (ev.kind === 'exit') {
      const c = p.length === 0 ? root : isConversationPath(p) ? reading : null;
      if (c) yield* finish(c);
    } else if (p.length === 0) {
      throw await fieldError(src, [], zodError(GenericFile, ev.value));
    } else if (isConversationPath(p)) {
      throw await fieldError(src, p, zodError(GenericConversation, ev.value));
    } else if (p.length === 1 && p[0] === 'conversations') {
      throw await fieldError(src, p, zodError(GenericConversation.array(), ev.value));
    } else if (p.at(-2) === 'messages' && typeof p.at(-1) === 'number') {
      const c = conversationOf(p.slice(0, -2))!;
      const parsed = GenericMessage.safeParse(ev.value);
      if (!parsed.success) throw await fieldError(src, p, parsed.error);
      const m = toMessage(parsed.data, timeZone);
      await checkJsonMessage(src, p, describePath(p), m);
      const full = c.parts!.add(m);
      if (full) yield toIncoming(source, c.header!, full);
    } else {
      const c = conversationOf(p.slice(0, -1));
      const key = p.at(-1);
      if (!c || typeof key !== 'string') continue;
      if (key === 'messages') throw await fieldError(src, p, zodError(GenericConversation.shape.messages, ev.value));
      if (HEADER_KEYS.has(key)) c.raw[key] = ev.value;
    }
  }

  async function* finish(c: Reading): AsyncGenerator<IncomingConversation> {
    const whole = GenericConversation.safeParse({ ...c.raw, messages: c.parts ? [] : undefined });
    if (!whole.success) throw await fieldError(src, c.at, whole.error);
    const { messages: _, ...header } = whole.data;
    const part = c.parts!.take();
    if (part.continued && c.header && c.header.metadata === undefined && header.metadata !== undefined)
      ctx.warn(
        `${file}: conversation ${String(header.id)}: "metadata" comes after its first ${PART_MESSAGES} messages and is not kept; write it before "messages"`,
      );
    if (part.messages.length > 0 || !part.continued) yield toIncoming(source, header, part);
  }
}

function zodError(schema: z.ZodType, value: unknown): z.ZodError {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error('zodError: the value is valid');
  return parsed.error;
}

function bothShapes(): z.ZodError {
  return new z.ZodError([
    { code: 'custom', path: [], message: 'a file holds "conversations" or one conversation\'s "messages", not both', input: undefined },
  ]);
}

/**
 * Messages waiting in all of a JSONL file's conversations, at most: lines of many conversations may
 * interleave, and each waits for its part to fill. Past this, the largest are handed back early.
 */
export const JSONL_WAITING_MESSAGES = 2 * PART_MESSAGES;

interface JsonlChat {
  header: Header;
  parts: ChatParts;
  /** The instant of its last message. */
  lastAt: number;
}

/**
 * One message per line, conversations told apart by `conversation` and possibly interleaved. Each
 * conversation's messages keep their order in the file; a conversation comes back in parts when its
 * part is full, or early when JSONL_WAITING_MESSAGES wait in all: the conversations with most waiting
 * go first, until half remain. A part never ends inside an instant the conversation's next line may
 * still continue (see partIsFull): one whose last instant is the latest read so far keeps that
 * instant's messages back; an earlier one is over wherever the file is in time order, and in a file
 * written a conversation at a time, that conversation is done.
 */
async function* readJsonl(file: string, ctx: ReadContext): AsyncIterable<IncomingConversation> {
  const timeZone = importTimeZone(ctx);
  const source = 'nemori-jsonl';
  const chats = new Map<string, JsonlChat>();
  let waiting = 0;
  let latest = -Infinity;
  for await (const { line, lineNo } of readLines(file)) {
    if (!line.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      throw importError(file, { line: lineNo }, `invalid JSON (${(e as Error).message})`);
    }
    const parsed = GenericLine.safeParse(value);
    if (!parsed.success) {
      const issue = firstIssue(parsed.error);
      throw importError(file, { line: lineNo }, `${describePath(issue.path) || 'the line'}: ${issue.message}`);
    }
    const { conversation, conversation_title, ...message } = parsed.data;
    const m = toMessage(message, timeZone);
    checkLineMessage(file, lineNo, m);
    const id = String(conversation);
    let chat = chats.get(id);
    if (!chat) {
      // The title is the conversation's first line's.
      chat = { header: { id, title: conversation_title }, parts: new ChatParts(), lastAt: 0 };
      chats.set(id, chat);
    }
    chat.lastAt = m.sentAt.getTime();
    latest = Math.max(latest, chat.lastAt);
    const full = chat.parts.add(m);
    waiting++;
    if (full) {
      waiting -= full.messages.length;
      yield toIncoming(source, chat.header, full);
    }
    if (waiting <= JSONL_WAITING_MESSAGES) continue;
    const largest = [...chats.values()].filter((c) => c.parts.length > 0).sort((a, b) => b.parts.length - a.parts.length);
    for (const c of largest) {
      if (waiting <= JSONL_WAITING_MESSAGES / 2) break;
      const part = c.lastAt < latest ? c.parts.take() : c.parts.takeSettled();
      if (!part) continue;
      waiting -= part.messages.length;
      yield toIncoming(source, c.header, part);
    }
  }
  for (const { header, parts } of chats.values()) {
    const part = parts.take();
    if (part.messages.length > 0 || !part.continued) yield toIncoming(source, header, part);
  }
}

export const genericJson: ImportFormat = {
  id: 'json',
  label: 'Nemori JSON',
  detect: (file) => jsonFileWith(file, /"messages"\s*:/),
  read: readJson,
};

export const genericJsonl: ImportFormat = {
  id: 'jsonl',
  label: 'Nemori JSONL',
  detect: ({ path: p, head }) => ['.jsonl', '.ndjson'].includes(path.extname(p).toLowerCase()) && /"conversation"\s*:/.test(head),
  read: readJsonl,
};
