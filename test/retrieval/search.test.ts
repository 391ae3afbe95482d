import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import type { OpInput } from '../../core/api/contract.js';
import { openEmbedder } from '../../core/embed/index.js';
import type { Embedder } from '../../core/embed/embedder.js';
import { newOwner, openMemoryEngine } from '../helpers/engine.js';
import { cosine, paraphrasePair, PARAPHRASE_PAIRS, tinyModelOptions } from '../fixtures/tiny-model/index.js';
import { floorFrom, relevanceFloor } from '../../core/retrieval/relevance-floor.js';
import { CONSISTENT } from '../store/helpers.js';

type Conversation = OpInput<'ingestConversation'>['conversation'];

/** A conversation of separate episodes: one per text, a day apart. */
function diary(id: string, texts: readonly string[], start = '2024-03-01T10:00:00+08:00'): Conversation {
  const t0 = new Date(start).getTime();
  return {
    id,
    messages: texts.map((text, i) => ({ id: `${id}-${i}`, speaker: 'Lin', text, timestamp: new Date(t0 + i * 86_400_000).toISOString() })),
  };
}

const entries = [
  'I adore hiking in the mountains',
  'The quarterly tax report is due on Friday',
  '我最近在学机器学习，做了一个推荐系统项目',
  '下周去上海出差，顺便见见老同学',
  'Our team won the basketball game last night',
];

