/**
 * The companion operations on a real in-memory store: addMemory stores raw messages at once (episodes
 * follow in the background), loadContext puts facts, recent episodes and what relates to the opening
 * message in one Markdown block within its budget.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { estimateTokens } from '../../core/text/fact-text.js';
import { newOwner, openMemoryEngine } from '../helpers/engine.js';

const at = (day: number, hh: number, mm = 0) => `2024-01-0${day}T${String(hh).padStart(2, '0')}:${String(mm).padStart(2, '0')}:00+01:00`;

/** Polls until `check` holds (episodes are built behind addMemory). */
async function eventually<T>(read: () => Promise<T>, check: (v: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (check(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('companion operations', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await openMemoryEngine();
  });
  afterAll(async () => {
    await engine.close();
  });

  it("addMemory stores the messages, names the day's conversation, and stores nothing twice", async () => {
    const ownerId = newOwner('add');
    const messages = [
      { id: 'm1', speaker: 'Alice', role: 'user' as const, text: 'I adopted a beagle puppy called Biscuit.', time: at(1, 9) },
      { id: 'm2', speaker: 'Nemo', role: 'assistant' as const, text: 'Congratulations on Biscuit!', time: at(1, 9, 1) },
    ];
    const first = await engine.call('addMemory', { ownerId, messages });
    expect(first).toMatchObject({ key: 'chat-2024-01-01', stored: 2 });
    expect(first.messageIds).toHaveLength(2);
    expect(new Set(first.messageIds).size).toBe(2);

    const again = await engine.call('addMemory', { ownerId, messages });
    expect(again).toEqual({ ...first, stored: 0, duplicates: 2 });

    // Without ids, the same speaker, time and text is the same message.
    const plain = messages.map(({ id: _id, ...m }) => ({ ...m, time: at(1, 10) }));
    const a = await engine.call('addMemory', { ownerId, conversationId: 'talk-1', messages: plain });
    const b = await engine.call('addMemory', { ownerId, conversationId: 'talk-1', messages: plain });
    expect(a.stored).toBe(2);
    expect(b).toEqual({ ...a, stored: 0, duplicates: 2 });
    expect(a.key).toBe('talk-1');

    const stats = await engine.call('stats', { ownerId });
    expect(stats.owners[0]).toMatchObject({ conversations: 2, messages: 4 });
    expect(stats.owners[0]!.sources).toEqual([{ source: 'companion', conversations: 2 }]);
  });

  it('addMemory without a time stamps the messages now, and episodes follow in the background', async () => {
    const ownerId = newOwner('now');
    const out = await engine.call('addMemory', {
      ownerId,
      messages: [{ speaker: 'Alice', role: 'user', text: 'The quokka at the zoo smiled at me today.' }],
    });
    expect(out.key).toMatch(/^chat-\d{4}-\d{2}-\d{2}$/);
    const found = await eventually(
      () => engine.call('search', { ownerId, query: 'quokka', mode: 'bm25' }),
      (o) => o.results.length > 0,
    );
    expect(found.results[0]).toMatchObject({ kind: 'episode' });
    expect(Math.abs(Date.parse((found.results[0] as { start: string }).start) - Date.now())).toBeLessThan(60_000);
  });

  it('closing the engine waits for the episodes being built behind addMemory', async () => {
    const warnings: string[] = [];
    const own = await openMemoryEngine({ warn: (m) => warnings.push(m) });
    const out = await own.call('addMemory', {
      messages: [{ speaker: 'Alice', role: 'user', text: 'Closing right after this message.', time: at(1, 9) }],
    });
    expect(out.stored).toBe(1);
    await own.close();
    expect(warnings).toEqual([]);
  });

  it('rejects an empty exchange and a time without its UTC offset', async () => {
    await expect(engine.call('addMemory', { messages: [] })).rejects.toThrow(/addMemory: messages: send at least one message/);
    await expect(
      engine.call('addMemory', { messages: [{ speaker: 'A', role: 'user', text: 'x', time: '2024-01-01T09:00' }] }),
    ).rejects.toThrow(/UTC offset/);
    // A turn without text would be an empty line of its episode: the whole exchange is refused, nothing stored.
    const ownerId = newOwner('empty');
    await expect(
      engine.call('addMemory', {
        ownerId,
        messages: [
          { speaker: 'A', role: 'user', text: 'Look at this', time: '2024-01-01T09:00:00+01:00' },
          { speaker: 'B', role: 'assistant', text: ' \n ', time: '2024-01-01T09:00:10+01:00' },
        ],
      }),
    ).rejects.toThrow(/addMemory: messages\.1\.text: the turn says nothing/);
    expect((await engine.call('stats', { ownerId })).owners[0]?.messages ?? 0).toBe(0);
  });

  it('loadContext: facts, recent episodes with dates, related episodes with their exact messages, within the budget', async () => {
    const ownerId = newOwner('ctx');
    const days = [
      [at(1, 9), 'I adopted a beagle puppy called Biscuit. He chews everything, even my shoes.'],
      [at(2, 19), 'Training for the Berlin marathon, my left knee hurts after long runs.'],
      [at(3, 12), 'My sister Clara visits next week, I want to cook her a lasagna.'],
    ] as const;
    for (const [time, text] of days) {
      await engine.call('addMemory', {
        ownerId,
        messages: [
          { speaker: 'Alice', role: 'user', text, time },
          { speaker: 'Nemo', role: 'assistant', text: 'Tell me more!', time: time.replace(':00:00', ':01:00') },
        ],
      });
    }
    await engine.call('memorize', {
      ownerId,
      key: 'person:clara',
      value: "Clara is Alice's younger sister",
      metadata: { importance: 0.9 },
    });
    await eventually(
      () => engine.call('listEpisodes', { ownerId }),
      (o) => o.episodes.length === 3,
    );
    // Said just now and not in an episode yet is still found.
    await engine.call('addMemory', {
      ownerId,
      messages: [{ speaker: 'Alice', role: 'user', text: 'Biscuit ate my running socks this morning.', time: at(4, 8) }],
    });

    const out = await engine.call('loadContext', { ownerId, query: 'Biscuit chewed my shoes again', now: at(4, 9), budgetTokens: 400 });
    expect(out.tokens).toBeLessThanOrEqual(400);
    expect(estimateTokens(out.markdown)).toBeLessThanOrEqual(400);
    expect(out.now).toBe('2024-01-04T08:00:00.000Z');
    // The zone is stated once, in the title: every time here is in it.
    expect(out.markdown).toContain('now is Thursday, 4 January 2024, 09:00 (all times UTC+01:00 unless marked)');
    expect(out.markdown.match(/UTC/g)).toHaveLength(1);
    expect(out.markdown).toContain('### What I know about you');
    expect(out.sections.about.keys).toContain('person:clara');
    expect(out.markdown).toContain('### Recently');
    expect(out.markdown).toContain('Wednesday, 3 January 2024, 12:00–12:01 — **');
    expect(out.markdown).toContain('### Related to “Biscuit chewed my shoes again”');

    const episode = out.sections.related.find((r) => r.kind === 'episode');
    expect(episode).toMatchObject({ kind: 'episode', when: 'Monday, 1 January 2024, 09:00–09:01 (UTC+01:00)' });
    // The exact message, under its episode's date and title.
    expect(episode?.kind === 'episode' && episode.messages.map((m) => m.text)).toContain(
      'I adopted a beagle puppy called Biscuit. He chews everything, even my shoes.',
    );
    const heading =
      /- Monday, 1 January 2024, 09:00–09:01 — \*\*(.+)\*\*\n {2}Alice: I adopted a beagle puppy called Biscuit\. He chews everything, even my shoes\./.exec(
        out.markdown,
      );
    // Its heading leaves out the people its lines name; the item keeps the whole title.
    expect(episode?.kind === 'episode' && episode.title).toMatch(/^Alice and Nemo on /);
    expect(heading?.[1]).toBe(episode?.kind === 'episode' && episode.title.replace(/^Alice and Nemo on /, ''));
    // The Biscuit episode is in Related, so Recently does not repeat it.
    expect(out.sections.recent.map((e) => e.id)).not.toContain(episode?.id);
    // Related comes last, after what is known and what happened recently.
    expect(out.markdown.indexOf('### What I know')).toBeLessThan(out.markdown.indexOf('### Recently'));
    expect(out.markdown.indexOf('### Recently')).toBeLessThan(out.markdown.indexOf('### Related'));

    const justSaid = await eventually(
      () => engine.call('loadContext', { ownerId, query: 'Biscuit socks', now: at(4, 9) }),
      (o) => o.sections.related.some((r) => (r.kind === 'message' || r.kind === 'episode') && JSON.stringify(r).includes('running socks')),
    );
    expect(JSON.stringify(justSaid.sections.related)).toContain('Biscuit ate my running socks this morning.');
    expect(justSaid.markdown).toContain('Thursday, 4 January 2024, 08:00');
  });

  it('loadContext marks the times of memories from another time zone than the one its title states', async () => {
    const ownerId = newOwner('zones');
    // A trip to New York, then home again: the title speaks in the latest memory's zone.
    await engine.call('addMemory', {
      ownerId,
      messages: [
        { speaker: 'Alice', role: 'user', text: 'Jet-lagged in New York, the bagels are worth it.', time: '2024-01-01T08:00:00-05:00' },
      ],
    });
    await engine.call('addMemory', {
      ownerId,
      messages: [{ speaker: 'Alice', role: 'user', text: 'Home from New York, I miss the bagels already.', time: at(3, 9) }],
    });
    const out = await eventually(
      () => engine.call('loadContext', { ownerId, query: 'New York bagels', now: at(4, 9) }),
      (o) => o.sections.related.filter((r) => r.kind === 'episode').length === 2,
    );
    expect(out.markdown).toContain('now is Thursday, 4 January 2024, 09:00 (all times UTC+01:00 unless marked)');
    expect(out.markdown).toContain('- Monday, 1 January 2024, 08:00 (UTC-05:00) — **');
    expect(out.markdown).toContain('- Wednesday, 3 January 2024, 09:00 — **');
  });

  it('loadContext keeps to a small budget, most useful first, and says what it left out', async () => {
    const ownerId = newOwner('small');
    for (let d = 1; d <= 6; d++) {
      await engine.call('addMemory', {
        ownerId,
        messages: [
          {
            speaker: 'Alice',
            role: 'user',
            text: `Day ${d}: walked Biscuit along the river and saw ${d} herons near the old bridge, then had tea.`,
            time: at(d, 8),
          },
        ],
      });
    }
    await eventually(
      () => engine.call('listEpisodes', { ownerId }),
      (o) => o.episodes.length === 6,
    );
    const out = await engine.call('loadContext', { ownerId, query: 'herons', now: at(8, 9), budgetTokens: 100 });
    expect(out.tokens).toBeLessThanOrEqual(100);
    expect(out.sections.related.length).toBeGreaterThan(0);
    expect(out.left.related + out.left.recent).toBeGreaterThan(0);

    const none = await engine.call('loadContext', { ownerId: newOwner('empty') });
    expect(none.markdown).toContain('Nothing remembered yet.');
    expect(none.query).toBeNull();
  });

  it('loadContext without a query: facts and recent episodes, newest first, none after `now`', async () => {
    const ownerId = newOwner('noq');
    for (const d of [1, 2, 5])
      await engine.call('addMemory', {
        ownerId,
        messages: [{ speaker: 'Alice', role: 'user', text: `Note for day ${d} about gardening tomatoes.`, time: at(d, 8) }],
      });
    await eventually(
      () => engine.call('listEpisodes', { ownerId }),
      (o) => o.episodes.length === 3,
    );
    const out = await engine.call('loadContext', { ownerId, now: at(3, 0) });
    expect(out.sections.related).toEqual([]);
    expect(out.sections.recent.map((e) => e.when.slice(0, 26))).toEqual(['Tuesday, 2 January 2024, 0', 'Monday, 1 January 2024, 08']);
  });
});
