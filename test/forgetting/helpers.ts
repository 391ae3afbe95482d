import { afterAll, beforeAll, expect } from 'vitest';
import type { OpInput } from '../../core/api/contract.js';
import { openEmbedder } from '../../core/embed/index.js';
import type { Engine } from '../../core/engine/open-engine.js';
import type { Clock } from '../../core/context/engine-context.js';
import { tinyModelOptions } from '../fixtures/tiny-model/index.js';
import { openMemoryEngine } from '../helpers/engine.js';

export const DAY_MS = 86_400_000;

/** A clock the test moves by hand: nothing in the engine reads the wall clock. */
export class TestClock implements Clock {
  private t: number;
  constructor(start: string | Date) {
    this.t = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.t);
  }
  advanceDays(days: number): Date {
    this.t += days * DAY_MS;
    return this.now();
  }
}

/**
 * The engine the tests of a describe block share: in memory, with the tiny embedding model, on `clock`.
 * Opened before the block's first test and closed after its last; call the returned function for it.
 */
export function sharedEngine(clock: TestClock): () => Engine {
  let engine: Engine | undefined;
  beforeAll(async () => {
    engine = await openMemoryEngine({ embedder: await openEmbedder(tinyModelOptions()), clock });
  });
  afterAll(async () => {
    await engine?.close();
  });
  return () => {
    if (!engine) throw new Error('the shared engine opens before the first test of its describe block');
    return engine;
  };
}

type Conversation = OpInput<'ingestConversation'>['conversation'];

/**
 * One conversation whose entries become separate episodes (a day apart). Each entry keeps its own
 * timestamp whatever else is in the conversation, so two owners ingesting overlapping diaries get
 * identical episodes for the shared entries.
 */
export function diary(id: string, entries: readonly { key: string; text: string; day: number }[]): Conversation {
  const t0 = Date.parse('2024-03-01T10:00:00+08:00');
  return {
    id,
    messages: entries.map((e) => ({
      id: `${e.key}`,
      speaker: 'Lin',
      text: e.text,
      timestamp: new Date(t0 + e.day * DAY_MS).toISOString(),
    })),
  };
}

/** The episode built from the diary entry with this message id. */
export async function episodeOf(engine: Engine, ownerId: string, key: string): Promise<string> {
  const { episodes } = await engine.call('listEpisodes', { ownerId, limit: 1000 });
  const ids = episodes.map((e) => e.id);
  for (const id of ids) {
    const msgs = await engine.context.store.read.conversations.messagesOfEpisodes(ownerId, [id]);
    if (msgs.some((m) => m.externalId === key)) return id;
  }
  throw new Error(`no episode for ${key}`);
}

/** What a search returns, reduced to what "identical hits" means: ids, order and scores. */
export async function hits(engine: Engine, ownerId: string, query: string, mode: 'hybrid' | 'bm25' | 'vector') {
  const out = await engine.call('search', { ownerId, query, mode, limit: 20 });
  return out.results.map((r) => ({ id: r.id, score: r.score, bm25: r.scores.bm25, vector: r.scores.vector }));
}

/** Same ids, same order, same scores within float tolerance. */
export function expectSameHits(a: Awaited<ReturnType<typeof hits>>, b: Awaited<ReturnType<typeof hits>>): void {
  expect(b.map((x) => x.id)).toEqual(a.map((x) => x.id));
  a.forEach((x, i) => {
    const y = b[i]!;
    expect(y.score).toBeCloseTo(x.score, 5);
    for (const k of ['bm25', 'vector'] as const) {
      const u = x[k];
      const v = y[k];
      if (u === null) expect(v).toBeNull();
      else expect(v ?? Number.NaN).toBeCloseTo(u, 5);
    }
  });
}
