import { afterEach, describe, expect, it } from 'vitest';
import { annotateRelativeTimes, answering, findTimeMentions, withoutTimeNotes, type TimeMention } from '../../core/text/relative-time.js';

/** Monday 2023-05-08, 10:30 in UTC+8. */
const REF = new Date('2023-05-08T10:30:00+08:00');
const CST = 480;

/** The one mention found in `text`, as "start" or "start..end". */
function resolve(text: string, ref = REF, offset = CST): string {
  const found = findTimeMentions(text, ref, offset);
  expect(found, `mentions in ${JSON.stringify(text)}`).toHaveLength(1);
  const m = found[0]!;
  return m.end === undefined ? m.start : `${m.start}..${m.end}`;
}

describe('findTimeMentions: English (message sent Monday 2023-05-08)', () => {
  it.each([
    ['I went hiking yesterday', '2023-05-07'],
    ['the day before yesterday', '2023-05-06'],
    ['we talked last night', '2023-05-07'],
    ['see you tomorrow', '2023-05-09'],
    ['3 days ago', '2023-05-05'],
    ['in 3 days', '2023-05-11'],
    ['last Saturday', '2023-05-06'],
    ['next Friday', '2023-05-19'], // chrono: X of the next Monday–Sunday week
    ['this Friday', '2023-05-12'],
    ['this weekend', '2023-05-13..2023-05-14'],
    ['last weekend', '2023-05-06..2023-05-07'],
    ['last week', '2023-05-01..2023-05-07'],
    ['two weeks ago', '2023-04-24..2023-04-30'],
    ['next month', '2023-06'],
    ['last month', '2023-04'],
    ['last year', '2022'],
    ['a year ago', '2022'],
    ['the week after next', '2023-05-22..2023-05-28'],
    ['the week before last', '2023-04-24..2023-04-30'],
    ['the weekend before last', '2023-04-29..2023-04-30'],
    ['the weekend after next', '2023-05-27..2023-05-28'],
  ])('%s → %s', (text, expected) => {
    expect(resolve(text)).toBe(expected);
  });

  it('reports phrase, position and granularity', () => {
    expect(findTimeMentions('I went hiking yesterday and next month I move', REF, CST)).toEqual<TimeMention[]>([
      { phrase: 'yesterday', index: 14, start: '2023-05-07', granularity: 'day' },
      { phrase: 'next month', index: 28, start: '2023-06', granularity: 'month' },
    ]);
    expect(findTimeMentions('last week', REF, CST)[0]?.granularity).toBe('week');
  });

  it('resolves "this Monday" said on a Wednesday to the Monday of the current week', () => {
    const wednesday = new Date('2023-05-10T12:00:00+08:00');
    expect(resolve('I saw her this Monday', wednesday)).toBe('2023-05-08');
  });

  it('ignores bare weekdays, time-of-day phrases and dates in digits', () => {
    for (const text of ['see 2023-05-07', 'on 12/3', 'on Saturday', 'at 3pm', '2 hours ago', 'right now']) {
      expect(findTimeMentions(text, REF, CST), text).toEqual([]);
    }
  });

  it('keeps a day stated with its month name as stated, and writes no note after it', () => {
    expect(findTimeMentions('on 8 May 2023 we met', REF, CST)).toMatchObject([{ start: '2023-05-08', stated: true }]);
    // A year left out is the nearest.
    expect(findTimeMentions("Maya's birthday is May 10th", REF, CST)).toMatchObject([{ start: '2023-05-10', stated: true }]);
    expect(findTimeMentions('we met on December 3rd', REF, CST)).toMatchObject([{ start: '2022-12-03', stated: true }]);
    expect(annotateRelativeTimes('May 8 was fun, and yesterday too', REF, CST)).toBe('May 8 was fun, and yesterday (2023-05-07) too');
    expect(annotateRelativeTimes("My knee hurts after yesterday's run", REF, CST)).toBe("My knee hurts after yesterday's (2023-05-07) run");
    const noted = annotateRelativeTimes('我昨天去了，next week I fly and last month was busy', REF, CST);
    expect(withoutTimeNotes(noted)).toBe('我昨天去了，next week I fly and last month was busy');
  });

  it.each([
    ['We went hiking on Saturday and it rained', '2023-05-06'],
    ['How was your Sunday?', '2023-05-07'],
    ['Did you call him on Wednesday?', '2023-05-03'],
    ['I have my final interview on Friday at 10, with their CTO', '2023-05-12'],
    ["I'll need the slides by Thursday", '2023-05-11'],
    ['Want to rehearse it with me on Wednesday evening?', '2023-05-10'],
    ['Are you free on Sunday?', '2023-05-14'],
    ['We booked a table for Friday', '2023-05-12'],
    ['Helix moved my interview to Tuesday.', '2023-05-09'],
    // A plan jotted down without a verb, a farewell until then.
    ['Physio appointment on Thursday at 4.', '2023-05-11'],
    ['Dinner with Sam on Saturday?', '2023-05-13'],
    ['Dentist on Friday afternoon too, at 4. Ugh.', '2023-05-12'],
    ['Haircut on Thursday at 5', '2023-05-11'],
    ['Trip to Lisbon on Saturday!', '2023-05-13'],
    ['Drinks with Sam on Friday at 10.', '2023-05-12'],
    ['Movie with Sam on Saturday?', '2023-05-13'],
    ['See you Wednesday!', '2023-05-10'],
    ['Gym on Friday was brutal', '2023-05-05'],
    // A timetable's present.
    ['Oh and my sister Maya flies in on Sunday.', '2023-05-14'],
    ['My course starts on Thursday', '2023-05-11'],
    ['Maya flew in on Sunday.', '2023-05-07'],
    ['Good luck with the interview on Friday!', '2023-05-12'],
  ])('a bare weekday whose sentence says past or future: %s → %s', (text, expected) => {
    expect(resolve(text)).toBe(expected);
  });

  it('gives a reply without a tense of its own the tense of the turn it answers', () => {
    expect(findTimeMentions('Friday at 10.', REF, CST, { answering: 'Great news! When is your interview?' })).toMatchObject([
      { start: '2023-05-12' },
    ]);
    expect(findTimeMentions('Saturday, I think', REF, CST, { answering: 'When did you last see her?' })).toMatchObject([
      { start: '2023-05-06' },
    ]);
    expect(findTimeMentions('周四。', REF, CST, { answering: '你什么时候复诊？' })).toMatchObject([{ start: '2023-05-11' }]);
    expect(findTimeMentions('周六晚上。', REF, CST, { answering: '你们什么时候聚餐？' })).toMatchObject([{ start: '2023-05-13' }]);
    // Its own tense wins; with no question, no tense.
    expect(findTimeMentions('We went on Friday.', REF, CST, { answering: 'When is your interview?' })).toMatchObject([
      { start: '2023-05-05' },
    ]);
    expect(findTimeMentions('Friday at 10.', REF, CST)).toEqual([]);
    // The question's tense before a plan's name, which alone reads as one to come.
    expect(findTimeMentions('Sunday brunch with Sam', REF, CST, { answering: 'How was the weekend?' })).toMatchObject([
      { start: '2023-05-07' },
    ]);
    expect(findTimeMentions('Sunday brunch with Sam', REF, CST)).toMatchObject([{ start: '2023-05-14' }]);
  });

  it('finds the question a reply sent in several messages answers', () => {
    const turns = ['Nemo', 'Lena', 'Lena', 'Lena', 'Lena', 'Nemo'].map((speaker) => ({ speaker }));
    const texts = ['When is your interview?', 'Ugh.', "Don't remind me.", 'Friday at 10.', 'Then the flight.', 'Good luck!'];
    expect(texts.map((_, i) => answering(turns, texts, i).answering)).toEqual([
      undefined,
      'When is your interview?',
      'When is your interview?',
      'When is your interview?',
      // A fourth message in a row is not the same reply.
      undefined,
      'Then the flight.',
    ]);
  });

  it('reads the weekdays of one sentence about what is to come in order', () => {
    // Said on Monday 8 May: Wednesday comes after that Saturday.
    const found = findTimeMentions("I'll fly out on Saturday and come back on Wednesday.", REF, CST);
    expect(found.map((m) => m.start)).toEqual(['2023-05-13', '2023-05-17']);
    expect(findTimeMentions('我下周二手术，周三再回来。', REF, CST).map((m) => m.start)).toEqual(['2023-05-16', '2023-05-17']);
  });

  it.each([
    ['My parents are arriving on the 15th', '2023-05-15'],
    ['I need the report by the 21st.', '2023-05-21'],
    ['We moved in on the 2nd, finally', '2023-05-02'],
    ["Let's meet on the 3rd at noon", '2023-06-03'],
    // A weekday with its day of the month is that day, whatever the tense.
    ['We meet on Saturday the 13th', '2023-05-13'],
    ['Friday, 5th is fine', '2023-05-05'],
    ['I reserved the hall for the 20th.', '2023-05-20'],
  ])('a day of the month named alone, by tense: %s → %s', (text, expected) => {
    expect(resolve(text)).toBe(expected);
  });

  it('leaves a day of the month alone without a tense, before a noun, and on its own day', () => {
    for (const text of ['They arrive on the 15th', 'We live on the 5th floor', 'I will see you on the 8th', 'the 3rd of many']) {
      expect(findTimeMentions(text, REF, CST), text).toEqual([]);
    }
    // "need" is not a verb in the past.
    expect(annotateRelativeTimes('I need the slides by Thursday', REF, CST)).toBe('I need the slides by Thursday (2023-05-11)');
  });

  it('marks a day stated about a birthday or an anniversary as coming round every year', () => {
    expect(findTimeMentions("Maya's birthday is December 3rd", REF, CST)).toMatchObject([{ start: '2022-12-03', yearly: true }]);
    expect(findTimeMentions('Our anniversary is on June 5th. Dinner at 8?', REF, CST)).toMatchObject([{ yearly: true }]);
    expect(findTimeMentions('我爸爸的生日是12月5日', REF, CST)).toMatchObject([{ phrase: '12月5日', yearly: true }]);
    // A day someone was born on is their birthday.
    expect(findTimeMentions('I was born on March 3rd, 1990', REF, CST)).toMatchObject([{ start: '1990-03-03', yearly: true }]);
    expect(findTimeMentions('我女儿是2019年12月3日出生的', REF, CST)).toMatchObject([{ start: '2019-12-03', yearly: true }]);
    for (const text of [
      'The concert is on December 3rd',
      'The baby is due on June 2nd',
      "It's my birthday tomorrow",
      'I went to her birthday party. The exam is May 20th.',
    ]) {
      expect(
        findTimeMentions(text, REF, CST).some((m) => m.yearly),
        text,
      ).toBe(false);
    }
  });

  it('keeps the last day of a range stated with its month', () => {
    expect(findTimeMentions("I'm away from May 20th to May 24th", REF, CST)).toMatchObject([
      { start: '2023-05-20', end: '2023-05-24', stated: true },
    ]);
    expect(findTimeMentions('We are in Rome May 20-24.', REF, CST)).toMatchObject([{ start: '2023-05-20', end: '2023-05-24' }]);
    expect(findTimeMentions('5月20日到24日我在上海', REF, CST)).toMatchObject([
      { phrase: '5月20日到24日', start: '2023-05-20', end: '2023-05-24', stated: true },
    ]);
    expect(findTimeMentions('12月30日至1月2日去哈尔滨', REF, CST)).toMatchObject([{ start: '2022-12-30', end: '2023-01-02' }]);
  });

  it('leaves a bare weekday alone where the tense is not certain, for a habit, and on its own day', () => {
    for (const text of [
      'she goes to the gym every Tuesday',
      'Saturday then',
      'I saw her on Thursday, and I will see her again on Friday',
      'I have yoga on Monday',
      // Done, for a day that may be to come.
      'I booked a table on Friday',
      // Habits.
      'I usually have yoga on Monday',
      'Sunday is my day off',
      'Rent is always due on the 1st.',
      // A day judged was.
      'Great dinner on Saturday!',
      'Fun party on Friday, thanks again',
      'Class on Tuesday, so boring',
    ]) {
      expect(findTimeMentions(text, REF, CST), text).toEqual([]);
    }
  });
});

