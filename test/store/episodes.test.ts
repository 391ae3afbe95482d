import { describe, expect, it } from 'vitest';
import { EpisodeMetadata } from '../../core/domain/episode.js';
import type { ListOptions } from '../../core/store/episodes.js';
import { bm25Params, CONSISTENT, conversation, draft, addEpisode, doc, NOW, owners, rolledBack, SPACE, useStore, vec } from './helpers.js';

describe('episodes repository', () => {
  const store = useStore();

  it('lists every owner once, in order: those with only conversations, only episodes, or both', async () => {
    const [a, b] = owners();
    const [c] = owners();
    await store().transaction((r) => r.conversations.upsert(a, conversation('chat', ['hi']), NOW));
    await addEpisode(store(), b, 'Written by hand');
    await store().transaction((r) => r.conversations.upsert(c, conversation('chat', ['hi']), NOW));
    await addEpisode(store(), c, 'Gornergrat');
    const listed = await store().read.episodes.owners();
    expect(listed.filter((o) => [a, b, c].includes(o))).toEqual([a, b, c].sort());
    expect(listed).toEqual([...new Set(listed)].sort());
  });

  it('gives the evidence packer each episode’s header: title, summary, exact times, topics and people', async () => {
    const [a] = owners();
    const temporal = { start: new Date('2024-01-01T10:00:00.250Z'), end: new Date('2024-01-01T11:30:00Z'), utcOffsetMin: 60 };
    const rich = await addEpisode(store(), a, 'Gornergrat', {
      temporal,
      keywords: ['cog railway', 'Matterhorn'],
      metadata: EpisodeMetadata.parse({ entities: ['Zermatt', 'Ann'], participants: ['Ann', 'Ben'] }),
    });
    const bare = await addEpisode(store(), a, 'Boots');
    const read = store().read.episodes;
    const headers = new Map((await read.headers(a, [rich, bare, crypto.randomUUID()])).map((h) => [h.id, h]));
    expect(headers.size).toBe(2);
    expect(headers.get(rich)).toEqual({
      id: rich,
      conversationId: null,
      title: 'Gornergrat',
      summary: 'Gornergrat in short',
      temporal,
      keywords: ['cog railway', 'Matterhorn'],
      entities: ['Zermatt', 'Ann'],
      participants: ['Ann', 'Ben'],
    });
    expect(headers.get(bare)).toMatchObject({ keywords: [], entities: [], participants: [] });
    // The same header search results carry.
    for (const r of await read.searchResultsWithMessages(a, [rich, bare])) expect(headers.get(r.id)).toEqual(r.header);
    expect(await read.headers(owners()[0]!, [rich])).toEqual([]);
    // A page of them, latest first, as a list gives it.
    expect(await read.listHeaders(a, { limit: 10 })).toEqual([headers.get(bare), headers.get(rich)]);
  });

  it('stores, reads, lists and updates an episode', async () => {
    const [a] = owners();
    const first = await addEpisode(store(), a, 'Gornergrat', {
      temporal: { start: new Date('2024-01-01T10:00:00Z'), end: new Date('2024-01-01T11:00:00Z'), utcOffsetMin: 60 },
    });
    const second = await addEpisode(store(), a, 'Boots', {
      temporal: { start: new Date('2024-01-02T10:00:00Z'), end: new Date('2024-01-02T11:00:00Z'), utcOffsetMin: 60 },
    });
    const read = store().read.episodes;
    expect(await read.get(a, first)).toMatchObject({
      ownerId: a,
      title: 'Gornergrat',
      temporal: { utcOffsetMin: 60 },
      recallCount: 0,
      messageIds: [],
      semanticNodeIds: [],
    });
    expect((await read.getMany(a, [second, first])).map((e) => e.title)).toEqual(['Boots', 'Gornergrat']);
    expect((await read.list(a, { limit: 10 })).map((e) => e.id)).toEqual([second, first]);
    expect((await read.list(a, { limit: 10, before: { start: new Date('2024-01-02T10:00:00Z'), id: second } })).map((e) => e.id)).toEqual([
      first,
    ]);
    expect(await read.ids(a)).toEqual([first, second]);

    const later = new Date(NOW.getTime() + 60_000);
    expect(await store().transaction((r) => r.episodes.update(a, first, { title: 'Gornergrat railway', importance: 0.9 }, later))).toBe(
      true,
    );
    expect(await read.get(a, first)).toMatchObject({ title: 'Gornergrat railway', importance: 0.9, updatedAt: later });
    await store().transaction((r) => r.episodes.recordAccess(a, [first], later));
    expect(await read.get(a, first)).toMatchObject({ recallCount: 1, lastAccessed: later });
    expect(await read.counts(a)).toMatchObject({ episodes: 2, conversations: 0, messages: 0 });
  });

  it('lists a period newest first, whether it holds less than a page or more, with what began before it and ran into it', async () => {
    const [a] = owners();
    const hour = (h: number) => new Date(NOW.getTime() + h * 3_600_000);
    const span = (from: number, to: number) => ({ temporal: { start: hour(from), end: hour(to), utcOffsetMin: 0 } });
    // Two a day for ten days, one that began the day before the third and ran into it, and one written end first.
    for (let d = 0; d < 10; d++)
      for (const h of [9, 18]) await addEpisode(store(), a, `Day ${d} at ${h}`, span(d * 24 + h, d * 24 + h + 1));
    await addEpisode(store(), a, 'Overnight', span(47, 49));
    await addEpisode(store(), a, 'Reversed', span(75, 73));
    // A page as headers is the very page a list gives.
    const listed = async (o: ListOptions) => {
      const read = store().read.episodes;
      const page = (await read.list(a, o)).map((e) => e.title);
      expect((await read.listHeaders(a, o)).map((h) => h.title)).toEqual(page);
      return page;
    };
    const titles = (fromHour: number, toHour: number, limit: number) => listed({ since: hour(fromHour), until: hour(toHour), limit });

    // The third day: fewer than a page.
    expect(await titles(48, 72, 10)).toEqual(['Day 2 at 18', 'Day 2 at 9', 'Overnight']);
    // Days three to ten: more than a page, cut to it.
    expect(await titles(48, 240, 4)).toEqual(['Day 9 at 18', 'Day 9 at 9', 'Day 8 at 18', 'Day 8 at 9']);
    // From a start on, and up to an end.
    expect(await listed({ since: hour(200), limit: 10 })).toEqual(['Day 9 at 18', 'Day 9 at 9', 'Day 8 at 18', 'Day 8 at 9']);
    expect(await listed({ until: hour(20), limit: 10 })).toEqual(['Day 0 at 18', 'Day 0 at 9']);
    // One written end first is kept by its times as given: it ended after 73:00 and started before 76:00.
    expect(await titles(73, 76, 10)).toEqual(['Reversed']);
    expect(await titles(74, 76, 10)).toEqual([]);
  });

  it('rewrites an episode in place, keeping what a person did with it', async () => {
    const [a] = owners();
    const id = await addEpisode(store(), a, 'Stand-in', { processingStatus: 'needs_rebuild', builder: 'heuristic' });
    await store().transaction((r) => r.episodes.recordAccess(a, [id], NOW));
    const later = new Date(NOW.getTime() + 60_000);
    expect(await store().transaction((r) => r.episodes.rewrite(a, id, draft('Written by the model', { builder: 'llm' }), later))).toBe(
      true,
    );
    expect(await store().read.episodes.get(a, id)).toMatchObject({
      id,
      title: 'Written by the model',
      builder: 'llm',
      processingStatus: 'ready',
      recallCount: 1,
      createdAt: NOW,
      updatedAt: later,
    });
  });

  it('never shows or changes one owner’s episodes to another', async () => {
    const [a, b] = owners();
    const id = await addEpisode(store(), a, 'Private');
    const read = store().read.episodes;
    expect(await read.get(b, id)).toBeNull();
    expect(await read.getMany(b, [id])).toEqual([]);
    expect(await read.searchResults(b, [id])).toEqual([]);
    expect(await read.list(b, { limit: 10 })).toEqual([]);
    expect(await read.listHeaders(b, { limit: 10 })).toEqual([]);
    expect(await read.ids(b)).toEqual([]);
    expect(await read.counts(b)).toMatchObject({ episodes: 0 });
    const changed = await store().transaction(async (r) => [
      await r.episodes.update(b, id, { title: 'Taken over' }, NOW),
      await r.episodes.rewrite(b, id, draft('Taken over'), NOW),
      await r.episodes.delete(b, id),
    ]);
    expect(changed).toEqual([false, false, false]);
    await store().transaction((r) => r.episodes.recordAccess(b, [id], NOW));
    expect(await read.get(a, id)).toMatchObject({ title: 'Private', recallCount: 0 });
  });

  it('keeps nothing of a transaction that throws', async () => {
    const [a] = owners();
    await rolledBack(store(), (r) => r.episodes.insert(a, null, draft('Half-written'), NOW));
    const id = await addEpisode(store(), a, 'Kept');
    await rolledBack(store(), async (r) => {
      await r.episodes.update(a, id, { title: 'Changed' }, NOW);
      await r.episodes.delete(a, id);
    });
    expect((await store().read.episodes.list(a, { limit: 10 })).map((e) => e.title)).toEqual(['Kept']);
  });

  it('is written and deleted together with its BM25 entries and vector', async () => {
    const [a] = owners();
    const id = await store().transaction(async (r) => {
      const id = await r.episodes.insert(a, null, draft('Zermatt'), NOW);
      await r.bm25.add(a, [doc(id, ['zermatt', 'train'])], bm25Params);
      await r.vectors.ensureIndex(SPACE);
      await r.vectors.upsert(a, SPACE.modelId, [{ episodeId: id, vector: vec(1, 0, 0) }]);
      return id;
    });
    const read = store().read;
    expect(await read.episodes.get(a, id)).toMatchObject({ embeddingModel: SPACE.modelId });
    expect(await read.bm25.verify(a)).toEqual(CONSISTENT);
    expect(await read.bm25.docCount(a)).toBe(1);

    expect(
      await store().transaction(async (r) => {
        await r.bm25.remove(a, [id]);
        await r.vectors.remove(a, [id]);
        return r.episodes.delete(a, id);
      }),
    ).toBe(true);
    expect(await read.bm25.verify(a)).toEqual(CONSISTENT);
    expect(await read.bm25.docCount(a)).toBe(0);
    expect((await read.bm25.search(a, ['zermatt'], { limit: 5, filters: {}, params: bm25Params })).hits).toEqual([]);
    expect(await read.vectors.count(a, SPACE.modelId)).toBe(0);
  });

  it('lists the episodes of conversations with something to rebuild, for their owner only', async () => {
    const [a, b] = owners();
    const { id: conversationId } = await store().transaction((r) =>
      r.conversations.upsert(a, { source: 'test', externalId: 'c', participants: [], metadata: {}, messages: [] }, NOW),
    );
    const [x, y] = await store().transaction(async (r) => [
      await r.episodes.insert(a, conversationId, draft('Fine', { temporal: { start: NOW, end: NOW, utcOffsetMin: 0 } }), NOW),
      await r.episodes.insert(
        a,
        conversationId,
        draft('Stand-in', {
          builder: 'heuristic',
          processingStatus: 'needs_rebuild',
          temporal: { start: new Date(NOW.getTime() + 1000), end: new Date(NOW.getTime() + 1000), utcOffsetMin: 0 },
        }),
        NOW,
      ),
    ]);
    expect(await store().read.episodes.rebuildCandidates(a, 'needs_rebuild')).toEqual([
      { id: x, conversationId, status: 'ready', builder: 'manual', tier: 'active', messageCount: 0 },
      { id: y, conversationId, status: 'needs_rebuild', builder: 'heuristic', tier: 'active', messageCount: 0 },
    ]);
    expect(await store().read.episodes.rebuildCandidates(b, 'needs_rebuild')).toEqual([]);
  });

  it('finds the episodes older rules told and nobody edited, latest first: not today’s, a newer version’s, an LLM’s, an edited, open or trashed one', async () => {
    const [a, b] = owners();
    const at = (minute: number) => {
      const t = new Date(NOW.getTime() + minute * 60_000);
      return { temporal: { start: t, end: t, utcOffsetMin: 0 } };
    };
    const told = (title: string, version: string, minute: number, o = {}) =>
      addEpisode(store(), a, title, { builder: 'heuristic', processingVersion: version, ...at(minute), ...o });
    const first = await told('First', 'heuristic-1', 1);
    const later = await told('Later', 'heuristic-1', 2);
    const stray = await told('Unnumbered', 'heuristic', 3);
    await told('Today', 'heuristic-2', 4);
    await told('Newer', 'heuristic-3', 5);
    await told('Open tail', 'heuristic-1', 6, { processingStatus: 'open' });
    await addEpisode(store(), a, 'By the LLM', { builder: 'llm', processingVersion: 'llm-1', ...at(7) });
    const edited = await told('Edited', 'heuristic-1', 8);
    await store().transaction((r) => r.episodes.update(a, edited, { title: 'Mine now' }, new Date(NOW.getTime() + 3_600_000)));
    await addEpisode(store(), b, 'Someone else', { builder: 'heuristic', processingVersion: 'heuristic-1' });
    expect(await store().read.episodes.toldBefore(a, 'heuristic', 2)).toEqual([stray, later, first]);

    // Told again: its words and version change, it stays unedited, and it is not found again.
    const retold = draft('First, told again', { builder: 'heuristic', processingVersion: 'heuristic-2', keywords: ['again'] });
    const written = await store().transaction((r) =>
      r.episodes.reword(
        a,
        [
          { id: first, words: retold, version: retold.processingVersion },
          { id: edited, words: retold, version: retold.processingVersion },
        ],
        'heuristic',
      ),
    );
    expect(written).toEqual([first]);
    const [now] = await store().read.episodes.getMany(a, [first]);
    expect(now).toMatchObject({ title: 'First, told again', keywords: ['again'], processingVersion: 'heuristic-2', ...at(1) });
    expect(now!.updatedAt).toEqual(now!.createdAt);
    expect(await store().read.episodes.toldBefore(a, 'heuristic', 2)).toEqual([stray, later]);
  });
});
