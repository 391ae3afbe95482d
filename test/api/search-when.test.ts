/**
 * A search reads the periods its query names relative to when it is asked ("dinner last week",
 * "what did I do last weekend?", "上周"): what was said then comes first, and a query that names only a
 * period lists that period's episodes. The engine's clock is fixed; talks are at noon UTC, so they
 * fall on the same day on any machine's clock the periods are read on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { renderSearch as renderCliSearch } from '../../core/cli/output.js';
import { renderSearch } from '../../core/mcp/render.js';
import { ingestExchange, newOwner, openMemoryEngine } from '../helpers/engine.js';

describe('search: periods named relative to now', () => {
  let engine: Engine;
  const ownerId = newOwner('search-when');
  const talk = (id: string, day: string, text: string, reply?: string) =>
    ingestExchange(engine, ownerId, { id, at: `${day}T12:00:00Z`, text, ...(reply ? { reply } : {}) });
  // Wednesday 25 November 2026: last week is 16–22 November, last weekend 21–22 November.
  const now = new Date('2026-11-25T10:00:00Z');

  beforeAll(async () => {
    engine = await openMemoryEngine({ clock: { now: () => now } });
    await talk('ana', '2026-08-10', 'Dinner with Ana at the noodle bar. The dinner was long, a dinner to remember.', 'What a dinner!');
    await talk('bo', '2026-09-02', 'Dinner with Bo again, our usual dinner at the dumpling place.', 'Another good dinner then.');
    await talk('plans', '2026-09-10', 'Weekend plans: nothing, the last weekend was too busy.');
    // Sunday 15 November: the coming Friday is the 20th.
    await talk('rehearse', '2026-11-15', 'Shall we rehearse the talk together on Friday?', 'Yes, at my place.');
    await talk('luigi', '2026-11-18', "Dinner at Luigi's with Jun.");
    // Monday 23 November: the coming Thursday is the 26th, tomorrow as the search is asked.
    await talk('dentist', '2026-11-23', 'I have the dentist on Thursday at 9.');
    await talk('hike', '2026-11-21', 'Hiked up Mount Tai with Mei, my legs hurt.');
    await talk('today', '2026-11-25', 'Bought a new kettle this morning.');
  });
  afterAll(async () => {
    await engine.close();
  });

  const search = (query: string, kind: 'all' | 'episodic' = 'all') => engine.call('search', { ownerId, query, kind, limit: 5 });
  const firstTexts = async (query: string) => (await search(query)).results.map((r) => r.text);

  it('puts first what was said in the period the query names, and says how it read the period', async () => {
    // Without the period, the dinners that say "dinner" most come first.
    expect((await firstTexts('dinner'))[0]).not.toContain('Luigi');
    const out = await search('dinner last week');
    expect(out.results[0]!.text).toContain('Luigi');
    expect(out.results[0]!.reason.explanation).toContain('around “last week”');
    expect(out.periods).toEqual([{ phrase: 'last week', from: '2026-11-16', to: '2026-11-22' }]);
    // A companion is told which days were looked at.
    expect(renderSearch(out).split('\n')[0]).toContain(
      '“last week” read as 2026-11-16 to 2026-11-22, what was said then or of it before first',
    );
    expect(renderCliSearch(out).split('\n')[0]).toBe(
      '“last week” read as 2026-11-16 to 2026-11-22: what was said then, or of it before, comes first',
    );
    // The other dinners are still found, after it; the words naming the period find nothing by themselves.
    expect(out.results.map((r) => r.text).join(' ')).toContain('Ana');
    expect(out.results.map((r) => r.text).join(' ')).not.toContain('Weekend plans');
  });

  it('lists the episodes of a period when the query names nothing else, latest first', async () => {
    expect(await firstTexts('what did I do last weekend?')).toEqual([expect.stringContaining('Mount Tai')]);
    const week = await search('上周我做了什么');
    // Then what was said of it before it came.
    expect(week.results.map((r) => r.text)).toEqual([
      expect.stringContaining('Mount Tai'),
      expect.stringContaining('Luigi'),
      expect.stringContaining('rehearse'),
    ]);
    expect(week.periods.map((p) => p.phrase)).toEqual(['上周']);
    // What is going on now counts in a search ("today" is the day it is asked).
    expect(await firstTexts('today')).toEqual([expect.stringContaining('kettle')]);
  });

  it('finds what was said of a day before it came: the plan made on Sunday for Friday', async () => {
    // Its words find another talk ("Weekend plans"); the plan for the day comes first.
    const planned = await search('what did we plan for last Friday?');
    expect(planned.results[0]!.text).toContain('rehearse the talk together on Friday (2026-11-20)');
    expect(planned.results[0]!.reason.explanation).toContain('around “last Friday”');
    // Nothing was said on that Friday, and the query's words find nothing else.
    expect(await firstTexts('what did we say about Friday the 20th of November?')).toEqual([expect.stringContaining('rehearse')]);
  });

  it('finds what was said of the days to come', async () => {
    const out = await search('what do I have tomorrow?');
    expect(out.periods).toEqual([{ phrase: 'tomorrow', from: '2026-11-26', to: '2026-11-26' }]);
    expect(out.results.map((r) => r.text)).toEqual([expect.stringContaining('dentist on Thursday at 9 (2026-11-26)')]);
  });

  it('reads stated dates as before, and nothing when the caller sets the dates', async () => {
    expect((await firstTexts('dinner in August 2026'))[0]).toContain('Ana');
    const dated = await engine.call('search', { ownerId, query: 'dinner last week', since: '2026-01-01T00:00:00Z', limit: 5 });
    expect(dated.periods).toEqual([]);
    expect(dated.results.length).toBeGreaterThan(0);
  });
});