describe('search with the tiny embedding model', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await openMemoryEngine({ embedder: await openEmbedder(tinyModelOptions()) });
  });
  afterAll(async () => {
    await engine.close();
  });

  it('finds an English and a Chinese memory by keyword, with sources and reasons', async () => {
    const ownerId = newOwner();
    await engine.call('ingestConversation', { ownerId, conversation: diary('d', entries) });
    const en = await engine.call('search', { ownerId, query: 'basketball game', mode: 'bm25' });
    expect(en.results[0]?.text).toContain('basketball');
    expect(en.results[0]?.reason.matchedBy).toEqual(['bm25']);
    expect(en.results[0]?.sources.map((s) => s.externalId)).toEqual(['d-4']);

    // Chinese is searched by word: 机器学习 and 上海 are found inside longer sentences.
    const ml = await engine.call('search', { ownerId, query: '机器学习', mode: 'bm25' });
    expect(ml.results[0]?.text).toContain('推荐系统');
    const sh = await engine.call('search', { ownerId, query: '上海', mode: 'bm25' });
    expect(sh.results[0]?.text).toContain('出差');
    expect(sh.results).toHaveLength(1);
  });

  it('vector search finds a paraphrase that keyword search cannot', async () => {
    const ownerId = newOwner();
    await engine.call('ingestConversation', { ownerId, conversation: diary('d', entries) });
    const { b: paraphrase } = paraphrasePair('en-hiking');
    const keyword = await engine.call('search', { ownerId, query: paraphrase, mode: 'bm25' });
    expect(keyword.results.some((r) => r.text.includes('hiking'))).toBe(false);
    const vector = await engine.call('search', { ownerId, query: paraphrase, mode: 'vector', limit: 1 });
    expect(vector.results[0]?.text).toContain('hiking');
    const hybrid = await engine.call('search', { ownerId, query: paraphrase, mode: 'hybrid', limit: 1 });
    expect(hybrid.results[0]?.text).toContain('hiking');
    expect(hybrid.results[0]?.reason.matchedBy).toContain('vector');
  });

  it('warns of missing vectors only where there is something to search: no facts is not a fact without a vector', async () => {
    const ownerId = newOwner();
    await engine.call('ingestConversation', { ownerId, conversation: diary('d', entries) });
    expect((await engine.call('search', { ownerId, query: 'basketball', kind: 'semantic' })).warnings).toEqual([]);
    expect((await engine.call('search', { ownerId, query: 'basketball' })).warnings).toEqual([]);
    expect((await engine.call('loadContext', { ownerId, query: 'basketball' })).warnings).toEqual([]);
  });

  it('drops results found only by meaning when they are under the model’s relevance floor', async () => {
    const ownerId = newOwner();
    await engine.call('ingestConversation', {
      ownerId,
      conversation: diary('d', [...entries, '周六我们去杭州西湖骑自行车，顺便去龙井村买明前龙井。']),
    });
    const floor = await relevanceFloor(engine.context.embedder!, '龙井 自行车');
    // A Chinese query about tea and bicycles: the West Lake entry matches its words; the English
    // entries are unrelated and must not be listed as "close in meaning".
    const r = await engine.call('search', { ownerId, query: '龙井 自行车', mode: 'hybrid', limit: 20 });
    expect(r.results[0]?.text).toContain('龙井');
    for (const x of r.results) expect(x.reason.matchedBy.includes('bm25') || (x.scores.vector ?? -1) >= floor).toBe(true);
    expect(r.results.some((x) => x.text.includes('tax report'))).toBe(false);
    // Searching by meaning alone keeps only what clears the floor; with the floor off, everything comes back.
    const v = await engine.call('search', { ownerId, query: '龙井 自行车', mode: 'vector', limit: 20 });
    expect(v.results.every((x) => (x.scores.vector ?? -1) >= floor)).toBe(true);
    expect(v.results.length).toBeLessThan(entries.length + 1);
  });

  it('measures the floor from unrelated pairs: above what unrelated texts reach, below what paraphrases reach', async () => {
    const embedder = engine.context.embedder!;
    const floor = await relevanceFloor(embedder, 'hiking');
    expect(await relevanceFloor(embedder, 'tax')).toBe(floor);
    for (const p of PARAPHRASE_PAIRS.filter((x) => x.lang === 'en')) {
      const [a, b, u] = await embedder.embed([p.a, p.b, p.unrelated], 'passage');
      expect(cosine(a!, b!)).toBeGreaterThan(floor);
      expect(cosine(a!, u!)).toBeLessThan(floor + 0.05);
    }
    // The quantile of the unrelated pairs, whatever the model's scale.
    const unit = (x: number, y: number) => Float32Array.from([x, y].map((v) => v / Math.hypot(x, y)));
    expect(floorFrom([unit(1, 0), unit(0, 1)], [unit(1, 0), unit(0, 1)])).toBeCloseTo(0);
  });

  it('measures the floor per script: a model blind to Chinese gets a high floor for Chinese questions only', async () => {
    // Reads Latin words into distinct directions; every Chinese sentence lands on nearly the same vector.
    const words = (t: string) => t.toLowerCase().match(/[a-z]+/g) ?? [];
    const blind: Embedder = {
      modelId: 'test/english-only',
      dimensions: 64,
      async embed(texts) {
        return texts.map((t) => {
          const v = new Float32Array(64);
          v[0] = /\p{Script=Han}/u.test(t) ? 10 : 0.05;
          for (const w of words(t)) {
            const i = 1 + ([...w].reduce((h, c) => h * 31 + c.charCodeAt(0), 7) % 63);
            v[i] = v[i]! + 1;
          }
          const n = Math.hypot(...v);
          return v.map((x) => x / n);
        });
      },
      async dispose() {},
    };
    const english = await relevanceFloor(blind, 'Where did we go hiking?');
    const chinese = await relevanceFloor(blind, '我们去哪里爬山了？');
    expect(chinese).toBeGreaterThan(0.9);
    expect(english).toBeLessThan(0.5);
  });

  it('keeps owners apart in every mode', async () => {
    const alice = newOwner('alice');
    const bob = newOwner('bob');
    await engine.call('ingestConversation', { ownerId: alice, conversation: diary('a', ['Alice keeps bees on her balcony']) });
    await engine.call('ingestConversation', { ownerId: bob, conversation: diary('b', ['Bob collects vintage radios']) });
    for (const mode of ['bm25', 'vector', 'hybrid'] as const) {
      const r = await engine.call('search', { ownerId: bob, query: 'bees balcony', mode });
      expect(r.results.every((x) => !x.text.includes('bees'))).toBe(true);
    }
    const list = await engine.call('listEpisodes', { ownerId: bob });
    expect(list.episodes.map((e) => e.ownerId)).toEqual([bob]);
    const aliceEpisode = (await engine.call('listEpisodes', { ownerId: alice })).episodes[0]!;
    await expect(engine.call('getEpisode', { ownerId: bob, id: aliceEpisode.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('applies the query filters: time range, type, minimum importance, limit', async () => {
    const ownerId = newOwner();
    await engine.call('ingestConversation', {
      ownerId,
      conversation: diary('d', ['garden tomatoes first harvest', 'garden tomatoes blight again', 'garden tomatoes sold at market']),
    });
    const all = await engine.call('search', { ownerId, query: 'garden tomatoes', mode: 'bm25' });
    expect(all.results).toHaveLength(3);
    const since = await engine.call('search', {
      ownerId,
      query: 'garden tomatoes',
      mode: 'hybrid',
      since: '2024-03-02',
      until: '2024-03-03',
    });
    expect(since.results.map((r) => r.text.includes('blight'))).toEqual([true]);
    const one = await engine.call('search', { ownerId, query: 'garden tomatoes', mode: 'bm25', limit: 1 });
    expect(one.results).toHaveLength(1);
    const target = all.results.find((r) => r.text.includes('market'))!;
    await engine.call('updateEpisode', { ownerId, id: target.id, patch: { importance: 0.9 } });
    const important = await engine.call('search', { ownerId, query: 'garden tomatoes', mode: 'hybrid', minImportance: 0.8 });
    expect(important.results.map((r) => r.id)).toEqual([target.id]);
    const social = await engine.call('search', { ownerId, query: 'garden tomatoes', mode: 'bm25', episodeTypes: ['social'] });
    expect(social.results).toHaveLength(0);
  });

  it('changes only what an edit gives: a new title keeps the keywords, entities, importance and kind', async () => {
    const ownerId = newOwner();
    await engine.call('ingestConversation', { ownerId, conversation: diary('e', entries) });
    const tax = (await engine.call('search', { ownerId, query: 'tax report', mode: 'bm25' })).results[0]!;
    await engine.call('updateEpisode', { ownerId, id: tax.id, patch: { importance: 0.8, episodeType: 'social' } });
    const { episode: before } = await engine.call('getEpisode', { ownerId, id: tax.id });
    expect(before.keywords.length).toBeGreaterThan(0);
    expect(before.metadata.messageCount).toBe(1);
    await engine.call('updateEpisode', { ownerId, id: tax.id, patch: { title: 'Taxes, at last' } });
    const { episode: edited } = await engine.call('getEpisode', { ownerId, id: tax.id });
    // Reading it counts as recalling it; the edit is its latest change.
    const unchanged = ({ title: _t, updatedAt: _u, recallCount: _r, lastAccessed: _l, ...rest }: typeof before) => rest;
    expect(edited.title).toBe('Taxes, at last');
    expect(unchanged(edited)).toEqual(unchanged(before));
    expect(edited).toMatchObject({ importance: 0.8, episodeType: 'social' });
  });

  it('keeps every index consistent through update and delete', async () => {
    const ownerId = newOwner();
    await engine.call('ingestConversation', { ownerId, conversation: diary('d', entries) });
    const store = engine.context.store;
    const tax = (await engine.call('search', { ownerId, query: 'tax report', mode: 'bm25' })).results[0]!;

    const { episode } = await engine.call('getEpisode', { ownerId, id: tax.id });
    await engine.call('updateEpisode', {
      ownerId,
      id: tax.id,
      patch: {
        title: 'Sailing regatta',
        content: 'We raced sailboats around the harbour.',
        summary: 'A regatta.',
        keywords: ['regatta'],
        metadata: { ...episode.metadata, topics: ['sailing'], keyPoints: [] },
      },
    });
    expect((await engine.call('search', { ownerId, query: 'tax report', mode: 'bm25' })).results).toHaveLength(0);
    expect((await engine.call('search', { ownerId, query: 'sailboats harbour', mode: 'bm25' })).results[0]?.id).toBe(tax.id);
    expect(await store.read.bm25.verify(ownerId)).toEqual(CONSISTENT);

    await engine.call('deleteEpisode', { ownerId, id: tax.id });
    for (const mode of ['bm25', 'vector', 'hybrid'] as const) {
      const r = await engine.call('search', { ownerId, query: 'sailboats harbour', mode, limit: 50 });
      expect(r.results.map((x) => x.id)).not.toContain(tax.id);
    }
    expect(await store.read.bm25.verify(ownerId)).toEqual(CONSISTENT);
    expect(await store.read.bm25.docCount(ownerId)).toBe(entries.length - 1);
    expect(await store.read.vectors.count(ownerId, 'nemori-tiny')).toBe(entries.length - 1);

    // Rebuilding from stored episodes finds the same memories as the incrementally kept indexes (scores
    // may move slightly: a rebuild normalises every document by the final average lengths).
    const before = await engine.call('search', { ownerId, query: 'mountains 上海 basketball', mode: 'hybrid' });
    expect(await engine.call('rebuildIndexes', { ownerId, reembed: true })).toEqual({
      episodes: entries.length - 1,
      retold: 0,
      secrets: 0,
      backups: { filtered: 0, sealed: 0 },
      embedded: entries.length - 1,
      facts: 0,
      factsEmbedded: 0,
    });
    const after = await engine.call('search', { ownerId, query: 'mountains 上海 basketball', mode: 'hybrid' });
    expect(after.results.map((r) => r.id)).toEqual(before.results.map((r) => r.id));
    expect(await store.read.bm25.verify(ownerId)).toEqual(CONSISTENT);
  });

  it('reading an episode through the API counts as recalling it', async () => {
    const ownerId = newOwner();
    await engine.call('ingestConversation', { ownerId, conversation: diary('d', entries.slice(0, 1)) });
    const [e] = (await engine.call('listEpisodes', { ownerId })).episodes;
    expect(e?.recallCount).toBe(0);
    const shown = await engine.call('getEpisode', { ownerId, id: e!.id });
    expect(shown.episode.recallCount).toBe(1);
    expect(shown.episode.lastAccessed).not.toBeNull();
    expect(shown.messages.map((m) => m.text)).toEqual([entries[0]]);
    // Browsing search results does not; a companion recalling for a conversation does.
    await engine.call('search', { ownerId, query: 'hiking', mode: 'bm25' });
    await engine.call('search', { ownerId, query: 'hiking', mode: 'bm25', markAccessed: true });
    expect((await engine.call('getEpisode', { ownerId, id: e!.id })).episode.recallCount).toBe(3);
  });
});

describe('search without an embedding model', () => {
  it('falls back from hybrid to BM25 with a warning instead of failing', async () => {
    const warnings: string[] = [];
    const engine = await openMemoryEngine({ embedder: null, warn: (m) => warnings.push(m) });
    try {
      const ownerId = newOwner();
      await engine.call('ingestConversation', { ownerId, conversation: diary('d', entries) });
      const r = await engine.call('search', { ownerId, query: 'basketball', mode: 'hybrid' });
      expect(r.mode).toBe('bm25');
      expect(r.results[0]?.text).toContain('basketball');
      expect(r.warnings[0]).toMatch(/no embedding model/);
      expect(warnings).toEqual(r.warnings);
      const v = await engine.call('search', { ownerId, query: 'basketball', mode: 'vector' });
      expect(v.mode).toBe('bm25');
      expect(v.results).not.toHaveLength(0);
    } finally {
      await engine.close();
    }
  });
});
