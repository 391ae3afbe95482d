/**
 * What a model reads from the MCP tools, rendered from a real engine's outputs: a search result quotes
 * the turns that matched when its summary does not, and a fact is said once, not label then value.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { renderHistory, renderSearch, renderWritten } from '../../core/mcp/render.js';
import { countWords } from '../../core/text/quote.js';
import { newOwner, openMemoryEngine } from '../helpers/engine.js';

const at = (mm: number) => `2026-11-20T09:${String(mm).padStart(2, '0')}:00+08:00`;

describe('MCP results as a model reads them', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await openMemoryEngine();
  });
  afterAll(async () => {
    await engine.close();
  });

  it("stamps an episode's sources by their time on its own day, with the date on another", async () => {
    const ownerId = newOwner('render-sources');
    await engine.call('ingestConversation', {
      ownerId,
      source: 'api',
      conversation: {
        id: 'late',
        messages: [
          { id: 'l1', speaker: 'Lin', text: 'Still awake, the kettle is broken again.', timestamp: '2026-11-20T23:50:00+08:00' },
          {
            id: 'l2',
            speaker: 'Nemo',
            text: 'A kettle that breaks twice is not worth a third try.',
            timestamp: '2026-11-21T00:10:00+08:00',
          },
        ],
      },
    });
    const shown = renderSearch(await engine.call('search', { ownerId, query: 'kettle', mode: 'bm25', kind: 'episodic' }));
    expect(shown).toContain('Sources: Lin 23:50; Nemo 2026-11-21 00:10');
  });

  it('a search result quotes the turns holding the words searched for that its summary does not say', async () => {
    const ownerId = newOwner('render');
    const turns: [string, string][] = [
      ['Lin', 'I just got back from the dentist, they said I need a root canal next Tuesday.'],
      ['Nemo', 'Oh no, that sounds painful. Are you nervous about it?'],
      ['Lin', 'A bit. Dr. Wang is good though. Also my cat Mochi knocked over my coffee this morning.'],
      ['Nemo', 'Mochi strikes again! Hope the laptop survived.'],
      ['Lin', "By the way I'm thinking of switching jobs, Bytedance offered me a senior PM role in Hangzhou."],
      ['Nemo', "That's big news! What's holding you back?"],
      ['Lin', "My partner Jun doesn't want to leave Shanghai."],
    ];
    await engine.call('addMemory', {
      ownerId,
      conversationId: 'morning',
      messages: turns.map(([speaker, text], i) => ({ speaker, role: speaker === 'Lin' ? 'user' : 'assistant', text, time: at(10 + i) })),
      end: true,
    });
    await engine.idle();

    const job = await engine.call('search', { ownerId, query: 'job offer in Hangzhou', mode: 'bm25', kind: 'episodic' });
    expect(job.results).toHaveLength(1);
    const episode = job.results[0]!;
    expect(episode.kind === 'episode' && episode.summary).not.toMatch(/Hangzhou/);
    const shown = renderSearch(job);
    expect(shown).toContain("   > Lin: By the way I'm thinking of switching jobs, Bytedance offered me a senior PM role in Hangzhou.");
    // Only the turns that hold a searched word, each once.
    expect(shown.match(/^ {3}> /gm)).toHaveLength(1);

    // What the summary already says is not quoted again.
    const mochi = await engine.call('search', { ownerId, query: 'Mochi', mode: 'bm25', kind: 'episodic' });
    expect(mochi.results[0]!.summary).toMatch(/Mochi/);
    expect(renderSearch(mochi)).not.toMatch(/^ {3}> /m);
  });

  it('quotes a long turn by its sentences that hold the words searched for, after its speaker', async () => {
    const ownerId = newOwner('long-turn');
    const filler = 'Morning at the temple, then lunch at a small noodle shop and an afternoon walk along the river. ';
    await engine.call('addMemory', {
      ownerId,
      conversationId: 'kyoto',
      messages: [
        { speaker: 'Lin', role: 'user', text: 'Plan five days in Kyoto for me and Jun, please.', time: at(0) },
        {
          speaker: 'ChatGPT',
          role: 'assistant',
          text: `${filler.repeat(6)}Jun is vegetarian: book Shigetsu inside Tenryu-ji for Buddhist cuisine. ${filler.repeat(6)}`,
          time: at(1),
        },
      ],
      end: true,
    });
    await engine.idle();
    const found = await engine.call('search', { ownerId, query: 'Shigetsu vegetarian', mode: 'bm25', kind: 'episodic' });
    const quoted = renderSearch(found)
      .split('\n')
      .filter((l) => l.startsWith('   > '));
    expect(quoted).toHaveLength(1);
    expect(quoted[0]).toMatch(/^ {3}> ChatGPT: … .*Jun is vegetarian: book Shigetsu inside Tenryu-ji for Buddhist cuisine\..* …$/);
    expect(countWords(quoted[0]!)).toBeLessThanOrEqual(70);
  });

  it('a fact written or looked up is said once when its value says its label', async () => {
    const ownerId = newOwner('fact');
    const keyless = await engine.call('memorize', { ownerId, value: "Lin's partner is Jun, who wants to stay in Shanghai." });
    expect(renderWritten(keyless)).toBe(
      `Remembered a new fact: \`${keyless.key}\` version 1 — Lin's partner is Jun, who wants to stay in Shanghai.`,
    );
    const pet = await engine.call('memorize', { ownerId, key: 'pet:mochi', value: "Lin's cat is called Mochi." });
    expect(renderWritten(pet)).toBe("Remembered a new fact: `pet:mochi` version 1 — Lin's cat is called Mochi.");
    const history = await engine.call('getKnowledge', { ownerId, key: 'pet:mochi' });
    expect(renderHistory(history).split('\n')[0]).toBe("## `pet:mochi` — Lin's cat is called Mochi.");
    // A label the value does not say is kept.
    const coffee = await engine.call('memorize', { ownerId, key: 'preference:coffee', value: 'Black, no sugar' });
    expect(renderWritten(coffee)).toBe('Remembered a new fact: `preference:coffee` version 1 — coffee: Black, no sugar');
  });
});
