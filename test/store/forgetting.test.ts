import { describe, expect, it } from 'vitest';
import type { ForgettingReason } from '../../core/domain/forgetting-reason.js';
import type { Store } from '../../core/store/store.js';
import { bm25Params, CONSISTENT, conversation, doc, draft, NOW, owners, rolledBack, SPACE, useStore, vec } from './helpers.js';

const emptied: ForgettingReason = { kind: 'emptied' };
const minutes = (n: number) => new Date(NOW.getTime() + n * 60_000);

/** A conversation about Tom, built into one episode with its BM25 entries and vector: what an import leaves. */
async function remembered(store: Store, ownerId: string, title = 'Chess with Tom') {
  const c = conversation(`chat-${title}`, ['Tom won at chess', 'again'], { title: 'Evenings with Tom', participants: ['Lin', 'Tom'] });
  return store.transaction(async (r) => {
    const { id: conversationId } = await r.conversations.upsert(ownerId, c, NOW);
    await r.conversations.addMessages(ownerId, conversationId, c);
    const messages = await r.conversations.pendingMessages(ownerId, conversationId);
    const episodeId = await r.episodes.insert(ownerId, conversationId, draft(title, { content: 'Tom won at chess, again' }), NOW);
    await r.conversations.linkToEpisode(
      ownerId,
      messages.map((m) => m.id),
      episodeId,
    );
    await r.bm25.add(ownerId, [doc(episodeId, ['tom', 'chess'])], bm25Params);
    await r.vectors.ensureIndex(SPACE);
    await r.vectors.upsert(ownerId, SPACE.modelId, [{ episodeId, vector: vec(1, 0, 0) }]);
    return { conversationId, episodeId, messageIds: messages.map((m) => m.id) };
  });
}

/** Trashes episodes the way the forgetting pass does: out of every index, in one transaction. */
const trash = (store: Store, ownerId: string, ids: string[], at = NOW) =>
  store.transaction(async (r) => {
    await r.bm25.park(ownerId, ids, at);
    await r.vectors.remove(ownerId, ids);
    await r.forgetting.setEpisodeTier(
      ownerId,
      'trash',
      ids.map((id) => ({ id, reason: emptied })),
      at,
    );
  });

const noOrphans = {
  messageTextWithoutEpisode: 0,
  postingsWithoutDoc: 0,
  termsWithoutPostings: 0,
  trashInIndex: 0,
  vectorsNotActive: 0,
  parkedNotTrash: 0,
  indexRowsWithoutEpisode: 0,
  entitiesWithoutEpisode: 0,
};

