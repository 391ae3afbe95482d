/**
 * loadContext reads the days an opening names relative to when it is asked ("last month", "上个月"):
 * what was said then comes first among the related memories, ahead of other talks that match its
 * words as well.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { ingestExchange, newOwner, openMemoryEngine } from '../helpers/engine.js';

describe('loadContext: periods named relative to now', () => {
  let engine: Engine;
  const ownerId = newOwner('when');
  const talk = (id: string, at: string, text: string) => ingestExchange(engine, ownerId, { id, at, text });

  beforeAll(async () => {
    engine = await openMemoryEngine();
    for (const [i, friend] of ['Mei', 'Ana', 'Bo', 'Kai', 'Rui', 'Yan'].entries())
      await talk(friend, `2024-01-${10 + 2 * i}T12:00:00+08:00`, `Lunch with ${friend} at the noodle place.`);
    await talk('Jun', '2024-03-15T12:00:00+08:00', 'Lunch with Jun today, he is moving to Hangzhou.');
  });
  afterAll(async () => {
    await engine.close();
  });

  const related = async (query: string, now: string) => {
    const out = await engine.call('loadContext', { ownerId, query, now, budgetTokens: 150 });
    return out.sections.related.flatMap((x) => (x.kind === 'episode' ? [x.messages[0]!.text] : []));
  };

  it('puts first what was said in the period an opening names relative to now (English and Chinese)', async () => {
    // Asked on 20 April, "last month" is March.
    for (const query of ['Who did I have lunch with last month?', '上个月我和谁一起吃的 lunch？'])
      expect((await related(query, '2024-04-20T09:00:00+08:00'))[0]).toContain('Jun');
    // Without a period, or asked in February ("last month" is January), the January lunches come first.
    expect((await related('Who did I have lunch with?', '2024-04-20T09:00:00+08:00'))[0]).not.toContain('Jun');
    const february = await related('Who did I have lunch with last month?', '2024-02-20T09:00:00+08:00');
    expect(february.length).toBeGreaterThan(0);
    expect(february.join(' ')).not.toContain('Jun');
  });

  it('answers an opening that asks only about a period with that period’s episodes, latest first', async () => {
    const asked = (query: string) => engine.call('loadContext', { ownerId, query, now: '2024-04-20T09:00:00+08:00', budgetTokens: 400 });
    for (const query of ['What did we talk about last month?', '上个月我们聊了什么？']) {
      const out = await asked(query);
      expect(out.query).toBeNull();
      expect(out.sections.related).toEqual([]);
      expect(out.sections.recent.map((e) => e.start)).toEqual(['2024-03-15T04:00:00.000Z']);
      expect(out.markdown).toContain(`### ${query.startsWith('上') ? '上个月' : 'Last month'} (2024-03-01 to 2024-03-31)`);
    }
    const january = await asked('What did we talk about in January 2024?');
    expect(january.sections.recent.map((e) => e.start.slice(0, 10))).toEqual([
      '2024-01-20',
      '2024-01-18',
      '2024-01-16',
      '2024-01-14',
      '2024-01-12',
      '2024-01-10',
    ]);
    expect(january.markdown).toContain('### January 2024 (2024-01-01 to 2024-01-31)');
    // Asked at 11:00 on the day of the 12:00 lunch: "this week" holds nothing yet.
    const early = await engine.call('loadContext', {
      ownerId,
      query: 'what did we talk about this week?',
      now: '2024-03-15T11:00:00+08:00',
    });
    expect(early.sections.recent).toEqual([]);
    expect(early.markdown).toContain('Nothing was said from 2024-03-11 to 2024-03-17.');
    const quiet = await asked('what did we talk about last week?');
    expect(quiet.sections.recent).toEqual([]);
    expect(quiet.markdown).toContain('Nothing was said from 2024-04-08 to 2024-04-14.');
  });
});
