/**
 * loadContext and what was just said: turns a companion stored that are in no episode yet (episodes are
 * built a moment after the turns arrive; a server stopped right after its last turns leaves them for the
 * next one to build) are quoted under "Recently" whatever the query, so the next conversation opens
 * knowing how the last one ended.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncomingConversation } from '../../core/domain/conversation.js';
import type { Engine } from '../../core/engine/open-engine.js';
import { newOwner, openMemoryEngine } from '../helpers/engine.js';

const turns: [speaker: string, text: string][] = [
  ['Lin', 'Back from the doctor: my blood pressure is a bit high, less salt from now on.'],
  ['Nemo', 'Thanks for telling me. Did the doctor prescribe anything?'],
  ['Lin', 'One pill every morning, and a check-up on the 15th of next month.'],
  ['Nemo', 'Noted: a pill every morning, check-up on the 15th.'],
  ['Lin', 'Also my daughter Yu has her grade 8 piano exam next week, she is nervous.'],
];
/** 10 March 2024, 08:00 in Shanghai, a minute a turn. */
const at = (minute: number) => new Date(Date.parse('2024-03-10T00:00:00Z') + minute * 60_000);

describe('loadContext: turns just said, in no episode yet', () => {
  let engine: Engine;
  const ownerId = newOwner('unbuilt');

  beforeAll(async () => {
    engine = await openMemoryEngine();
    await engine.call('ingestConversation', {
      ownerId,
      source: 'api',
      conversation: {
        id: 'earlier',
        messages: [
          { id: 'e1', speaker: 'Lin', text: 'We planted tomatoes on the balcony today.', timestamp: '2024-03-01T09:00:00+08:00' },
          { id: 'e2', speaker: 'Nemo', text: 'Lovely, which variety?', timestamp: '2024-03-01T09:01:00+08:00' },
        ],
      },
    });
    // Stored and acknowledged, not built: what a server that stopped right after them leaves behind.
    const c: IncomingConversation = {
      source: 'live',
      externalId: 'today',
      participants: ['Lin', 'Nemo'],
      metadata: {},
      messages: turns.map(([speaker, text], i) => ({
        speaker,
        role: speaker === 'Lin' ? ('user' as const) : ('assistant' as const),
        text,
        sentAt: at(i),
        utcOffsetMin: 480,
        attachments: [],
        metadata: {},
      })),
    };
    await engine.context.store.transaction(async (r) => {
      const { id } = await r.conversations.upsert(ownerId, c, at(0));
      await r.conversations.addMessages(ownerId, id, c);
    });
  });
  afterAll(() => engine.close());

  it('quotes them first under Recently, with or without a query, in the zone they were said in', async () => {
    for (const query of [undefined, 'What should we cook this weekend?']) {
      const out = await engine.call('loadContext', { ownerId, query, now: at(60) });
      expect(out.markdown).toContain('now is Sunday, 10 March 2024, 09:00 (all times UTC+08:00 unless marked)');
      const recently = out.markdown.slice(out.markdown.indexOf('### Recently'));
      expect(recently).toMatch(
        /^### Recently\n- Sunday, 10 March 2024, 08:00–08:04 — \*\*just said, not in an episode yet\*\*\n {2}Lin: Back from the doctor/,
      );
      for (const [speaker, text] of turns) expect(recently).toContain(`  ${speaker}: ${text}`);
      expect(out.sections.unbuilt.map((m) => m.text)).toEqual(turns.map(([, text]) => text));
      // The episodes come after them.
      expect(recently.indexOf('tomatoes')).toBeGreaterThan(recently.indexOf('piano exam'));
    }
  });

  it('quotes a turn once: one that answers the query under Related, the others under Recently', async () => {
    const out = await engine.call('loadContext', { ownerId, query: 'How did the piano exam go?', now: at(60) });
    expect(out.sections.related).toContainEqual(expect.objectContaining({ kind: 'message', text: turns[4]![1] }));
    expect(out.markdown.split(turns[4]![1]).length).toBe(2);
    expect(out.sections.unbuilt.map((m) => m.text)).toEqual(turns.slice(0, 4).map(([, text]) => text));
  });

  it('keeps them their share of the budget when much older memory answers the query', async () => {
    const runner = newOwner('unbuilt-runner');
    for (let d = 1; d <= 12; d++) {
      await engine.call('ingestConversation', {
        ownerId: runner,
        source: 'api',
        conversation: {
          id: `run-${d}`,
          messages: [
            {
              id: `run-${d}-1`,
              speaker: 'Lin',
              text: `Marathon training, week ${d}: a long run along the river and my knee held up fine.`,
              timestamp: `2024-01-${String(d).padStart(2, '0')}T07:00:00+08:00`,
            },
          ],
        },
      });
    }
    await engine.context.store.transaction(async (r) => {
      const c: IncomingConversation = {
        source: 'live',
        externalId: 'today',
        participants: ['Lin'],
        metadata: {},
        messages: [
          {
            speaker: 'Lin',
            role: 'user',
            text: 'Off to the physio about my knee.',
            sentAt: at(0),
            utcOffsetMin: 480,
            attachments: [],
            metadata: {},
          },
        ],
      };
      const { id } = await r.conversations.upsert(runner, c, at(0));
      await r.conversations.addMessages(runner, id, c);
    });
    const out = await engine.call('loadContext', {
      ownerId: runner,
      query: 'How is the marathon training going?',
      now: at(60),
      budgetTokens: 300,
    });
    expect(out.tokens).toBeLessThanOrEqual(300);
    expect(out.sections.related.filter((r) => r.kind === 'episode').length).toBeGreaterThan(1);
    expect(out.sections.unbuilt.map((m) => m.text)).toEqual(['Off to the physio about my knee.']);
  });

  it('only turns of the last two weeks before now were just said', async () => {
    for (const now of [new Date('2024-04-10T00:00:00Z'), at(-60)]) {
      const out = await engine.call('loadContext', { ownerId, query: 'piano exam', now });
      expect(out.sections.unbuilt).toEqual([]);
      expect(out.markdown).not.toContain('piano exam next week');
    }
  });
});
