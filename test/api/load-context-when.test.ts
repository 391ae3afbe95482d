/**
 * loadContext reads the days an opening names relative to when it is asked ("last month", "上个月"):
 * what was said then comes first among the related memories, ahead of other talks that match its
 * words as well.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { newOwner, openMemoryEngine } from '../helpers/engine.js';

describe('loadContext: periods named relative to now', () => {
  let engine: Engine;
  const ownerId = newOwner('when');
  const talk = async (id: string, at: string, text: string) =>
    engine.call('ingestConversation', {
      ownerId,
      source: 'api',
      conversation: {
        id,
        messages: [
          { id: `${id}-1`, speaker: 'Lin', text, timestamp: at },
          { id: `${id}-2`, speaker: 'Nemo', text: 'Noted, thanks for telling me.', timestamp: at.replace(':00:00', ':01:00') },
        ],
      },
    });

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
});
