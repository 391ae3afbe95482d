import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { openEmbedder } from '../../core/embed/transformers-embedder.js';
import { tinyModelOptions } from '../fixtures/tiny-model/index.js';
import { newOwner, openMemoryEngine } from '../helpers/engine.js';
import { TestClock } from '../forgetting/helpers.js';

/** The semantic memory store: every operation, on real PGlite with the tiny embedding model. */

let engine: Engine;
const clock = new TestClock(new Date('2025-03-01T09:00:00Z'));

beforeAll(async () => {
  engine = await openMemoryEngine({
    embedder: await openEmbedder(tinyModelOptions()),
    clock,
    // A small store, so capacity is reachable in a test.
    config: { semantic: { capacity: { maxItems: 4, maxTokens: 100_000 } } },
  });
});
afterAll(async () => {
  await engine.close();
});

const keys = async (ownerId: string, query: string) =>
  (await engine.call('search', { ownerId, query, kind: 'semantic', mode: 'bm25' })).results.map((r) =>
    r.kind === 'semantic' ? r.key : r.id,
  );

describe('upsert and versions', () => {
  it('inserts at version 1, updates to version 2 with lineage, and keeps every version reachable', async () => {
    const ownerId = newOwner();
    const a = await engine.call('upsertKnowledge', {
      ownerId,
      key: 'Location:New York',
      value: 'New York is in the United States',
      metadata: { tags: ['geo'] },
    });
    expect(a).toMatchObject({ key: 'location:new_york', version: 1, action: 'created', previousValue: null, evicted: [] });
    clock.advanceDays(1);
    const b = await engine.call('upsertKnowledge', { ownerId, key: 'location:new_york', value: 'New York is the largest city in the US' });
    expect(b).toMatchObject({ id: a.id, version: 2, action: 'evolved', previousValue: 'New York is in the United States' });
    expect(b.fact.tags).toEqual(['geo']);

    const v1 = await engine.call('getKnowledgeVersion', { ownerId, key: a.id, version: 1 });
    const v2 = await engine.call('getKnowledgeVersion', { ownerId, key: 'location:New_York', version: 2 });
    expect(v1.version).toMatchObject({ value: 'New York is in the United States', link: null, method: 'upsert' });
    expect(v2.version).toMatchObject({ value: 'New York is the largest city in the US', link: 'updates' });
    expect(new Date(v2.version.createdAt).getTime() - new Date(v1.version.createdAt).getTime()).toBe(86_400_000);
    await expect(engine.call('getKnowledgeVersion', { ownerId, key: a.id, version: 3 })).rejects.toThrow(
      /no version 3: versions 1–2 are kept/,
    );

    // The same value again reinforces instead of adding a version.
    const c = await engine.call('upsertKnowledge', { ownerId, key: 'location:new_york', value: 'New York is the largest city in the US.' });
    expect(c).toMatchObject({ version: 2, action: 'reinforced' });
    // A different key is a different fact.
    const d = await engine.call('upsertKnowledge', { ownerId, key: 'person:alice', value: 'Alice is a person' });
    expect(d).toMatchObject({ version: 1, action: 'created' });
    expect(d.id).not.toBe(a.id);
  });

  it('keys are normalised to entity_type:identifier and nonsense keys are refused without writing', async () => {
    const ownerId = newOwner();
    const r = await engine.call('upsertKnowledge', { ownerId, key: '  Tanka   launch date ', value: '2025-06-01' });
    expect(r.key).toBe('fact:tanka_launch_date');
    expect(r.fact.label).toBe('Tanka launch date');
    await expect(engine.call('upsertKnowledge', { ownerId, key: ':::', value: 'x' })).rejects.toThrow(/not a usable key/);
    expect((await engine.call('listKnowledge', { ownerId })).facts).toHaveLength(1);
  });

  it('a contradiction keeps both values in history and the newer as current; a correction lowers the wrong one', async () => {
    const ownerId = newOwner();
    await engine.call('upsertKnowledge', { ownerId, key: 'person:李娜', value: '李娜是我的朋友', metadata: { confidence: 0.9 } });
    const fixed = await engine.call('upsertKnowledge', {
      ownerId,
      key: 'person:李娜',
      value: '李娜是我的同事，不是朋友',
      metadata: { correction: true },
    });
    expect(fixed).toMatchObject({ version: 2, action: 'corrected' });
    const k = await engine.call('getKnowledge', { ownerId, key: 'person:李娜' });
    expect(k.fact.value).toBe('李娜是我的同事，不是朋友');
    expect(k.fact.confidence).toBe(1);
    expect(k.timeline.map((v) => [v.value, v.link, v.corrected, v.method])).toEqual([
      ['李娜是我的朋友', null, true, 'upsert'],
      ['李娜是我的同事，不是朋友', 'corrects', false, 'user_feedback'],
    ]);
    expect(k.timeline[0]!.confidence).toBeCloseTo(0.1, 5);
    // Search finds the current value, not the corrected one.
    const hits = await engine.call('remember', { ownerId, prompt: '同事' });
    expect(hits.items.map((h) => h.summary)).toEqual(['李娜是我的同事，不是朋友']);
  });

  it('near-duplicates under another key are merged instead of stored twice (similarity > 0.95)', async () => {
    const ownerId = newOwner();
    const a = await engine.call('upsertKnowledge', { ownerId, key: 'project:tanka', value: "Tanka is Alice's startup for team chat" });
    const b = await engine.call('upsertKnowledge', { ownerId, key: 'project:Tanka', value: "Tanka is Alice's startup for team chat!" });
    expect(b).toMatchObject({ id: a.id, action: 'reinforced' });
    const c = await engine.call('memorize', { ownerId, value: "Tanka is Alice's startup for team chat" });
    expect(c).toMatchObject({ id: a.id, action: 'merged', key: 'project:tanka' });
    expect(c.fact.confidence).toBe(1);
    const other = await engine.call('memorize', { ownerId, value: 'Bob plays the cello on Sundays' });
    expect(other).toMatchObject({ action: 'created', key: 'fact:bob_plays_the_cello_on_sundays' });
    expect((await engine.call('listKnowledge', { ownerId })).facts).toHaveLength(2);
  });
});

