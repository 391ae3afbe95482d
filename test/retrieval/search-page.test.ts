import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import type { OpInput } from '../../core/api/contract.js';
import { tokenize } from '../../core/text/tokenize.js';
import { newOwner, openMemoryEngine } from '../helpers/engine.js';

type Conversation = OpInput<'ingestConversation'>['conversation'];

/** One session a week, turns a minute apart, alternating between two people. */
function weekly(id: string, days: readonly (readonly string[])[]): Conversation {
  const t0 = Date.parse('2024-04-01T18:00:00Z');
  return {
    id,
    messages: days.flatMap((turns, d) =>
      turns.map((text, i) => ({
        id: `${id}-${d}-${i}`,
        speaker: i % 2 ? 'Ana' : 'Ben',
        text,
        timestamp: new Date(t0 + d * 7 * 86_400_000 + i * 60_000).toISOString(),
      })),
    ),
  };
}

// Two sessions say the query's words turn after turn, one word a turn. One, about something else (as its
// title and summary say), says them all in a single turn. By the episode as a whole the two rank above
// it; by what a single turn says, it answers the question.
const about = (topic: string) => [
  `The ${topic} market was busy today.`,
  'Lots of people there, a busy market.',
  `My ${topic} bicycle needs new brakes.`,
  'Old bicycles are like that.',
  'I like the blue jars they sell.',
  'We should buy some.',
];
const chat = weekly('w', [
  about('farmers'),
  about('night'),
  [
    'How was the weekend?',
    'Good, we repainted the kitchen and saw a film.',
    'Which film?',
    'A documentary about whales, quite long.',
    'Oh and I went to buy the blue bicycle at the flea market on Saturday!',
    'Nice, send me a picture of it.',
  ],
  // Sessions about other things, as most of a memory is.
  ...['tax forms', 'piano lessons', 'a cold', 'the new job'].map((t) => [`Any news about ${t}?`, `Not yet, ${t} can wait.`]),
]);

describe('a search page re-sorted by what single turns say', () => {
  let engine: Engine;
  const ownerId = newOwner();
  let answer: string;
  beforeAll(async () => {
    engine = await openMemoryEngine();
    await engine.call('ingestConversation', { ownerId, conversation: chat });
    const episodes = (await engine.call('listEpisodes', { ownerId })).episodes;
    expect(episodes).toHaveLength(7);
    for (const e of episodes) {
      if (!/market|whales/.test(e.content)) continue;
      const weekend = e.content.includes('whales');
      if (weekend) answer = e.id;
      const patch = weekend
        ? { title: 'Weekend: a new kitchen and a film about whales', summary: 'The kitchen and a film.', keywords: ['kitchen', 'film'] }
        : { title: 'Saturday chat', summary: 'A chat.', keywords: ['saturday'] };
      await engine.call('updateEpisode', { ownerId, id: e.id, patch });
    }
  });
  afterAll(async () => {
    await engine.close();
  });

  const query = 'Where did Ben buy the blue bicycle? Which market?';
  const ids = async (limit: number) => (await engine.call('search', { ownerId, query, mode: 'bm25', limit })).results.map((r) => r.id);

  it('brings a hit from below a small page onto it when one of its turns answers the query', async () => {
    // By the episodes as a whole, the answer is third.
    const byEpisode = await engine.context.store.read.bm25.search(ownerId, tokenize(query), {
      limit: 10,
      filters: {},
      params: engine.context.config.retrieval.bm25,
    });
    expect(byEpisode.hits.findIndex((h) => h.episodeId === answer)).toBe(2);
    // By its turns, it comes first: on a page of ten, and on a page of two, which alone holds none of it.
    expect((await ids(10))[0]).toBe(answer);
    const two = await ids(2);
    expect(two).toHaveLength(2);
    expect(two[0]).toBe(answer);
  });
});
