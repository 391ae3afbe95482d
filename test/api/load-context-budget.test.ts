/**
 * loadContext's "Related" evidence is packed in tokens, line by line as it is shown: it fills the room
 * the budget leaves instead of packing to a words-to-tokens guess, and never goes over it — in English
 * (about 1.16 tokens a word here) as in Chinese (a token a character).
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