describe('remember, forget, undelete', () => {
  it('remember finds facts by hybrid search with metadata filters and counts the access', async () => {
    const ownerId = newOwner();
    await engine.call('upsertKnowledge', {
      ownerId,
      key: 'person:emma',
      value: 'Emma works at the Lisbon aquarium',
      metadata: { tags: ['family'], source: 'chat' },
    });
    await engine.call('upsertKnowledge', {
      ownerId,
      key: 'place:lisbon_aquarium',
      value: 'The Lisbon aquarium has otters',
      metadata: { tags: ['travel'] },
    });
    const all = await engine.call('remember', { ownerId, prompt: 'Lisbon aquarium' });
    expect(all.items.map((i) => i.key).sort()).toEqual(['person:emma', 'place:lisbon_aquarium']);
    expect(all.items[0]!.reason.matchedBy).toContain('bm25');
    const family = await engine.call('remember', { ownerId, prompt: 'Lisbon aquarium', tags: ['family'] });
    expect(family.items.map((i) => i.key)).toEqual(['person:emma']);
    const typed = await engine.call('remember', { ownerId, prompt: 'Lisbon aquarium', entityTypes: ['place'] });
    expect(typed.items.map((i) => i.key)).toEqual(['place:lisbon_aquarium']);
    const emma = (await engine.call('listKnowledge', { ownerId })).facts.find((f) => f.key === 'person:emma')!;
    expect(emma.accessCount).toBeGreaterThanOrEqual(2);
    expect(emma.lastAccessed).not.toBeNull();
  });

  it('soft delete hides a fact from search and listing until undelete; hard delete removes every version', async () => {
    const ownerId = newOwner();
    await engine.call('upsertKnowledge', { ownerId, key: 'person:bob', value: 'Bob owns a red bicycle' });
    await engine.call('upsertKnowledge', { ownerId, key: 'person:bob', value: 'Bob owns a blue bicycle' });
    const soft = await engine.call('forgetKnowledge', { ownerId, instruction: 'key:person:bob' });
    expect(soft).toMatchObject({ mode: 'soft', forgotten: [{ key: 'person:bob', version: 2 }], store: { items: 0, trashed: 1 } });
    expect(await keys(ownerId, 'bicycle')).toEqual([]);
    expect((await engine.call('search', { ownerId, query: 'blue bicycle', kind: 'semantic', mode: 'vector' })).results).toEqual([]);
    expect((await engine.call('listKnowledge', { ownerId })).facts).toEqual([]);
    expect((await engine.call('listKnowledge', { ownerId, tier: 'trash' })).facts.map((f) => f.key)).toEqual(['person:bob']);
    // The trash says why, as data the app words in the reader's language.
    expect((await engine.call('listTrash', { ownerId })).items).toMatchObject([
      { kind: 'semantic', reason: { kind: 'forgotten', request: { by: 'key', key: 'person:bob' } } },
    ]);

    const back = await engine.call('undeleteKnowledge', { ownerId, key: 'person:bob' });
    expect(back).toMatchObject({ tier: 'active', version: 2, value: 'Bob owns a blue bicycle' });
    expect(await keys(ownerId, 'bicycle')).toEqual(['person:bob']);
    expect(
      (await engine.call('search', { ownerId, query: 'blue bicycle', kind: 'semantic', mode: 'vector' })).results.map((r) => r.id),
    ).toEqual([back.id]);
    await expect(engine.call('undeleteKnowledge', { ownerId, key: 'person:bob' })).rejects.toThrow(/not deleted/);

    const hard = await engine.call('forgetKnowledge', { ownerId, instruction: 'key:person:bob', mode: 'hard' });
    expect(hard.forgotten).toHaveLength(1);
    expect(hard.store).toMatchObject({ items: 0, trashed: 0, versions: 0 });
    await expect(engine.call('getKnowledgeVersion', { ownerId, key: back.id, version: 1 })).rejects.toThrow(/no fact/);
    await expect(engine.call('undeleteKnowledge', { ownerId, key: 'person:bob' })).rejects.toThrow(/no fact/);
  });

  it('understands oldest, least important and before:<time>, and refuses other instructions', async () => {
    const ownerId = newOwner();
    const t0 = clock.now();
    await engine.call('upsertKnowledge', { ownerId, key: 'fact:a', value: 'first fact', metadata: { importance: 0.9 } });
    clock.advanceDays(1);
    await engine.call('upsertKnowledge', { ownerId, key: 'fact:b', value: 'second fact', metadata: { importance: 0.2 } });
    clock.advanceDays(1);
    await engine.call('upsertKnowledge', { ownerId, key: 'fact:c', value: 'third fact', metadata: { importance: 0.6 } });
    clock.advanceDays(1);
    await engine.call('remember', { ownerId, prompt: 'first', mode: 'bm25' }); // fact:a is now the most recently used

    expect((await engine.call('forgetKnowledge', { ownerId, instruction: 'oldest' })).forgotten.map((f) => f.key)).toEqual(['fact:b']);
    await engine.call('undeleteKnowledge', { ownerId, key: 'fact:b' });
    expect(
      (await engine.call('forgetKnowledge', { ownerId, instruction: 'least important', mode: 'hard' })).forgotten.map((f) => f.key),
    ).toEqual(['fact:b']);
    const before = new Date(t0.getTime() + 36 * 3_600_000).toISOString();
    expect((await engine.call('forgetKnowledge', { ownerId, instruction: `before:${before}` })).forgotten.map((f) => f.key)).toEqual([
      'fact:a',
    ]);
    expect((await engine.call('listTrash', { ownerId })).items.map((x) => x.reason)).toEqual([
      { kind: 'forgotten', request: { by: 'before', before } },
    ]);
    await expect(engine.call('forgetKnowledge', { ownerId, instruction: 'everything about cats' })).rejects.toThrow(
      /not a forget instruction/,
    );
    await expect(engine.call('forgetKnowledge', { ownerId, instruction: 'before:soon' })).rejects.toThrow(/not a time/);
    expect((await engine.call('listKnowledge', { ownerId })).facts.map((f) => f.key)).toEqual(['fact:c']);
  });
});

