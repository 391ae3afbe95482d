import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import type { OpInput } from '../../core/api/contract.js';
import { packEvidence } from '../../core/retrieval/pack.js';
import { countWords, excerpt } from '../../core/text/quote.js';
import { tokenize } from '../../core/text/tokenize.js';
import { newOwner, openMemoryEngine } from '../helpers/engine.js';

type Conversation = OpInput<'ingestConversation'>['conversation'];

/** Sessions of alternating turns, one session per day starting at `day`, turns a minute apart. */
function sessions(id: string, days: readonly (readonly [string, string][])[], day = '2023-05-08'): Conversation {
  const t0 = Date.parse(`${day}T18:00:00Z`);
  return {
    id,
    messages: days.flatMap((turns, d) =>
      turns.map(([speaker, text], i) => ({
        id: `${id}-${d}-${i}`,
        speaker,
        text,
        timestamp: new Date(t0 + d * 7 * 86_400_000 + i * 60_000).toISOString(),
      })),
    ),
  };
}

const chat = sessions('c', [
  [
    ['Caroline', 'Hey Mel! I went to the LGBTQ support group yesterday, it was so powerful.'],
    ['Melanie', 'That is amazing, Caroline! Anything you are excited about in the adoption process?'],
    ['Caroline', 'Making a family for kids who need one. It will be tough as a single parent.'],
    ['Melanie', 'You will be an awesome mom. Good luck!'],
  ],
  [
    ['Melanie', 'We went camping at the lake with the kids last weekend.'],
    ['Caroline', 'Sounds lovely! Did you roast marshmallows?'],
    ['Melanie', 'Yes, and we watched the Perseid meteor shower. It felt like we were tiny in the universe.'],
    ['Caroline', 'Beautiful. Nature puts things in perspective.'],
  ],
  [
    ['Caroline', 'I painted a sunrise for the art show next month.'],
    ['Melanie', 'Wow! What inspired the painting?'],
    ['Caroline', 'A visit to the LGBTQ center: I wanted to capture everyone’s unity and strength.'],
    ['Melanie', 'It really shows. The colours are so vivid.'],
  ],
]);