describe('findTimeMentions: Chinese (message sent Monday 2023-05-08)', () => {
  it.each([
    ['我昨天去爬山了', '2023-05-07'],
    ['前天', '2023-05-06'],
    ['大前天', '2023-05-05'],
    ['明天见', '2023-05-09'],
    ['后天', '2023-05-10'],
    ['三天前', '2023-05-05'],
    ['二十三天前', '2023-04-15'],
    ['十天后', '2023-05-18'],
    ['上周六', '2023-05-06'],
    ['这周三', '2023-05-10'],
    ['下周一', '2023-05-15'],
    ['下个星期天', '2023-05-21'],
    ['上上周五', '2023-04-28'],
    ['上周', '2023-05-01..2023-05-07'],
    ['周末去爬山', '2023-05-13..2023-05-14'],
    ['上周末', '2023-05-06..2023-05-07'],
    ['两周前', '2023-04-24..2023-04-30'],
    ['下个月', '2023-06'],
    ['上个月', '2023-04'],
    ['三个月前', '2023-02'],
    ['半年前', '2022-11'],
    ['去年', '2022'],
    ['前年', '2021'],
    ['今年', '2023'],
    ['十年前', '2013'],
  ])('%s → %s', (text, expected) => {
    expect(resolve(text)).toBe(expected);
  });

  it('上周六 said on a Sunday is the Saturday of the previous Monday–Sunday week', () => {
    const sunday = new Date('2023-05-07T12:00:00+08:00');
    expect(resolve('上周六', sunday)).toBe('2023-04-29');
    // English "last Saturday" on the same Sunday is the Saturday just past (chrono's rule).
    expect(resolve('last Saturday', sunday)).toBe('2023-05-06');
  });

  it('does not read time words out of other words', () => {
    for (const text of [
      '然后天黑了',
      '登上月球',
      '聪明天才',
      '之前天气很好',
      '马上月底了',
      '每个周末都去',
      '2020年前我住在北京',
      '三月前',
      '周六',
    ]) {
      expect(findTimeMentions(text, REF, CST), text).toEqual([]);
    }
  });

  it.each([
    ['我周五有面试，有点紧张。', '2023-05-12'],
    ['你周四能来吗？', '2023-05-11'],
    ['周六我们去爬山了，累死了。', '2023-05-06'],
    ['礼拜天我已经去过了', '2023-05-07'],
    ['面试改到周三了。', '2023-05-10'],
    ['周四下午复诊', '2023-05-11'],
    ['周五晚饭八点', '2023-05-12'],
    ['周六看电影', '2023-05-13'],
    ['周三晚上见', '2023-05-10'],
    // An appointment made for the day.
    ['膝盖还是疼，约了周四下午四点理疗。', '2023-05-11'],
    ['周四晚上还约了小林吃饭。', '2023-05-11'],
    ['周五订了餐厅。', '2023-05-12'],
    ['周四晚上和小林吃饭。', '2023-05-11'],
    ['周六和小林吃饭了。', '2023-05-06'],
    ['周日我妈妈坐高铁来上海。', '2023-05-14'],
  ])('a bare weekday whose sentence says done or to come: %s → %s', (text, expected) => {
    expect(resolve(text)).toBe(expected);
  });

  it('leaves a bare weekday alone without a tense, for a habit, and on its own day', () => {
    for (const text of [
      '周六很开心',
      '周六的聚会很开心',
      '周二开会好累',
      '周一晚上见',
      '每周三我都去游泳',
      '周六去了，周日还要去',
      '我平时周三要去游泳',
    ]) {
      expect(findTimeMentions(text, REF, CST), text).toEqual([]);
    }
  });

  it('dates a day of the month named alone by the tense of its sentence, and leaves numbered things alone', () => {
    expect(resolve('我15号要飞东京')).toBe('2023-05-15');
    expect(resolve('我2号已经搬进去了。')).toBe('2023-05-02');
    for (const text of ['我住在5号楼，有空来玩', '坐3号线要半小时', '第5号选手要上场了', '我8号要去']) {
      expect(findTimeMentions(text, REF, CST), text).toEqual([]);
    }
  });

  it('keeps a day stated with its month (12月3日, 2023年5月10号) as stated, the nearest year when none is said, with no note', () => {
    expect(findTimeMentions('5月10日是我妹妹的生日', REF, CST)).toMatchObject([{ phrase: '5月10日', start: '2023-05-10', stated: true }]);
    expect(findTimeMentions('我们2024年1月3号见', REF, CST)).toMatchObject([{ start: '2024-01-03', stated: true }]);
    expect(findTimeMentions('12月3日', REF, CST)).toMatchObject([{ start: '2022-12-03' }]);
    expect(findTimeMentions('2月30日', REF, CST)).toEqual([]);
    expect(annotateRelativeTimes('5月10日见，明天再说', REF, CST)).toBe('5月10日见，明天（2023-05-09）再说');
  });

  it('handles mixed English and Chinese', () => {
    const found = findTimeMentions('Last Saturday 我们去了上海，昨天回来', REF, CST);
    expect(found.map((m) => [m.phrase, m.start])).toEqual([
      ['Last Saturday', '2023-05-06'],
      ['昨天', '2023-05-07'],
    ]);
  });
});