describe('capacity, summarize', () => {
  it('evicts least valuable facts beyond max items, never a protected one, and reports it in the reply', async () => {
    const ownerId = newOwner();
    const put = (key: string, importance: number) =>
      engine.call('upsertKnowledge', { ownerId, key, value: `value of ${key}`, metadata: { importance } });
    await put('fact:keep1', 0.9);
    await put('fact:keep2', 0.7);
    await put('fact:old', 0.5);
    clock.advanceDays(1 / 24);
    await put('fact:trivia', 0.1);
    const info = await engine.call('knowledgeCapacity', { ownerId });
    expect(info).toMatchObject({
      items: 4,
      maxItems: 4,
      protected: 2,
      lowImportance: 1,
      over: false,
      nextEviction: { key: 'fact:trivia' },
    });

    // Fifth fact: the unimportant one goes first, even though it is the newest.
    const fifth = await put('fact:new1', 0.5);
    expect(fifth.evicted.map((e) => e.key)).toEqual(['fact:trivia']);
    expect(fifth.evicted[0]!.reason).toMatch(/over the limit of 4 facts: low importance 0.10/);
    // Sixth: then the least recently used unprotected one.
    clock.advanceDays(1 / 24);
    const sixth = await put('fact:new2', 0.5);
    expect(sixth.evicted.map((e) => e.key)).toEqual(['fact:old']);
    expect(sixth.evicted[0]!.reason).toMatch(/least recently used/);
    // Only protected facts and the one just written left: the store says it is over instead of evicting them.
    await put('fact:new3', 0.8);
    await put('fact:new4', 0.95);
    const keysLeft = (await engine.call('listKnowledge', { ownerId })).facts.map((f) => f.key).sort();
    expect(keysLeft).toEqual(expect.arrayContaining(['fact:keep1', 'fact:keep2', 'fact:new3', 'fact:new4']));
    expect(keysLeft).not.toContain('fact:trivia');
  });

  it('summarizes facts in scope within the token limit, most important first, with relationships', async () => {
    const ownerId = newOwner();
    await engine.call('upsertKnowledge', {
      ownerId,
      key: 'person:alice',
      value: 'Alice is a marine biologist',
      metadata: { importance: 0.9 },
    });
    await engine.call('upsertKnowledge', {
      ownerId,
      key: 'person:bob',
      value: 'Bob is a cellist in the city orchestra',
      metadata: { importance: 0.4 },
    });
    await engine.call('upsertKnowledge', { ownerId, key: 'place:lisbon', value: 'Lisbon is where Alice lives' });
    const all = await engine.call('summarizeKnowledge', { ownerId });
    expect(all.keys).toEqual(['person:alice', 'place:lisbon', 'person:bob']);
    expect(all.summary).toContain('person:\n- Alice is a marine biologist');
    expect(all.left).toBe(0);
    const people = await engine.call('summarizeKnowledge', { ownerId, scope: 'person' });
    expect(people.keys).toEqual(['person:alice', 'person:bob']);
    const tight = await engine.call('summarizeKnowledge', { ownerId, scope: 'person', tokenLimit: 12 });
    expect(tight.keys).toEqual(['person:alice']);
    expect(tight.tokens).toBeLessThanOrEqual(12);
    expect(tight.left).toBe(1);
  });
  it('says a label once: a value that says it already stands alone', async () => {
    const ownerId = newOwner();
    await engine.call('upsertKnowledge', { ownerId, key: 'preference:coffee', value: 'Black, no sugar' });
    await engine.call('memorize', { ownerId, value: 'Lin is learning Portuguese for a move to Lisbon next spring.' });
    await engine.call('memorize', { ownerId, value: 'Lin 的女儿叫小雨，正在学钢琴。' });
    const { summary } = await engine.call('summarizeKnowledge', { ownerId });
    expect(summary).toContain('- coffee: Black, no sugar');
    expect(summary).toContain('- Lin is learning Portuguese for a move to Lisbon next spring.');
    expect(summary).toContain('- Lin 的女儿叫小雨，正在学钢琴。');
    const found = await engine.call('search', { ownerId, query: 'Lisbon', kind: 'semantic' });
    expect(found.results.map((r) => r.text)).toEqual(['Lin is learning Portuguese for a move to Lisbon next spring.']);
  });
  it('summarizes many facts page by page in the same order as all of them sorted, each once', async () => {
    const ownerId = newOwner();
    // The default capacity, and a clock that stands still: ties in importance, confidence and time, which the id breaks.
    const own = await openMemoryEngine({ clock: new TestClock(new Date('2025-03-01T09:00:00Z')) });
    onTestFinished(() => own.close());
    for (let i = 0; i < 60; i++)
      await own.call('upsertKnowledge', {
        ownerId,
        key: `fact:n${String(i).padStart(2, '0')}`,
        value: `Fact number ${i}`,
        metadata: { importance: [0.3, 0.6, 0.9][i % 3]!, confidence: [0.5, 0.8][i % 2]! },
      });
    const { facts } = await own.call('listKnowledge', { ownerId, limit: 200 });
    expect(facts).toHaveLength(60);
    const expected = [...facts]
      .sort(
        (a, b) =>
          b.importance - a.importance || b.confidence - a.confidence || b.updatedAt.localeCompare(a.updatedAt) || b.id.localeCompare(a.id),
      )
      .map((f) => f.key);
    // A small limit reads several pages of a few facts each.
    const all = await own.call('summarizeKnowledge', { ownerId, tokenLimit: 400 });
    expect(all.keys).toEqual(expected.slice(0, all.keys.length));
    expect(all.keys.length).toBeGreaterThan(20);
    expect(all.left).toBe(60 - all.keys.length);
    const whole = await own.call('summarizeKnowledge', { ownerId, tokenLimit: 5000 });
    expect(whole.keys).toEqual(expected);
    expect(whole.left).toBe(0);
  });
});
