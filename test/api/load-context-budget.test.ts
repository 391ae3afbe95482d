/**
 * loadContext's "Related" evidence is packed in tokens, line by line as it is shown: it fills the room
 * the budget leaves instead of packing to a words-to-tokens guess, and never goes over it — in English
 * (about 1.16 tokens a word here) as in Chinese (a token a character). With a query, the person's
 * general facts keep to their share and leave the rest to the evidence.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { estimateTokens } from '../../core/text/fact-text.js';
import { newOwner, openMemoryEngine } from '../helpers/engine.js';

/** One talk a day for `days` days, every message about the same thing, so more matches than fits. */
function talks(id: string, days: number, say: (day: number, turn: number) => string) {
  const t0 = Date.parse('2024-03-01T09:00:00Z');
  return {
    id,
    messages: Array.from({ length: days * 4 }, (_, n) => {
      const day = Math.floor(n / 4);
      return {
        id: `${id}-${n}`,
        speaker: n % 2 ? 'Bob' : 'Alice',
        text: say(day, n % 4),
        timestamp: new Date(t0 + day * 86_400_000 + (n % 4) * 60_000).toISOString(),
      };
    }),
  };
}

describe('loadContext: Related within the token budget', () => {
  let engine: Engine;
  const en = newOwner('budget-en');
  const zh = newOwner('budget-zh');
  const now = '2024-06-01T10:00:00Z';

  beforeAll(async () => {
    engine = await openMemoryEngine();
    await engine.call('ingestConversation', {
      ownerId: en,
      source: 'api',
      conversation: talks(
        'garden',
        30,
        (d, t) => `On day ${d} the garden tomatoes ${t % 2 ? 'needed water' : 'grew taller'} near the old fence.`,
      ),
    });
    await engine.call('ingestConversation', {
      ownerId: zh,
      source: 'api',
      conversation: talks('tea', 30, (d, t) => `第${d}天我们在杭州喝龙井茶${t % 2 ? '聊到深夜' : '看西湖'}。`),
    });
  });
  afterAll(async () => {
    await engine.close();
  });

  for (const [label, owner, query] of [
    ['English', en, 'How are the garden tomatoes?'],
    ['Chinese', zh, '龙井茶'],
  ] as const) {
    it(`fills the room with evidence and stays within it (${label})`, async () => {
      for (const budgetTokens of [200, 600]) {
        const out = await engine.call('loadContext', { ownerId: owner, query, now, budgetTokens });
        const lines = out.markdown.split('\n');
        expect(out.tokens).toBe(lines.reduce((n, l) => n + estimateTokens(l), 0));
        expect(out.tokens).toBeLessThanOrEqual(budgetTokens);
        // Short of the budget by less than one more message line would cost.
        const longest = Math.max(...lines.filter((l) => l.startsWith('  ')).map(estimateTokens));
        expect(out.tokens).toBeGreaterThan(budgetTokens - longest);
      }
    });
  }
});

describe('loadContext: what is known about the person beside what answers the query', () => {
  let engine: Engine;
  const owner = newOwner('budget-facts');
  const now = '2024-06-01T10:00:00Z';
  const budgetTokens = 800;

  beforeAll(async () => {
    engine = await openMemoryEngine();
    await engine.call('ingestConversation', {
      ownerId: owner,
      source: 'api',
      conversation: talks('garden', 30, (d, t) => `On day ${d} the tomatoes ${t % 2 ? 'needed water' : 'grew taller'}.`),
    });
    // Facts with nothing to do with the garden, each line longer than a message line: none fits in
    // what the evidence leaves over.
    for (let i = 0; i < 30; i++)
      await engine.call('memorize', {
        ownerId: owner,
        key: `person:alice hobby ${i}`,
        value: `Alice has practised hobby number ${i} every weekend for years, with friends from her old neighbourhood choir.`,
        metadata: { importance: 0.9 },
      });
  });
  afterAll(async () => {
    await engine.close();
  });

  const aboutTokens = (out: { sections: { about: { text: string } } }) =>
    estimateTokens('### What I know about you') + out.sections.about.text.split('\n').reduce((n, l) => n + estimateTokens(l), 0);

  it('with a query, gives the most important facts at most an eighth of the budget and the evidence the rest', async () => {
    const out = await engine.call('loadContext', { ownerId: owner, query: 'How are the tomatoes?', now, budgetTokens });
    const available = budgetTokens - estimateTokens(out.markdown.split('\n')[0]!);
    expect(out.sections.about.keys.length).toBeGreaterThan(0);
    expect(aboutTokens(out)).toBeLessThanOrEqual(Math.floor(available / 8));
    const evidence = out.sections.related.filter((r) => r.kind === 'episode');
    expect(evidence.length).toBeGreaterThan(0);
    expect(out.tokens).toBeGreaterThan(budgetTokens - 40);
  });

  it('without one, gives them half of it', async () => {
    const out = await engine.call('loadContext', { ownerId: owner, now, budgetTokens });
    const available = budgetTokens - estimateTokens(out.markdown.split('\n')[0]!);
    expect(aboutTokens(out)).toBeGreaterThan(available / 4);
    expect(aboutTokens(out)).toBeLessThanOrEqual(available);
  });
});
