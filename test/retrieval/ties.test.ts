/**
 * Memories that match a query equally well rank in the order they were remembered (facts: by key), not
 * by their ids (random): the same conversations give the same results in every store built from them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedder } from '../../core/embed/embedder.js';
import type { Engine } from '../../core/engine/open-engine.js';
import { newOwner, openMemoryEngine } from '../helpers/engine.js';

const LANTERNS = 6;

/** Each lantern note a different distance from every query: the later the note, the nearer. */
const byNumber: Embedder = {
  modelId: 'test/by-number',
  dimensions: 2,
  async embed(texts, kind) {
    return texts.map((t) => {
      if (kind === 'query') return Float32Array.from([1, 0]);
      const a = ((LANTERNS - Number(/number (\d)/.exec(t)?.[1] ?? 0)) * Math.PI) / 16;
      return Float32Array.from([Math.cos(a), Math.sin(a)]);
    });
  },
  async dispose() {},
};

describe('ties', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await openMemoryEngine({ embedder: byNumber, config: { retrieval: { vectorFloor: 'off' } } });
  });
  afterAll(async () => {
    await engine.close();
  });

  /** One conversation a note, each the same words but its number: every note scores the same on keywords. */
  const remember = async () => {
    const ownerId = newOwner('ties');
    for (let n = 0; n < LANTERNS; n++)
      await engine.call('ingestConversation', {
        ownerId,
        conversation: {
          id: `note-${n}`,
          messages: [
            {
              id: `note-${n}-1`,
              speaker: 'Lin',
              text: `Paper lantern number ${n}`,
              timestamp: new Date(Date.UTC(2024, 2, 1 + n)).toISOString(),
            },
          ],
        },
      });
    return ownerId;
  };
  const order = async (ownerId: string, mode: 'bm25' | 'hybrid') =>
    (await engine.call('search', { ownerId, query: 'paper lantern', mode })).results.map((r) => /number (\d)/.exec(r.text)?.[1]);

  it('ranks equal keyword matches in the order they were remembered', async () => {
    const [a, b] = [await remember(), await remember()];
    const scores = new Set((await engine.call('search', { ownerId: a, query: 'paper lantern', mode: 'bm25' })).results.map((r) => r.score));
    expect(scores.size).toBe(1);
    const remembered = Array.from({ length: LANTERNS }, (_, n) => String(n));
    expect(await order(a, 'bm25')).toEqual(remembered);
    expect(await order(b, 'bm25')).toEqual(remembered);
  });

  it('ranks equal fact matches by key', async () => {
    // Without a model: alike facts under different keys would merge by meaning.
    const keywordsOnly = await openMemoryEngine();
    try {
      const ownerId = newOwner('tied-facts');
      for (const n of [3, 0, 5, 1, 4, 2])
        await keywordsOnly.call('upsertKnowledge', { ownerId, key: `lantern:note_${n}`, value: `Paper lantern number ${n}` });
      const found = (await keywordsOnly.call('search', { ownerId, query: 'paper lantern', kind: 'semantic', mode: 'bm25' })).results;
      expect(new Set(found.map((r) => r.score)).size).toBe(1);
      expect(found.map((r) => (r.kind === 'semantic' ? r.key : null))).toEqual(
        Array.from({ length: LANTERNS }, (_, n) => `lantern:note_${n}`),
      );
    } finally {
      await keywordsOnly.close();
    }
  });

  it('fuses ties the same way in every store', async () => {
    const [a, b] = [await remember(), await remember()];
    const first = await order(a, 'hybrid');
    expect(first).toHaveLength(LANTERNS);
    expect(await order(b, 'hybrid')).toEqual(first);
  });
});
