import { describe, expect, it } from 'vitest';
import { queryTimeAnchors } from '../../core/retrieval/query-time.js';

const read = (text: string) => queryTimeAnchors(text).map((a) => [a.granularity, a.start.toISOString().slice(0, 10)]);

describe('dates a query names', () => {
  it('reads stated days, months and years in English, Chinese and ISO form, most specific first', () => {
    expect(read('What did Caroline and Melanie talk about on 22 May, 2023?')).toEqual([['day', '2023-05-22']]);
    expect(read('the trip in April 2022')).toEqual([['month', '2022-04-01']]);
    expect(read('2023年5月8日那天我们聊了什么')).toEqual([['day', '2023-05-08']]);
    expect(read('notes from 2021-03, back in 2019')).toEqual([
      ['month', '2021-03-01'],
      ['year', '2019-01-01'],
    ]);
  });

  it('reads nothing without a stated year: relative dates, days without a year, other numbers', () => {
    for (const text of ['what did we do last week', 'dinner on May 8', 'call at 10:30 in room 12', '上周六去哪了', 'pills watch playing'])
      expect(queryTimeAnchors(text)).toEqual([]);
  });
});
