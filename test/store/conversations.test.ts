import { describe, expect, it } from 'vitest';
import { conversation, draft, NOW, owners, rolledBack, useStore } from './helpers.js';
import type { IncomingConversation } from '../../core/domain/conversation.js';
import type { Repos } from '../../core/store/store.js';

describe('conversations and messages repository', () => {
  const store = useStore();

  /** Stores the conversation and builds one episode of all its messages, in one transaction. */
  const builtAsOneEpisode = (
    ownerId: string,
    c: IncomingConversation,
    title: string,
    after?: (r: Repos, conversationId: string) => Promise<void>,
  ) =>
    store().transaction(async (r) => {
      const { id } = await r.conversations.upsert(ownerId, c, NOW);
      await r.conversations.addMessages(ownerId, id, c);
      const messageIds = (await r.conversations.pendingMessages(ownerId, id)).map((m) => m.id);
      const episodeId = await r.episodes.insert(ownerId, id, draft(title), NOW);
      await r.conversations.linkToEpisode(ownerId, messageIds, episodeId);
      await after?.(r, id);
      return { conversationId: id, messageIds, episodeId };
    });

  it('stores a conversation once and its messages once, however often they arrive', async () => {
    const [a] = owners();
    const c = conversation('chat-1', ['first', 'second']);
    const first = await store().transaction(async (r) => {
      const up = await r.conversations.upsert(a, c, NOW);
      return { ...up, added: await r.conversations.addMessages(a, up.id, c) };
    });
    expect(first).toMatchObject({ created: true, added: 2 });
    const again = await store().transaction(async (r) => {
      const up = await r.conversations.upsert(a, { ...conversation('chat-1', ['first', 'second', 'third']), participants: ['Tom'] }, NOW);
      return { ...up, added: await r.conversations.addMessages(a, up.id, conversation('chat-1', ['first', 'second', 'third'])) };
    });
    expect(again).toEqual({ id: first.id, created: false, added: 1 });
    const read = store().read.conversations;
    expect(await read.get(a, first.id)).toMatchObject({ source: 'test', externalId: 'chat-1', processed: false });
    expect((await read.get(a, first.id))!.participants.sort()).toEqual(['Lin', 'Tom']);
    expect((await read.pendingMessages(a, first.id)).map((m) => m.text)).toEqual(['first', 'second', 'third']);
    expect(await read.withPendingMessages(a)).toEqual([first.id]);
    expect(await read.dataType(a, first.id)).toBe('conversation');
  });

  it('links messages to an episode, and releases them to be built again', async () => {
    const [a] = owners();
    const c = conversation('chat', ['one', 'two']);
    const { conversationId, episodeId } = await builtAsOneEpisode(a, c, 'One and two', (r, id) =>
      r.conversations.markProcessed(a, id, 'v1'),
    );
    const read = store().read.conversations;
    expect(await read.pendingMessages(a, conversationId)).toEqual([]);
    expect((await read.messagesOfEpisodes(a, [episodeId])).map((m) => m.text)).toEqual(['one', 'two']);
    expect(await read.get(a, conversationId)).toMatchObject({ processed: true });

    await store().transaction((r) => r.conversations.releaseMessages(a, episodeId));
    expect(await read.messagesOfEpisodes(a, [episodeId])).toEqual([]);
    expect((await read.pendingMessages(a, conversationId)).map((m) => m.text)).toEqual(['one', 'two']);
  });

  it('reads an episode’s messages whole and in order: every field, attachments and times to the millisecond', async () => {
    const [a] = owners();
    const c = conversation('whole', ['later', 'earlier', 'same time'], {});
    const [later, earlier, same] = c.messages as [(typeof c.messages)[0], (typeof c.messages)[0], (typeof c.messages)[0]];
    Object.assign(later, { externalId: 'm-9', role: 'assistant', sentAt: new Date('2024-05-01T10:00:00.789Z'), utcOffsetMin: -300 });
    Object.assign(earlier, {
      attachments: [{ kind: 'image', name: 'pot.jpg', caption: 'a blue pot' }],
      sentAt: new Date('2024-05-01T09:00:00.001Z'),
    });
    Object.assign(same, { speaker: 'Mo', sentAt: new Date('2024-05-01T10:00:00.789Z'), utcOffsetMin: 330 });
    const { episodeId } = await builtAsOneEpisode(a, c, 'Pots');
    const read = store().read.conversations;
    const got = await read.messagesOfEpisodes(a, [episodeId]);
    expect(got.map((m) => m.text)).toEqual(['earlier', 'later', 'same time']);
    expect(got[0]).toMatchObject({ externalId: null, attachments: [{ kind: 'image', name: 'pot.jpg', caption: 'a blue pot' }], episodeId });
    expect(got[1]).toMatchObject({ externalId: 'm-9', role: 'assistant', utcOffsetMin: -300 });
    expect(got[1]!.sentAt).toEqual(new Date('2024-05-01T10:00:00.789Z'));
    expect(got[2]).toMatchObject({ speaker: 'Mo', utcOffsetMin: 330 });
    // The same messages as read row by row.
    expect(got).toEqual(
      await read.messagesByIds(
        a,
        got.map((m) => m.id),
      ),
    );
  });

  it('never shows or changes one owner’s conversations to another', async () => {
    const [a, b] = owners();
    const c = conversation('shared-external-id', ['mine']);
    const { conversationId, messageIds, episodeId } = await builtAsOneEpisode(a, c, 'Mine');
    const read = store().read.conversations;
    expect(await read.get(b, conversationId)).toBeNull();
    expect(await read.withPendingMessages(b)).toEqual([]);
    expect(await read.messagesOfEpisodes(b, [episodeId])).toEqual([]);
    expect(await read.messagesByIds(b, messageIds)).toEqual([]);
    // The same export imported by another owner is that owner's own conversation.
    const theirs = await store().transaction((r) => r.conversations.upsert(b, c, NOW));
    expect(theirs.created).toBe(true);
    expect(theirs.id).not.toBe(conversationId);
    await store().transaction(async (r) => {
      await r.conversations.releaseMessages(b, episodeId);
      await r.conversations.linkToEpisode(b, messageIds, episodeId);
      await r.conversations.markProcessed(b, conversationId, 'other');
    });
    expect((await read.messagesOfEpisodes(a, [episodeId])).map((m) => m.id)).toEqual(messageIds);
  });

  it('puts messages only in the owner’s own conversations, and links them only to the owner’s own episodes', async () => {
    const [a, b] = owners();
    const c = conversation('chat', ['one', 'two']);
    const { conversationId, messageIds } = await store().transaction(async (r) => {
      const { id } = await r.conversations.upsert(a, c, NOW);
      await r.conversations.addMessages(a, id, c);
      return { conversationId: id, messageIds: (await r.conversations.pendingMessages(a, id)).map((m) => m.id) };
    });
    // Another owner's conversation, or one that is not stored, takes no message.
    await expect(
      store().transaction((r) => r.conversations.addMessages(b, conversationId, conversation('chat', ['theirs']))),
    ).rejects.toThrow(/not stored/);
    await expect(store().transaction((r) => r.conversations.addMessages(a, '00000000-0000-4000-8000-000000000000', c))).rejects.toThrow(
      /not stored/,
    );
    expect(await store().read.conversations.withPendingMessages(b)).toEqual([]);
    // Another owner's episode does not take the messages: they stay pending, to be built again.
    const theirs = await store().transaction(async (r) => {
      const { id } = await r.conversations.upsert(b, conversation('theirs', ['x']), NOW);
      return r.episodes.insert(b, id, draft('Theirs'), NOW);
    });
    await store().transaction((r) => r.conversations.linkToEpisode(a, messageIds, theirs));
    expect((await store().read.conversations.pendingMessages(a, conversationId)).map((m) => m.id)).toEqual(messageIds);
    expect(await store().read.conversations.messagesOfEpisodes(b, [theirs])).toEqual([]);
  });

  it('keeps nothing of a transaction that throws', async () => {
    const [a] = owners();
    const c = conversation('chat', ['lost']);
    await rolledBack(store(), async (r) => {
      const { id } = await r.conversations.upsert(a, c, NOW);
      await r.conversations.addMessages(a, id, c);
    });
    expect(await store().read.conversations.withPendingMessages(a)).toEqual([]);
    expect(await store().read.episodes.counts(a)).toMatchObject({ conversations: 0, messages: 0 });
  });
});