describe('findTimeMentions: the time of day said with a day', () => {
  const clocks = (text: string) => findTimeMentions(text, REF, CST).map((m) => [m.phrase, m.start, m.clock]);

  it('takes the time said after the day, or else before it, each time one day’s', () => {
    expect(clocks('my interview is tomorrow at 10:30')).toEqual([['tomorrow at 10:30', '2023-05-09', 630]]);
    expect(clocks('at 9am sharp tomorrow I see the physio')).toEqual([['tomorrow', '2023-05-09', 540]]);
    expect(clocks('dentist tomorrow at 4, and the day after tomorrow I fly')).toEqual([
      ['tomorrow at 4', '2023-05-09', 16 * 60],
      ['the day after tomorrow', '2023-05-10', undefined],
    ]);
    expect(clocks('明天下午三点面试')).toEqual([['明天', '2023-05-09', 15 * 60]]);
    // The time of Thursday's check-up is not Friday's.
    expect(clocks('周四上午10点一刻复诊，周五体检。')).toEqual([
      ['周四', '2023-05-11', 10 * 60 + 15],
      ['周五', '2023-05-12', undefined],
    ]);
    // A week has no one time; nor a day whose time is said in another sentence.
    expect(clocks('next week at 10')).toEqual([['next week at 10', '2023-05-15', undefined]]);
    expect(clocks('See you tomorrow. The train leaves at 9.')).toEqual([['tomorrow', '2023-05-09', undefined]]);
  });

  it('leaves days counted from a day the story told alone ("the next day", "a week later"), and reads "since Monday" as the one past', () => {
    for (const text of ['the next day it rained', 'a week later she called', 'two days later']) {
      expect(findTimeMentions(text, REF, CST), text).toEqual([]);
    }
    expect(resolve('since Monday I have been sick', new Date('2023-05-10T12:00:00+08:00'))).toBe('2023-05-08');
  });

  it('reads "for a week" as how long, not as a day a week away', () => {
    expect(findTimeMentions('she is staying for a week', REF, CST)).toEqual([]);
    expect(findTimeMentions('for two days I have been sick', REF, CST)).toEqual([]);
    expect(resolve('my mom is coming on the 20th for a week')).toBe('2023-05-20');
    expect(resolve('see you in a week')).toBe('2023-05-15..2023-05-21');
  });
});

