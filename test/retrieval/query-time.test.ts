import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { besidesPeriods, queryTimeAnchors, relativeAnchors, timeAnchors } from '../../core/retrieval/query-time.js';
import { tempDir } from '../helpers/engine.js';

const read = async (text: string) => (await queryTimeAnchors(text)).map((a) => [a.granularity, a.start.toISOString().slice(0, 10)]);

/**
 * Run in a process of its own: which modules it asks for, seen by a resolve hook, after reading the
 * dates of a query without a year and then of one with a year in words.
 */
const CHILD = `
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const { port1, port2 } = new MessageChannel();
const asked = [];
port1.on('message', (s) => asked.push(s));
const hooks = 'let port; export function initialize(d) { port = d.port; } export async function resolve(s, c, next) { port.postMessage(s); return next(s, c); }';
register('data:text/javascript,' + encodeURIComponent(hooks), { data: { port: port2 }, transferList: [port2] });
const settle = () => new Promise((r) => setTimeout(r, 50));
const { queryTimeAnchors } = await import(process.argv[2]);
await queryTimeAnchors('what did we talk about last week');
await settle();
const withoutYear = asked.includes('chrono-node');
await queryTimeAnchors('the trip in April 2022');
await settle();
console.log(JSON.stringify({ withoutYear, withYear: asked.includes('chrono-node') }));
port1.close();
`;

describe('dates a query names', () => {
  it('reads stated days, months and years in English, Chinese and ISO form, most specific first', async () => {
    expect(await read('What did Caroline and Melanie talk about on 22 May, 2023?')).toEqual([['day', '2023-05-22']]);
    expect(await read('the trip in April 2022')).toEqual([['month', '2022-04-01']]);
    expect(await read('2023年5月8日那天我们聊了什么')).toEqual([['day', '2023-05-08']]);
    expect(await read('notes from 2021-03, back in 2019')).toEqual([
      ['month', '2021-03-01'],
      ['year', '2019-01-01'],
    ]);
  });

  it('reads nothing without a stated year: relative dates, days without a year, other numbers', async () => {
    for (const text of ['what did we do last week', 'dinner on May 8', 'call at 10:30 in room 12', '上周六去哪了', 'pills watch playing'])
      expect(await queryTimeAnchors(text)).toEqual([]);
  });

  it('loads the English date parser only for a query that states a year in words (it holds ~26 MB once loaded)', () => {
    const script = path.join(tempDir(), 'child.mjs');
    fs.writeFileSync(script, CHILD);
    const module = path.join(import.meta.dirname, '..', '..', 'core', 'retrieval', 'query-time.ts');
    const r = spawnSync(process.execPath, ['--import', 'tsx', script, module], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ withoutYear: false, withYear: true });
  });

  it('reads relative days, weeks, months and years on the asker’s clock when it is known when they ask', () => {
    const days = (text: string, now: string, offset: number) =>
      relativeAnchors(text, new Date(now), offset).map((a) => [
        a.granularity,
        a.start.toISOString().slice(0, 10),
        a.end.toISOString().slice(0, 10),
      ]);
    // 00:30 on Wednesday 17 April in UTC+8 is Tuesday the 16th in UTC: "yesterday" depends on whose clock.
    expect(days('what did I practise yesterday?', '2024-04-17T00:30:00+08:00', 480)).toEqual([['day', '2024-04-16', '2024-04-16']]);
    expect(days('what did I practise yesterday?', '2024-04-17T00:30:00+08:00', 0)).toEqual([['day', '2024-04-15', '2024-04-15']]);
    expect(days('上周五我们聊了什么', '2024-04-17T10:00:00+08:00', 480)).toEqual([['day', '2024-04-12', '2024-04-12']]);
    expect(days('how did the interview go last week?', '2024-04-17T10:00:00+08:00', 480)).toEqual([['day', '2024-04-08', '2024-04-14']]);
    expect(days('上个月', '2024-04-17T10:00:00+08:00', 480)).toEqual([['month', '2024-03-01', '2024-03-31']]);
    expect(days('the trip last year', '2024-04-17T10:00:00+08:00', 480)).toEqual([['year', '2023-01-01', '2023-12-31']]);
    // What is going on now (today, this week, tomorrow) is what a companion is told as recent already.
    expect(days('how are you today? anything planned this week or tomorrow?', '2024-04-17T10:00:00+08:00', 480)).toEqual([]);
  });

  it('reads what is going on now and what is to come too for a search, and leaves the rest of the query', async () => {
    const asked = { now: new Date('2024-04-17T10:00:00+08:00'), utcOffsetMin: 480, current: true };
    const read = async (text: string) =>
      (await timeAnchors(text, asked)).map((a) => [a.phrase, a.start.toISOString().slice(0, 10), a.end.toISOString().slice(0, 10)]);
    expect(await read('the trip in May 2023 and dinner today')).toEqual([
      ['May 2023', '2023-05-01', '2023-05-31'],
      ['today', '2024-04-17', '2024-04-17'],
    ]);
    expect(await read('what did I do this week')).toEqual([['this week', '2024-04-15', '2024-04-21']]);
    // What was said of it before it came is what a search finds there.
    expect(await read('plans for tomorrow')).toEqual([['tomorrow', '2024-04-18', '2024-04-18']]);
    expect(besidesPeriods('plans for tomorrow', await timeAnchors('plans for tomorrow', asked)).trim()).toBe('plans for');
    // Without knowing when it is asked, only the stated date.
    expect((await timeAnchors('the trip in May 2023 and dinner today')).map((a) => a.phrase)).toEqual(['May 2023']);
    expect(besidesPeriods('dinner last week', await timeAnchors('dinner last week', asked)).trim()).toBe('dinner');
  });
});
