import { describe, expect, it } from 'vitest';
import { mentionMatcher } from '../../core/forgetting/about.js';
import { newOwner } from '../helpers/engine.js';
import { DAY_MS, diary, episodeOf, sharedEngine, TestClock } from './helpers.js';
import { CONSISTENT } from '../store/helpers.js';

const entries = [
  { key: 'tom-1', text: 'Had coffee with Tom, he is moving to Lisbon in spring', day: 0 },
  { key: 'tomorrow', text: 'Tomorrow I will repaint the kitchen cabinets', day: 1 },
  { key: 'tom-2', text: "Tom's birthday dinner was at the Thai place", day: 2 },
  { key: 'zhang', text: '今天和张伟一起去爬山，风景很好', day: 3 },
  { key: 'books', text: 'Finished reading a novel about lighthouse keepers', day: 4 },
];

describe('matching "everything about X"', () => {
  it('matches the word, not a longer word that contains it; inflections and possessives count', () => {
    const tom = mentionMatcher('Tom');
    expect(tom("Tom's bike")).toBe(true);
    expect(tom('I met TOM today')).toBe(true);
    expect(tom('see you tomorrow')).toBe(false);
    expect(tom('Atom and Eve')).toBe(false);
    const run = mentionMatcher('run');
    expect(run('we were running late')).toBe(true);
    expect(run('sunday brunch')).toBe(false);
    expect(mentionMatcher('New York')('flights to new york city')).toBe(true);
    expect(mentionMatcher('New York')('a new shop in York')).toBe(false);
  });

  it('matches Chinese names inside sentences', () => {
    expect(mentionMatcher('张伟')('今天和张伟一起去爬山')).toBe(true);
    expect(mentionMatcher('张伟')('今天和李伟一起去爬山')).toBe(false);
  });

  it('refuses words too common to name anything', () => {
    expect(() => mentionMatcher('the')).toThrow(/common words/);
  });
});

describe('forget everything about X', () => {
  const clock = new TestClock('2025-01-01T09:00:00Z');
  const engine = sharedEngine(clock);

  it('removes the memories, the text of their sources, their vectors and index terms; the rest stays', async () => {
    const ownerId = newOwner('about');
    const conversation = { ...diary('chats', entries), title: 'Chats with Tom', participants: ['Lin', 'Tom'] };
    const { conversationId } = await engine().call('ingestConversation', { ownerId, conversation });
    const tom2 = await episodeOf(engine(), ownerId, 'tom-2');
    // One of them already faded to the trash: it must go too.
    await engine().call('markMemory', { ownerId, id: tom2, important: false });
    await engine().call('runForgetting', { ownerId, now: new Date(clock.now().getTime() + 200 * DAY_MS) });
    const before = await engine().context.store.read.forgetting.rowCounts(ownerId);

    const dry = await engine().call('forgetAbout', { ownerId, about: 'Tom', dryRun: true });
    expect(dry.memories.map((m) => m.tier).sort()).toEqual(['active', 'trash']);
    expect(dry).toMatchObject({ messages: 2, conversations: 1 });
    expect(await engine().context.store.read.forgetting.rowCounts(ownerId)).toEqual(before);

    const done = await engine().call('forgetAbout', { ownerId, about: 'Tom' });
    expect(done.memories.map((m) => m.id).sort()).toEqual(dry.memories.map((m) => m.id).sort());

    for (const mode of ['bm25', 'vector', 'hybrid'] as const) {
      const r = await engine().call('search', { ownerId, query: 'Tom Lisbon birthday', mode, limit: 50 });
      expect(r.results.every((x) => !/\bTom\b/.test(x.text))).toBe(true);
    }
    const left = (await engine().call('listEpisodes', { ownerId })).episodes.map((e) => e.content).join('\n');
    expect(left).toContain('I will repaint the kitchen cabinets');
    expect(left).toContain('张伟');
    expect(left).not.toMatch(/\bTom\b/);
    expect((await engine().call('listTrash', { ownerId })).items).toEqual([]);

    const rows = await engine().context.store.read.forgetting.rowCounts(ownerId);
    expect(rows.tables.episodes).toBe(entries.length - 2);
    expect(rows.tombstones).toBe(2);
    expect(Object.values(rows.orphans).every((n) => n === 0)).toBe(true);
    expect(await engine().context.store.read.bm25.verify(ownerId)).toEqual(CONSISTENT);
    // No index term of Tom is left, and the conversation no longer names him.
    const terms = await engine().call('search', { ownerId, query: 'Tom', mode: 'bm25' });
    expect(terms.results).toEqual([]);
    expect(await engine().context.store.read.conversations.get(ownerId, conversationId)).toMatchObject({
      title: null,
      participants: ['Lin'],
    });
    // Re-importing the same export does not bring him back.
    const again = await engine().call('ingestConversation', { ownerId, conversation });
    expect(again).toMatchObject({ messagesAdded: 0, episodesCreated: 0 });
  });

  it('follows the knowledge graph: an episode that calls him by another name goes too, and so does the entity', async () => {
    const ownerId = newOwner('about-graph');
    const more = [...entries, { key: 'thomas', text: 'Thomas lent me his copy of the lighthouse novel', day: 5 }];
    await engine().call('ingestConversation', { ownerId, conversation: diary('chats', more) });
    const thomas = await episodeOf(engine(), ownerId, 'thomas');
    // What the LLM episode builder records: the person, known as Thomas and as Tom.
    await engine().context.store.transaction((r) =>
      r.graph.setEpisodeGraph(
        ownerId,
        thomas,
        {
          entities: [{ name: 'Thomas', key: 'thomas', type: 'PERSON', role: 'lender', aliases: [{ alias: 'Tom', key: 'tom' }] }],
          relationships: [],
        },
        clock.now(),
      ),
    );
    const out = await engine().call('forgetAbout', { ownerId, about: 'Tom' });
    expect(out.memories.map((m) => m.id)).toContain(thomas);
    const rows = await engine().context.store.read.forgetting.rowCounts(ownerId);
    expect(rows.tables.entities).toBe(0);
    expect(rows.tables.entity_aliases).toBe(0);
    expect(Object.values(rows.orphans).every((n) => n === 0)).toBe(true);
  });

  it('works by a Chinese name', async () => {
    const ownerId = newOwner('about-zh');
    await engine().call('ingestConversation', { ownerId, conversation: diary('chats', entries) });
    const out = await engine().call('forgetAbout', { ownerId, about: '张伟' });
    expect(out.memories).toHaveLength(1);
    expect((await engine().call('search', { ownerId, query: '张伟 爬山', mode: 'bm25' })).results).toEqual([]);
    expect((await engine().call('listEpisodes', { ownerId })).episodes).toHaveLength(entries.length - 1);
  });
});