describe('time zones', () => {
  const originalTz = process.env.TZ;
  afterEach(() => {
    if (originalTz === undefined) delete process.env.TZ;
    else process.env.TZ = originalTz;
  });

  it("resolves against the sender's local date, not UTC", () => {
    // 01:30 on May 8 in Shanghai is still May 7 in UTC; "yesterday" is relative to the local May 8.
    const lateNight = new Date('2023-05-08T01:30:00+08:00');
    expect(lateNight.toISOString().slice(0, 10)).toBe('2023-05-07');
    expect(resolve('yesterday', lateNight, 480)).toBe('2023-05-07');
    expect(resolve('我昨天去爬山了', lateNight, 480)).toBe('2023-05-07');
    // The same instant seen from UTC is a different day.
    expect(resolve('yesterday', lateNight, 0)).toBe('2023-05-06');
    // West of UTC: 02:00Z on May 8 is 21:00 on May 7 in New York (UTC−5 in May).
    expect(resolve('yesterday', new Date('2023-05-08T02:00:00Z'), -300)).toBe('2023-05-06');
  });

  it("does not depend on the machine's time zone", () => {
    const text = 'Yesterday and last Saturday, next month, two weeks ago; 昨天 上周六 下个月 三天前';
    process.env.TZ = 'UTC';
    const utc = findTimeMentions(text, REF, CST);
    for (const [tz, offset] of [
      ['America/Los_Angeles', 420],
      ['Asia/Kolkata', -330],
      ['Pacific/Kiritimati', -840],
    ] as const) {
      process.env.TZ = tz;
      expect(REF.getTimezoneOffset(), 'the zone switch took effect').toBe(offset);
      expect(findTimeMentions(text, REF, CST), tz).toEqual(utc);
    }
  });
});

