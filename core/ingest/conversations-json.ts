import path from 'node:path';
import type { z } from 'zod';
import type { IncomingConversation } from '../domain/conversation.js';
import { fileSource, shapeError, valueError, walkJson, zipMemberSource, type JsonSource } from './json-stream.js';
import { looksLikeZip, openZipReader, zipEntryNamesSync, zipError, zipMemberHeadSync } from './zip.js';

/**
 * ChatGPT and Claude.ai both export a `conversations.json` (an array of conversations), loose or in the
 * export .zip. Shared here: finding it, telling the two apart, and streaming it one conversation at a time.
 */

/** Streams the conversations of one `conversations.json`, one assembled conversation at a time. */
export async function* readConversationArray<T>(
  src: JsonSource,
  schema: z.ZodType<T>,
  what: string,
  build: (index: number, value: T) => Promise<IncomingConversation>,
): AsyncGenerator<IncomingConversation> {
  // Descending into any root (not only an array) keeps a wrong, huge object from being assembled whole.
  for await (const ev of walkJson(src, (p) => p.length === 0)) {
    if ((ev.kind === 'enter' && ev.type !== 'array') || (ev.kind === 'value' && ev.path.length === 0)) {
      throw await valueError(src, [], `expected an array of ${what}s at the top of the file`);
    }
    if (ev.kind !== 'value') continue;
    const index = ev.path[0] as number;
    const parsed = schema.safeParse(ev.value);
    if (!parsed.success) throw await shapeError(src, [index], `${what} ${index + 1}`, parsed.error);
    const conversation = await build(index, parsed.data);
    // Chats opened and never used (both apps export them) would only be empty rows in the journal.
    if (conversation.messages.length > 0) yield conversation;
  }
}

const MEMBER = /(^|\/)conversations\.json$/;

/** The archive members holding conversations, shallowest first (exports put it at the top). */
export function conversationMembers(names: readonly string[]): string[] {
  return names.filter((n) => MEMBER.test(n) && !n.startsWith('__MACOSX/')).sort((a, b) => a.split('/').length - b.split('/').length);
}

/** Sources for a conversations.json file or an export .zip holding one. */
export async function* conversationSources(file: string): AsyncGenerator<JsonSource> {
  if (path.extname(file).toLowerCase() !== '.zip') {
    yield fileSource(file);
    return;
  }
  const zip = await openZipReader(file);
  try {
    const member = conversationMembers(zip.entries.map((e) => e.name))[0];
    if (!member) throw zipError(file, null, 'the archive has no conversations.json; is this the right export?');
    yield zipMemberSource(file, member, zip);
  } finally {
    zip.close();
  }
}

/** Detection for JSON-or-zip exports whose conversations.json is told apart by a key near its start. */
export function detectConversationsJson(file: { path: string; head: string }, marker: RegExp): boolean {
  const ext = path.extname(file.path).toLowerCase();
  if (ext === '.json') return /^\s*\[/.test(file.head.replace(/^\uFEFF/, '')) && marker.test(file.head);
  if (ext !== '.zip' || !looksLikeZip(file.head)) return false;
  const member = conversationMembers(zipEntryNamesSync(file.path) ?? [])[0];
  const head = member ? zipMemberHeadSync(file.path, member) : null;
  return head !== null && marker.test(head);
}
