import { z } from 'zod';
import type { IncomingConversation, IncomingMessage } from '../domain/conversation.js';
import { importError } from './import-format.js';
import { EARLIEST_MESSAGE_MS, LATEST_MESSAGE_MS } from './time-shapes.js';

/**
 * What no reader may hand on, whatever the export said: a NUL character (the store cannot hold one in
 * text, and the import would abort mid-file), or a time that is not a real instant between 1900 and
 * 2199. Readers check each message where they know its place in the file, so the person is told where
 * to look; the import checks every conversation again before storing anything, so nothing a reader
 * missed reaches the store.
 */

const hasNul = (s: string | undefined | null): boolean => typeof s === 'string' && s.includes('\u0000');

// Metadata is free-form JSON; its serialised form shows a NUL anywhere inside as an escape.
const nulInJson = (v: unknown): boolean => JSON.stringify(v ?? null).includes('\\u0000');

const NUL = 'contains a NUL character (U+0000), which no chat app writes: the file is damaged or not text';

/** A string field of an export's schema that refuses a NUL where zod can report its place. */
export const nulFree = z.string().refine((s) => !s.includes('\u0000'), NUL);

/** Why `m` cannot be stored, or null. */
export function messageProblem(m: IncomingMessage): string | null {
  const t = m.sentAt.getTime();
  if (!Number.isFinite(t) || t < EARLIEST_MESSAGE_MS || t >= LATEST_MESSAGE_MS)
    return 'its time is not a real instant between 1900 and 2199';
  if (!Number.isInteger(m.utcOffsetMin) || Math.abs(m.utcOffsetMin) > 14 * 60) return `its UTC offset ${m.utcOffsetMin} min is impossible`;
  if (hasNul(m.text)) return `its text ${NUL}`;
  if (hasNul(m.speaker)) return `its sender ${NUL}`;
  if (hasNul(m.externalId)) return `its id ${NUL}`;
  if (m.attachments.some((a) => hasNul(a.name) || hasNul(a.uri) || hasNul(a.caption) || hasNul(a.mimeType))) return `an attachment ${NUL}`;
  if (nulInJson(m.metadata)) return `its details ${NUL}`;
  return null;
}

/** Why the conversation's own fields (not its messages) cannot be stored, or null. */
export function conversationProblem(c: IncomingConversation): string | null {
  if (hasNul(c.title) || hasNul(c.externalId) || c.participants.some(hasNul) || nulInJson(c.metadata))
    return `its title, id or participants ${NUL}`;
  return null;
}

/** Throws, with the line the message starts on, when `m` cannot be stored. */
export function checkLineMessage(file: string, line: number, m: IncomingMessage): void {
  const problem = messageProblem(m);
  if (problem) throw importError(file, { line }, `message: ${problem}`);
}