describe('annotateRelativeTimes', () => {
  it('appends the absolute date after relative phrases only', () => {
    expect(annotateRelativeTimes('I went hiking yesterday; on 8 May 2023 we met. Next month I move.', REF, CST)).toBe(
      'I went hiking yesterday (2023-05-07); on 8 May 2023 we met. Next month (2023-06) I move.',
    );
    expect(annotateRelativeTimes('我昨天去爬山了，上周六去了上海，2023年5月1日回来', REF, CST)).toBe(
      '我昨天（2023-05-07）去爬山了，上周六（2023-05-06）去了上海，2023年5月1日回来',
    );
    expect(annotateRelativeTimes('last week', REF, CST)).toBe('last week (2023-05-01 – 2023-05-07)');
  });

  it('is idempotent', () => {
    const once = annotateRelativeTimes('I went hiking yesterday and 我上周末去了北京', REF, CST);
    expect(annotateRelativeTimes(once, REF, CST)).toBe(once);
  });

  it('leaves text without relative phrases unchanged', () => {
    for (const text of ['', 'Hello there', 'We met on 8 May 2023.', '我喜欢用 Python 写脚本']) {
      expect(annotateRelativeTimes(text, REF, CST)).toBe(text);
    }
  });

  it('rejects an invalid reference or offset', () => {
    expect(() => findTimeMentions('yesterday', new Date(Number.NaN), 0)).toThrow(RangeError);
    expect(() => findTimeMentions('yesterday', REF, 24 * 60)).toThrow(RangeError);
  });
});