describe('packing evidence for a query', () => {
  let engine: Engine;
  const ownerId = newOwner();
  beforeAll(async () => {
    engine = await openMemoryEngine();
    await engine.call('ingestConversation', { ownerId, conversation: chat });
  });
  afterAll(async () => {
    await engine.close();
  });

  it('stays within the word budget, whatever the budget', async () => {
    for (const budget of [12, 25, 40, 80, 150, 1000]) {
      const p = await packEvidence(engine.context, { ownerId, query: 'What inspired Caroline’s painting for the art show?', budget });
      expect(p.words).toBeLessThanOrEqual(budget);
      expect(countWords(p.text)).toBe(p.words);
      expect(p.blocks.length).toBeGreaterThan(0);
      expect(p.coveredMessageIds).toEqual(p.blocks.flatMap((b) => b.messages.map((m) => m.id)));
    }
  });

  it('gives each block its episode header once — title and absolute date — and its messages in the order they were sent', async () => {
    const p = await packEvidence(engine.context, { ownerId, query: 'camping meteor shower lake', budget: 1000 });
    for (const b of p.blocks) {
      expect(b.text.split('\n')[0]).toBe(b.header);
      expect(b.header).toMatch(/^\[(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} [A-Z][a-z]{2} \d{4}\] \S/);
      expect(p.text.split(b.header)).toHaveLength(2);
      const times = b.messages.map((m) => m.sentAt.getTime());
      expect(times).toEqual([...times].sort((x, y) => x - y));
    }
    expect(p.blocks[0]!.header).toContain('Mon 15 May 2023');
  });

  it('packs the best message first and brings the answer to a matching question along', async () => {
    const p = await packEvidence(engine.context, {
      ownerId,
      query: 'What is Caroline excited about in the adoption process?',
      budget: 60,
    });
    const lines = p.text.split('\n');
    expect(lines.some((l) => l.includes('adoption process'))).toBe(true);
    // The question's words are in Melanie's turn; the answer is Caroline's next one.
    expect(p.text).toContain('Making a family for kids who need one');
    const answer = p.blocks.flatMap((b) => b.messages).find((m) => m.text.startsWith('Making a family'))!;
    expect(answer.externalId).toBe('c-0-2');
  });

  it('spreads a small budget across the days the query is about instead of filling it with one', async () => {
    const p = await packEvidence(engine.context, {
      ownerId,
      query: 'What did Caroline and Melanie do about the LGBTQ center and camping at the lake?',
      budget: 90,
    });
    const days = new Set(p.blocks.map((b) => b.start.toISOString().slice(0, 10)));
    expect(days.size).toBeGreaterThan(1);
  });

  it('cuts the first message rather than answer nothing when even it does not fit', async () => {
    const p = await packEvidence(engine.context, { ownerId, query: 'Perseid meteor shower universe', budget: 12 });
    expect(p.words).toBeLessThanOrEqual(12);
    expect(p.text).toMatch(/…$/);
    expect(p.coveredMessageIds).toHaveLength(1);
  });

  it('ranks what was said around a date the query names first', async () => {
    const p = await packEvidence(engine.context, {
      ownerId,
      query: 'What did Caroline and Melanie talk about on 22 May, 2023?',
      budget: 40,
    });
    expect(p.blocks[0]!.start.toISOString().slice(0, 10)).toBe('2023-05-22');
  });

  it('counts a CJK character as a word, so a Chinese budget holds', async () => {
    const zh = newOwner();
    await engine.call('ingestConversation', {
      ownerId: zh,
      conversation: sessions('z', [
        [
          ['小林', '周六我们去杭州西湖骑自行车吧，天气预报说是晴天。'],
          ['我', '好啊！顺便去龙井村买点明前龙井，给我妈带回去。'],
          ['小林', '那早上八点在断桥见，我订好了两辆车。'],
        ],
      ]),
    });
    const p = await packEvidence(engine.context, { ownerId: zh, query: '龙井', budget: 40 });
    expect(p.text).toContain('龙井');
    expect(countWords(p.text)).toBeLessThanOrEqual(40);
    expect(countWords('明前龙井 tea')).toBe(5);
  });

  it('says when it happened relative to now, when asked to', async () => {
    const p = await packEvidence(engine.context, { ownerId, query: 'camping', budget: 200, now: new Date('2023-06-15T00:00:00Z') });
    expect(p.blocks[0]!.header).toMatch(/, (\d+ weeks|\d+ days|\d+ months) ago\] /);
  });

  it('quotes a long answer by its sentences that hold the query’s words, so it fits beside the rest', async () => {
    const own = newOwner('long');
    const filler = 'Morning at the temple, then lunch at a small noodle shop and an afternoon walk along the river. ';
    const answer = `${filler.repeat(8)}Jun is vegetarian: book Shigetsu inside Tenryu-ji for Buddhist cuisine. ${filler.repeat(8)}`;
    await engine.call('ingestConversation', {
      ownerId: own,
      conversation: sessions('kyoto', [
        [
          ['User', 'Plan five days in Kyoto for me and Jun, please.'],
          ['ChatGPT', answer],
        ],
      ]),
    });
    const p = await packEvidence(engine.context, { ownerId: own, query: 'vegetarian restaurant for Jun', budget: 150 });
    const quoted = p.blocks.flatMap((b) => b.messages).find((m) => m.speaker === 'ChatGPT')!;
    expect(countWords(answer)).toBeGreaterThan(250);
    expect(quoted.text).toContain('Jun is vegetarian: book Shigetsu inside Tenryu-ji for Buddhist cuisine.');
    expect(quoted.text).toMatch(/^… .* …$/);
    expect(countWords(quoted.text)).toBeLessThanOrEqual(engine.context.config.retrieval.pack.quoteWords);
    expect(countWords(p.text)).toBeLessThanOrEqual(150);
  });
});

describe('quoting a long text', () => {
  const terms = (q: string) => tokenize(q);
  const text =
    'We flew in on Monday. The hotel was near the station. My passport was stolen at the market on Tuesday. ' +
    'The police wrote a report in Spanish. The consulate gave me a new passport on Friday. We flew home on Sunday.';

  it('keeps the sentences that hold the words, then those after them, in the text’s order, marking what is left out', () => {
    expect(excerpt(text, terms('stolen passport'), 20)).toBe(
      '… My passport was stolen at the market on Tuesday. The police wrote a report in Spanish. …',
    );
    expect(excerpt(text, terms('stolen passport'), 30)).toBe(
      '… My passport was stolen at the market on Tuesday. The police wrote a report in Spanish. The consulate gave me a new passport on Friday. …',
    );
  });

  it('returns a short text whole, the opening when nothing matches, and code as it was written', () => {
    expect(excerpt('Short and sweet.', terms('passport'), 20)).toBe('Short and sweet.');
    expect(excerpt(text, terms('giraffe'), 12)).toBe('We flew in on Monday. The hotel was near the station. …');
    const code = 'Intro words here. ```js\nconst xs = [...items].sort(byDate);\n``` More words after the code block follow here.';
    expect(excerpt(code, terms('sort byDate'), 12)).toContain('const xs = [...items].sort(byDate);');
  });
});
