/**
 * loadContext's "Recently" with and without an opening message: with one, only episodes of the last two
 * weeks are shown for being recent (older ones must answer the query to be shown, in "Related"); without
 * one, or when nothing answers it, the latest episodes are all there is to open with, however old. An
 * opening that says nothing to look up ("hi!", "在吗？", "what did we talk about last time?") is no query: old
 * greetings are not evidence.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { newOwner, openMemoryEngine } from '../helpers/engine.js';

describe('loadContext: Recently', () => {
  let engine: Engine;
  const ownerId = newOwner('recent');
  const greeter = newOwner('recent-greetings');
  const talk = (id: string, day: string, text: string) => ({
    id,
    messages: [
      { id: `${id}-1`, speaker: 'Alice', text, timestamp: `${day}T09:00:00Z` },
      { id: `${id}-2`, speaker: 'Bob', text: 'Tell me more about it.', timestamp: `${day}T09:01:00Z` },
    ],
  });

  beforeAll(async () => {
    engine = await openMemoryEngine();
    await engine.call('ingestConversation', {
      ownerId,
      source: 'api',
      conversation: talk('old', '2024-01-02', 'I repainted the garden shed a deep green colour.'),
    });
    await engine.call('ingestConversation', {
      ownerId,
      source: 'api',
      conversation: talk('marathon', '2024-03-10', 'Training for the Berlin marathon, my left knee hurts after long runs.'),
    });
    await engine.call('ingestConversation', {
      ownerId: greeter,
      source: 'api',
      conversation: {
        id: 'hello',
        messages: [
          { id: 'h1', speaker: 'Alice', text: 'Hi Bob! Hey, how is it going?', timestamp: '2024-02-01T09:00:00Z' },
          { id: 'h2', speaker: 'Bob', text: 'Hi! Good morning, all good here, thanks!', timestamp: '2024-02-01T09:01:00Z' },
          { id: 'h3', speaker: 'Alice', text: '你好！在吗？好久不见，哈哈', timestamp: '2024-02-01T09:02:00Z' },
        ],
      },
    });
    await engine.call('ingestConversation', {
      ownerId: greeter,
      source: 'api',
      conversation: talk('kiln', '2024-05-20', 'Hi Bob, the pottery kiln at the studio finally works again.'),
    });
  });
  afterAll(async () => {
    await engine.close();
  });

  it('with a query, leaves out episodes older than two weeks that do not answer it', async () => {
    const out = await engine.call('loadContext', {
      ownerId,
      query: 'How is the knee after the marathon training?',
      now: '2024-06-01T10:00:00Z',
    });
    expect(out.sections.recent).toEqual([]);
    expect(out.markdown).not.toContain('### Recently');
    expect(JSON.stringify(out.sections.related)).toContain('Berlin marathon');
    expect(JSON.stringify(out.sections.related)).not.toContain('garden shed');
  });

  it('with a query, shows the episodes of the last two weeks', async () => {
    const out = await engine.call('loadContext', {
      ownerId,
      query: 'How is the knee after the marathon training?',
      now: '2024-01-10T10:00:00Z',
    });
    expect(out.sections.recent.map((e) => e.when.split(', ').slice(0, 2).join(', '))).toEqual(['Tuesday, 2 January 2024']);
  });

  it('as of a moment in the past, quotes nothing said after it', async () => {
    const query = 'How is the knee after the marathon training?';
    const before = await engine.call('loadContext', { ownerId, query, now: '2024-03-01T10:00:00Z' });
    expect(before.markdown).not.toContain('Berlin marathon');
    const replayed = Date.now();
    const after = await engine.call('loadContext', { ownerId, query, now: '2024-03-10T09:00:30Z' });
    expect(JSON.stringify(after.sections.related)).toContain('Berlin marathon');
    expect(JSON.stringify(after.sections.related)).not.toContain('Tell me more about it.');
    // Recalled now, though as of then: its last access does not go back to the replayed moment.
    const [quoted] = after.sections.related;
    const { episodes } = await engine.call('listEpisodes', { ownerId });
    const episode = episodes.find((e) => e.id === quoted!.id);
    expect(Date.parse(episode!.lastAccessed!)).toBeGreaterThanOrEqual(replayed);
  });

  it('with a query nothing answers ("hi" after months of silence), shows the latest episodes however old', async () => {
    const out = await engine.call('loadContext', { ownerId, query: 'hi', now: '2024-06-01T10:00:00Z' });
    expect(out.sections.related).toEqual([]);
    expect(out.sections.recent.map((e) => e.when.split(', ').slice(0, 2).join(', '))).toEqual([
      'Sunday, 10 March 2024',
      'Tuesday, 2 January 2024',
    ]);
  });

  for (const opening of [
    'hi!',
    'Good morning :)',
    "how's it going?",
    '你好',
    '在吗？',
    '¡Hola! 😊',
    // Coming back or checking in.
    "I'm back!",
    'long time no see',
    'guess what',
    '在不在？',
    '最近还好吗',
    '我回来了',
    // About the talk itself: the latest episodes answer it, not old turns that say "talk" or "last time".
    'What did we talk about last time?',
    'where did we leave off?',
    '上次我们聊了什么？',
  ]) {
    it(`takes an opening that says nothing to look up as no query, though old greetings share its words (${opening})`, async () => {
      const out = await engine.call('loadContext', { ownerId: greeter, query: opening, now: '2024-06-01T10:00:00Z' });
      expect(out.query).toBeNull();
      expect(out.sections.related).toEqual([]);
      expect(out.markdown).not.toContain('Related to');
      expect(out.sections.recent.map((e) => e.when.split(', ').slice(0, 2).join(', '))).toEqual([
        'Monday, 20 May 2024',
        'Thursday, 1 February 2024',
      ]);
    });
  }

  it('looks up what an opening asks beside its greeting', async () => {
    const out = await engine.call('loadContext', { ownerId: greeter, query: 'hi! is the kiln fixed?', now: '2024-06-01T10:00:00Z' });
    expect(out.query).toBe('hi! is the kiln fixed?');
    expect(JSON.stringify(out.sections.related)).toContain('pottery kiln');
    // Each episode of the evidence comes with its summary, as getEpisode tells it.
    const episodes = out.sections.related.flatMap((x) => (x.kind === 'episode' ? [x] : []));
    expect(episodes.length).toBeGreaterThan(0);
    for (const e of episodes) expect(e.summary).toBe((await engine.call('getEpisode', { ownerId: greeter, id: e.id })).episode.summary);
    expect(episodes[0]!.summary).toContain('kiln');
  });

  it('without a query, shows the latest episodes however old', async () => {
    const out = await engine.call('loadContext', { ownerId, now: '2024-06-01T10:00:00Z' });
    expect(out.sections.recent.map((e) => e.when.split(', ').slice(0, 2).join(', '))).toEqual([
      'Sunday, 10 March 2024',
      'Tuesday, 2 January 2024',
    ]);
  });
});
