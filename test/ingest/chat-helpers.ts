import fs from 'node:fs';
import path from 'node:path';
import type { IncomingConversation } from '../../core/domain/conversation.js';
import type { ImportFormat } from '../../core/ingest/import-format.js';
import { fixture, tempDir } from '../helpers/engine.js';

/** Reads every conversation a format yields, with the warnings it reported. */
export async function readAll(format: ImportFormat, file: string): Promise<{ conversations: IncomingConversation[]; warnings: string[] }> {
  const warnings: string[] = [];
  const conversations: IncomingConversation[] = [];
  for await (const c of format.read(file, { warn: (w) => warnings.push(w) })) conversations.push(c);
  return { conversations, warnings };
}

export async function readOne(format: ImportFormat, file: string): Promise<{ conversation: IncomingConversation; warnings: string[] }> {
  const { conversations, warnings } = await readAll(format, file);
  if (conversations.length !== 1) throw new Error(`expected one conversation, got ${conversations.length}`);
  return { conversation: conversations[0]!, warnings };
}

/** The rows a person would check: instant, offset, speaker, text. */
export function rows(c: IncomingConversation): Array<[string, number, string, string]> {
  return c.messages.map((m) => [m.sentAt.toISOString(), m.utcOffsetMin, m.speaker, m.text]);
}

export const ingestFixture = (...p: string[]) => fixture('ingest', ...p);

/** Writes `content` (text or bytes) to a fresh temp dir under `name`; returns the path. */
export function writeTemp(name: string, content: string | Buffer): string {
  const file = path.join(tempDir('nemori-ingest-'), name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
}

/** What detection sees: the first 64 KiB decoded as UTF-8, as `detectFormat` hands it over. */
export function headOf(file: string): string {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(64 * 1024);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}
