import { describe, expect, it } from 'vitest';
import { clockTimes, formatClock } from '../../core/text/clock-time.js';

/** Each time of day found, as "HH:MM@phrase". */
const read = (text: string) => clockTimes(text).map((c) => `${formatClock(c.minutes)}@${text.slice(c.index, c.end)}`);

describe('clockTimes', () => {
  it.each([
    ['booked Dr. Alvarez for Monday 9am', ['09:00@9am']],
    ['dinner at 7:30 pm', ['19:30@7:30 pm']],
    ['around 9 a.m. Monday', ['09:00@9 a.m.']],
    ['at 8pm on Sunday', ['20:00@8pm']],
    ['at 12am', ['00:00@12am']],
    ['the call is at 15:00', ['15:00@15:00']],
    ['lunch at noon tomorrow', ['12:00@noon']],
    // An hour alone is a daytime appointment's: 7–11 in the morning, 1–6 after noon.
    ['interview Friday at 10', ['10:00@at 10']],
    ['the dentist at 4', ['16:00@at 4']],
    ['明天下午三点面试', ['15:00@下午三点']],
    ['周五晚上8点半聚餐', ['20:30@晚上8点半']],
    ['周四上午10点一刻', ['10:15@上午10点一刻']],
    ['中午1点', ['13:00@中午1点']],
    ['凌晨2点的航班', ['02:00@凌晨2点']],
    ['10：30开会', ['10:30@10：30']],
    ['三点开会', ['15:00@三点']],
    // Written as a 12-hour clock without am or pm, the same; a leading zero is a 24-hour clock's.
    ['call with Sam at 3:30', ['15:30@3:30']],
    ['stand-up at 9:45', ['09:45@9:45']],
    ['flight at 06:40', ['06:40@06:40']],
    // An evening's doing in its sentence: 5–11 after noon.
    ['Dinner with Ana tomorrow at 8', ['20:00@at 8']],
    ['movie tonight at 9:30', ['21:30@9:30']],
    ['drinks on Friday at 10', ['22:00@at 10']],
    ['明天九点半的电影', ['21:30@九点半']],
    ['明天八点吃晚饭', ['20:00@八点']],
    // …in its own sentence only.
    ['Dinner was lovely. Meeting tomorrow at 9.', ['09:00@at 9']],
  ])('%s', (text, expected) => {
    expect(read(text)).toEqual(expected);
  });

  it('reads no time out of prices, scores, counts, ages or "a little"', () => {
    for (const text of [
      'I paid $10.99 on Friday',
      'won 3:2 on Saturday',
      'at 3 people',
      'we met at 25',
      'at 5 km',
      '好一点了',
      '快一点',
      '我明天晚一点到',
    ]) {
      expect(read(text), text).toEqual([]);
    }
  });
});
