import fs from 'node:fs/promises';
import path from 'node:path';
import { findNodeAtLocation, parseTree, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { z } from 'zod';
import { Attachment, IncomingConversation, MessageRole } from '../domain/conversation.js';
import { importError, jsonFileWith, lineAndColumn, type ImportFormat, type ReadContext } from './import-format.js';
import { nulFree } from './message-checks.js';
import { importTimeZone, instantOf, timeField } from './time-shapes.js';

/**
 * Nemori's own interchange format (documented in README "Formats"): what a companion app or a script
 * writes when no chat-app exporter fits.
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

const GenericFile = z.union([z.object({ conversations: z.array(GenericConversation) }), z.array(GenericConversation), GenericConversation]);

const GenericLine = GenericMessage.extend({
  conversation: z.union([z.string().min(1), z.number()]),
  conversation_title: z.string().optional(),
});

function toIncoming(source: string, c: z.infer<typeof GenericConversation>, timeZone: string): IncomingConversation {
  return IncomingConversation.parse({
    source,
    externalId: String(c.id),
    title: c.title,
    participants: c.participants,
    metadata: c.metadata ?? {},
    messages: c.messages.map((m: GenericMessage) => {
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
    }),
  });
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const where = issue.path.length
    ? issue.path
        .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
        .join('')
        .replace(/^\./, '')
    : 'the file';
  return `${where}: ${issue.message}`;
}

async function* readJson(file: string, ctx: ReadContext): AsyncIterable<IncomingConversation> {
  const timeZone = importTimeZone(ctx);
  const text = (await fs.readFile(file, 'utf8')).replace(/^\uFEFF/, '');
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: false, disallowComments: true });
  if (errors.length > 0 || !tree) {
    const e = errors[0];
    const where = lineAndColumn(text, e?.offset ?? text.length);
    throw importError(file, where, e ? `invalid JSON (${printParseErrorCode(e.error)})` : 'the file is empty');
  }
  const parsed = GenericFile.safeParse(JSON.parse(text));
  if (!parsed.success) {
    // Report the deepest issue: union errors otherwise point at the root.
    const issues = parsed.error.issues.flatMap((i) =>
      i.code === 'invalid_union' ? i.errors.flat().map((x) => ({ ...x, path: [...i.path, ...x.path] })) : [i],
    );
    const issue = issues.sort((a, b) => b.path.length - a.path.length)[0]!;
    let node = findNodeAtLocation(tree, issue.path as (string | number)[]);
    for (let p = issue.path.slice(0, -1); !node && p.length; p = p.slice(0, -1)) {
      node = findNodeAtLocation(tree, p as (string | number)[]);
    }
    throw importError(file, lineAndColumn(text, node?.offset ?? 0), describeIssue(issue as z.core.$ZodIssue));
  }
  const data = parsed.data;
  const list = Array.isArray(data) ? data : 'conversations' in data ? data.conversations : [data];
  for (const c of list) yield toIncoming('nemori-json', c, timeZone);
}

async function* readJsonl(file: string, ctx: ReadContext): AsyncIterable<IncomingConversation> {
  const timeZone = importTimeZone(ctx);
  const text = (await fs.readFile(file, 'utf8')).replace(/^\uFEFF/, '');
  const byId = new Map<string, z.infer<typeof GenericConversation>>();
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    if (!raw.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      throw importError(file, { line: i + 1 }, `invalid JSON (${(e as Error).message})`);
    }
    const parsed = GenericLine.safeParse(value);
    if (!parsed.success) throw importError(file, { line: i + 1 }, describeIssue(parsed.error.issues[0]!));
    const { conversation, conversation_title, ...message } = parsed.data;
    const id = String(conversation);
    const c = byId.get(id) ?? { id, title: conversation_title, messages: [] };
    c.messages.push(message);
    byId.set(id, c);
  }
  for (const c of byId.values()) yield toIncoming('nemori-jsonl', c, timeZone);
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
