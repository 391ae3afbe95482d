import { afterAll, beforeAll, expect } from 'vitest';
import { EpisodeDraft, type EpisodeDraft as Draft } from '../../core/domain/episode.js';
import type { IncomingConversation } from '../../core/domain/conversation.js';
import type { Bm25Doc, Bm25Params, FieldVector } from '../../core/store/bm25.js';
import type { NewFact } from '../../core/store/facts.js';
import { Store, type Repos } from '../../core/store/store.js';

/**
 * SQL-level tests of the repositories: a real in-memory PGlite store per test file, no mocks. Every
 * test takes fresh owners (`owners()`), so tests in a file never see each other's rows.
 */

export const NOW = new Date('2024-03-01T12:00:00Z');

/** Opens one in-memory store for the file's tests and closes it after them. */
export function useStore(): () => Store {
  let store: Store | null = null;
  beforeAll(async () => {
    store = await Store.open();
  });
  afterAll(async () => {
    await store?.close();
  });
  return () => store!;
}

let ownerSeq = 0;
/** Two owners no other test uses: the first writes, the second must never see or change its rows. */
export function owners(): [string, string] {
  ownerSeq++;
  return [`alice-${ownerSeq}`, `bob-${ownerSeq}`];
}

export function draft(title: string, o: Partial<Draft> = {}): Draft {
  return EpisodeDraft.parse({
    title,
    content: `${title}: what happened`,
    summary: `${title} in short`,
    temporal: { start: NOW, end: NOW, utcOffsetMin: 0 },
    builder: 'manual',
    processingVersion: 'test',
    ...o,
  });
}

export function addEpisode(store: Store, ownerId: string, title: string, o: Partial<Draft> = {}): Promise<string> {
  return store.transaction((r) => r.episodes.insert(ownerId, null, draft(title, o), NOW));
}

export function conversation(externalId: string, texts: readonly string[], o: Partial<IncomingConversation> = {}): IncomingConversation {
  return {
    source: 'test',
    externalId,
    participants: ['Lin'],
    metadata: {},
    messages: texts.map((text, i) => ({
      speaker: 'Lin',
      role: 'user' as const,
      text,
      sentAt: new Date(NOW.getTime() + i * 60_000),
      utcOffsetMin: 0,
      attachments: [],
      metadata: {},
    })),
    ...o,
  };
}

/** A BM25 document of an episode: each word once in the content field. */
export function doc(episodeId: string, words: readonly string[]): Bm25Doc {
  const terms = new Map<string, FieldVector>();
  for (const w of words) {
    const tf = terms.get(w) ?? [0, 0, 0, 0, 0];
    tf[4]++;
    terms.set(w, tf);
  }
  return { episodeId, terms, lengths: [0, 0, 0, 0, words.length] };
}

export const bm25Params: Bm25Params = { k1: 1.2, b: 0.75, weights: [3, 2, 2, 2, 1], postingsPerTerm: 1000, rescoreDepth: 100 };

export function newFact(key: string, value: string, o: Partial<NewFact> = {}): NewFact {
  const [entityType = 'fact', label = key] = key.split(':');
  return {
    key,
    entityType,
    label,
    value,
    context: '',
    confidence: 1,
    discoveryEpisodeId: null,
    discoveryMethod: 'upsert',
    keywords: [],
    tags: [],
    source: null,
    importance: 0.5,
    ...o,
  };
}

export function addFact(store: Store, ownerId: string, key: string, value: string, o: Partial<NewFact> = {}): Promise<string> {
  return store.transaction((r) => r.facts.insert(ownerId, newFact(key, value, o), NOW));
}

/** One fact per key, inserted in order, with values 1, 2, …; their ids in the same order. */
export async function addFacts<const K extends readonly string[]>(
  store: Store,
  ownerId: string,
  keys: K,
): Promise<{ -readonly [I in keyof K]: string }> {
  const ids: string[] = [];
  for (const [i, key] of keys.entries()) ids.push(await addFact(store, ownerId, key, String(i + 1)));
  return ids as { -readonly [I in keyof K]: string };
}

/** Records a fact's first version as discovered in `episodeId`, and links the two (in the caller's transaction). */
export async function discoveredIn(r: Repos, ownerId: string, factId: string, episodeId: string, value: string): Promise<void> {
  await r.factVersions.add(
    ownerId,
    factId,
    { version: 1, value, context: '', confidence: 1, link: null, method: 'upsert', episodeId, sourceMessageIds: [] },
    NOW,
  );
  await r.factLinks.link(ownerId, factId, episodeId, 'discovery', NOW);
}

/** A unit vector in three dimensions (the store takes any dimension per model). */
export function vec(x: number, y: number, z: number): Float32Array {
  const n = Math.hypot(x, y, z);
  return new Float32Array([x / n, y / n, z / n]);
}
export const SPACE = { modelId: 'test-model', dimensions: 3 };

/** Runs `fn` in a transaction that then throws: whatever `fn` wrote must be gone afterwards. */
export async function rolledBack(store: Store, fn: (r: Repos) => Promise<unknown>): Promise<void> {
  const boom = new Error('boom');
  await expect(
    store.transaction(async (r) => {
      await fn(r);
      throw boom;
    }),
  ).rejects.toBe(boom);
}

/** What the BM25 index of a consistent owner reports about itself. */
export const CONSISTENT = { dfMismatches: 0, postingMismatches: 0, docsWithoutEpisode: 0, episodesWithoutDoc: 0, statsMismatch: false };
