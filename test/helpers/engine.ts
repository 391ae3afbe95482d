import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { openEngine, type Engine, type OpenEngineOptions } from '../../core/engine/open-engine.js';
import { templateState } from './store-template.mjs';

export const fixture = (...p: string[]) => path.join(import.meta.dirname, '..', 'fixtures', ...p);

let ownerSeq = 0;
/** Each test gets its own owner inside a shared store: PGlite start-up is the expensive part. */
export function newOwner(label = 'owner'): string {
  return `${label}-${process.pid}-${++ownerSeq}`;
}

/**
 * Stores a talk of two turns through the API: `person` says `text` at `at` (ISO, with its offset; not at
 * minute 59), the companion Nemo answers `reply` a minute later. Its messages' ids are the talk's id
 * with -1 and -2.
 */
export function ingestExchange(
  engine: Pick<Engine, 'call'>,
  ownerId: string,
  t: { id: string; at: string; text: string; reply?: string; person?: string },
) {
  const later = t.at.replace(/T(\d\d):(\d\d)/, (_, h: string, m: string) => `T${h}:${String(Number(m) + 1).padStart(2, '0')}`);
  return engine.call('ingestConversation', {
    ownerId,
    source: 'api',
    conversation: {
      id: t.id,
      messages: [
        { id: `${t.id}-1`, speaker: t.person ?? 'Lin', text: t.text, timestamp: t.at },
        { id: `${t.id}-2`, speaker: 'Nemo', text: t.reply ?? 'Noted, thanks for telling me.', timestamp: later },
      ],
    },
  });
}

/**
 * A new in-memory engine holding one exchange per talk, each at noon in Shanghai (UTC+08:00) on its
 * day, `person` speaking first (see ingestExchange).
 */
export async function engineWithTalks(
  ownerId: string,
  person: string,
  talks: readonly { id: string; day: string; text: string; reply: string }[],
): Promise<Engine> {
  const engine = await openMemoryEngine();
  for (const t of talks)
    await ingestExchange(engine, ownerId, { id: t.id, at: `${t.day}T12:00:00+08:00`, text: t.text, reply: t.reply, person });
  return engine;
}

export async function openMemoryEngine(o: Partial<OpenEngineOptions> = {}): Promise<Engine> {
  return openEngine({ home: null, embedder: null, ...o });
}

export function tempDir(prefix = 'nemori-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A file of `n` conversations of 5 messages each, in Nemori's own JSON format. */
export function manyConversationsFile(n: number): string {
  const t0 = Date.parse('2024-02-01T09:00:00Z');
  const file = path.join(tempDir(), 'many.json');
  const list = Array.from({ length: n }, (_, c) => ({
    id: `c${c}`,
    messages: Array.from({ length: 5 }, (_, m) => ({
      id: `c${c}-m${m}`,
      speaker: m % 2 ? 'Ana' : 'Ben',
      text: `conversation ${c} message ${m} about topic ${c % 7}`,
      timestamp: new Date(t0 + c * 86_400_000 + m * 60_000).toISOString(),
    })),
  }));
  fs.writeFileSync(file, JSON.stringify({ conversations: list }));
  return file;
}

/** The import fixture two-days.json with one more message by Alice at `timestamp`, written to a new file. */
export function grownTwoDaysFile(timestamp: string): string {
  const grown = JSON.parse(fs.readFileSync(fixture('import', 'two-days.json'), 'utf8'));
  grown.conversations[0].messages.push({ id: 'm7', speaker: 'Alice', text: 'Booked the Salomon boots online.', timestamp });
  const file = path.join(tempDir(), 'grown.json');
  fs.writeFileSync(file, JSON.stringify(grown));
  return file;
}

/**
 * New stores in this file (or `describe` block) run PGlite's initdb and every migration, as on a
 * person's machine, instead of starting from the run's template (test/helpers/store-template.mjs).
 * For the store's own tests of making and upgrading a store.
 */
export function useRealStoreStartup(): void {
  beforeAll(() => {
    templateState().enabled = false;
  });
  afterAll(() => {
    templateState().enabled = true;
  });
}