describe('episode forgetting repository', () => {
  const store = useStore();

  it('moves episodes between tiers with their reasons, and lists the trash newest move first', async () => {
    const [a] = owners();
    const { episodeId: first } = await remembered(store(), a, 'First');
    const { episodeId: second } = await remembered(store(), a, 'Second');
    await trash(store(), a, [first], minutes(1));
    await trash(store(), a, [second], minutes(2));
    const read = store().read.forgetting;
    expect(await read.tierCounts(a)).toEqual({ active: 0, archived: 0, trash: 2 });
    expect((await read.listEpisodesInTier(a, 'trash', { limit: 10 })).map((x) => [x.id, x.tierReason])).toEqual([
      [second, emptied],
      [first, emptied],
    ]);
    expect((await read.listEpisodesInTier(a, 'trash', { limit: 10, before: { at: minutes(2), id: second } })).map((x) => x.id)).toEqual([
      first,
    ]);
    expect(await read.episodeDecayRows(a, [first])).toEqual([
      expect.objectContaining({ id: first, tier: 'trash', tierChangedAt: minutes(1), updatedAt: minutes(1) }),
    ]);
    expect(await read.episodeTitles(a, [first, second])).toEqual(
      new Map([
        [first, 'First'],
        [second, 'Second'],
      ]),
    );
    const rows = await read.rowCounts(a);
    expect(rows.orphans).toEqual(noOrphans);
    expect(rows.tables).toMatchObject({ bm25_docs: 0, bm25_postings: 0, bm25_parked: 2, episode_embeddings: 0 });
    expect(await store().read.bm25.verify(a)).toEqual(CONSISTENT);
  });

  it('writes dynamic importance over a kept base, and the person’s mark', async () => {
    const [a] = owners();
    const { episodeId } = await remembered(store(), a);
    await store().transaction((r) => r.forgetting.setEpisodeImportance(a, [{ id: episodeId, importance: 0.2 }]));
    expect(await store().read.forgetting.episodeDecayRows(a, [episodeId])).toEqual([
      expect.objectContaining({ importance: expect.closeTo(0.2, 5), baseImportance: 0.5, updatedAt: NOW }),
    ]);
    expect(await store().transaction((r) => r.forgetting.markEpisode(a, episodeId, true, 0.9, minutes(1)))).toBe(true);
    expect(await store().read.forgetting.episodeDecayRows(a, [episodeId])).toEqual([
      expect.objectContaining({ marked: true, importance: expect.closeTo(0.9, 5), baseImportance: 0.5, updatedAt: minutes(1) }),
    ]);
  });

  it('purges episodes for good, leaving tombstoned messages and no index rows behind', async () => {
    const [a] = owners();
    const { episodeId, messageIds } = await remembered(store(), a);
    await trash(store(), a, [episodeId]);
    const purged = await store().transaction(async (r) => {
      await r.bm25.remove(a, [episodeId]);
      await r.vectors.remove(a, [episodeId]);
      return r.forgetting.purgeEpisodes(a, [episodeId], true);
    });
    expect(purged).toEqual([episodeId]);
    const rows = await store().read.forgetting.rowCounts(a);
    expect(rows.orphans).toEqual(noOrphans);
    expect(rows).toMatchObject({
      tables: { episodes: 0, messages: 2, bm25_parked: 0, bm25_docs: 0, episode_embeddings: 0 },
      tombstones: 2,
      bm25StatsDocs: 0,
    });
    expect(await store().read.conversations.messagesByIds(a, messageIds)).toEqual([
      expect.objectContaining({ text: '', speaker: '', episodeId: null }),
      expect.objectContaining({ text: '' }),
    ]);
  });

  it('finds what mentions X, and redacts it', async () => {
    const [a] = owners();
    const { conversationId, episodeId, messageIds } = await remembered(store(), a);
    const read = store().read.forgetting;
    expect((await read.episodesContaining(a, 'tom')).map((e) => e.id)).toEqual([episodeId]);
    expect((await read.messagesContaining(a, 'TOM')).map((m) => m.id)).toEqual([messageIds[0]]);
    expect(await read.messageCountOfEpisodes(a, [episodeId])).toBe(2);
    expect(await read.conversationsContaining(a, 'tom')).toEqual([
      { id: conversationId, title: 'Evenings with Tom', participants: ['Lin', 'Tom'] },
    ]);
    expect(await read.episodesContaining(a, '100%')).toEqual([]);
    await store().transaction(async (r) => {
      expect(await r.forgetting.redactMessages(a, { messageIds: [messageIds[0]!] })).toBe(1);
      await r.forgetting.redactConversation(a, conversationId, null, ['Lin']);
    });
    expect(await read.messagesContaining(a, 'tom')).toEqual([]);
    expect(await read.conversationsContaining(a, 'tom')).toEqual([]);
  });

  it('logs forgetting passes', async () => {
    const [a] = owners();
    expect(await store().read.forgetting.lastRun(a)).toBeNull();
    await store().transaction(async (r) => {
      await r.forgetting.recordRun(a, NOW, { moved: 0 });
      await r.forgetting.recordRun(a, minutes(5), { moved: 1 });
    });
    expect(await store().read.forgetting.lastRun(a)).toEqual(minutes(5));
    expect((await store().read.forgetting.rowCounts(a)).tables.forgetting_runs).toBe(2);
  });

  it('never shows or changes one owner’s memories to another', async () => {
    const [a, b] = owners();
    const { conversationId, episodeId, messageIds } = await remembered(store(), a);
    const before = await store().read.forgetting.rowCounts(a);
    const read = store().read.forgetting;
    expect(await read.episodeDecayRows(b)).toEqual([]);
    expect(await read.episodeTitles(b, [episodeId])).toEqual(new Map());
    expect(await read.tierCounts(b)).toEqual({ active: 0, archived: 0, trash: 0 });
    expect(await read.episodesContaining(b, 'tom')).toEqual([]);
    expect(await read.messagesContaining(b, 'tom')).toEqual([]);
    expect(await read.conversationsContaining(b, 'tom')).toEqual([]);
    expect(await read.messageCountOfEpisodes(b, [episodeId])).toBe(0);
    await store().transaction(async (r) => {
      await r.forgetting.setEpisodeTier(b, 'trash', [{ id: episodeId, reason: emptied }], NOW);
      await r.forgetting.setEpisodeImportance(b, [{ id: episodeId, importance: 0 }]);
      expect(await r.forgetting.markEpisode(b, episodeId, true, 1, NOW)).toBe(false);
      expect(await r.forgetting.redactMessages(b, { episodeIds: [episodeId], messageIds })).toBe(0);
      await r.forgetting.redactConversation(b, conversationId, null, []);
      expect(await r.forgetting.purgeEpisodes(b, [episodeId], true)).toEqual([]);
    });
    expect(await store().read.forgetting.rowCounts(a)).toEqual(before);
    expect(await read.episodeDecayRows(a, [episodeId])).toEqual([
      expect.objectContaining({ tier: 'active', importance: 0.5, marked: null }),
    ]);
    expect((await read.messagesContaining(a, 'tom')).map((m) => m.id)).toEqual([messageIds[0]]);
  });

  it('keeps nothing of a transaction that throws', async () => {
    const [a] = owners();
    const { episodeId } = await remembered(store(), a);
    const before = await store().read.forgetting.rowCounts(a);
    await rolledBack(store(), async (r) => {
      await r.bm25.park(a, [episodeId], NOW);
      await r.vectors.remove(a, [episodeId]);
      await r.forgetting.setEpisodeTier(a, 'trash', [{ id: episodeId, reason: emptied }], NOW);
      await r.forgetting.purgeEpisodes(a, [episodeId], true);
      await r.forgetting.recordRun(a, NOW, {});
    });
    expect(await store().read.forgetting.rowCounts(a)).toEqual(before);
    expect(await store().read.bm25.verify(a)).toEqual(CONSISTENT);
  });
});
