/**
 * loadContext's "Coming up": what the person said in the last weeks of a day in the coming week, read
 * on their calendar — the interview "on Friday" said on Monday is tomorrow's on Thursday — whatever the
 * opening message; soonest first, within its share of the budget, and never what was said after `now`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { newOwner, openMemoryEngine } from '../helpers/engine.js';

type Turns = readonly (readonly [text: string, timestamp: string])[];

/** An engine of a describe block's own, holding what Lena said in each conversation (id → turns). */
function lenaSaid(ownerId: string, talks: Record<string, Turns>): () => Engine {
  let engine: Engine;
  beforeAll(async () => {
    engine = await openMemoryEngine();
    for (const [id, turns] of Object.entries(talks)) {
      await engine.call('ingestConversation', {
        ownerId,
        source: 'api',
        conversation: {
          id,
          messages: turns.map(([text, timestamp], n) => ({ id: `${id}${n}`, speaker: 'Lena', role: 'user' as const, text, timestamp })),
        },
      });
    }
  });
  afterAll(async () => {
    await engine.close();
  });
  return () => engine;
}

describe('loadContext: Coming up', () => {
  let engine: Engine;
  const ownerId = newOwner('upcoming');
  const turns = [
    // Monday, 23 November 2026, in UTC+01:00.
    ['Lena', 'I have my final interview at Helix Robotics on Friday at 10, with their CTO.', '2026-11-23T19:00:00+01:00'],
    ['Nemo', 'Want to rehearse it with me on Wednesday evening?', '2026-11-23T19:02:00+01:00'],
    ['Lena', "Yes. I'll need the slides by Thursday.", '2026-11-23T19:04:00+01:00'],
    ['Lena', 'We went hiking on Saturday and it rained the whole time.', '2026-11-23T19:06:00+01:00'],
    ['Lena', 'My sister goes bouldering every Tuesday.', '2026-11-23T19:08:00+01:00'],
    // Tuesday: 下周二 is Tuesday, 1 December.
    ['Lena', '我妈妈下周二要做膝盖手术，我有点担心。', '2026-11-24T21:10:00+01:00'],
    // A day stated with its month's name.
    ['Lena', "My sister Maya's birthday is December 3rd and I haven't bought anything yet.", '2026-11-23T19:10:00+01:00'],
  ] as const;

  beforeAll(async () => {
    engine = await openMemoryEngine();
    await engine.call('ingestConversation', {
      ownerId,
      source: 'api',
      conversation: {
        id: 'week',
        messages: [
          ...turns.map(([speaker, text, timestamp], n) => ({ id: `t${n}`, speaker, role: 'user' as const, text, timestamp })),
          // The companion saying the plan again: the person's own words are what is shown.
          {
            id: 'echo',
            speaker: 'Nemo',
            role: 'assistant' as const,
            text: 'Noted: you have the interview on Friday at 10.',
            timestamp: '2026-11-23T19:01:00+01:00',
          },
        ],
      },
    });
  });
  afterAll(async () => {
    await engine.close();
  });

  const load = (now: string, query?: string, budgetTokens = 1200) =>
    engine.call('loadContext', { ownerId, now, budgetTokens, ...(query ? { query } : {}) });

  it('names the days ahead the person spoke of, soonest first, with or without an opening message', async () => {
    for (const query of [undefined, "I'm so nervous about tomorrow"]) {
      const out = await load('2026-11-26T18:30:00+01:00', query);
      expect(out.sections.upcoming.map((u) => [u.day, u.text])).toEqual([
        ['2026-11-26', turns[2][1]],
        ['2026-11-27', turns[0][1]],
        ['2026-12-01', turns[5][1]],
        ['2026-12-03', turns[6][1]],
      ]);
      const lines = out.markdown.split('\n');
      const at = lines.indexOf('### Coming up');
      expect(at).toBeGreaterThan(0);
      expect(lines[at + 2]).toBe(
        '- Friday, 27 November 2026 (tomorrow, 10:00) — Lena, Monday, 23 November 2026, 19:00: “I have my final interview at Helix Robotics on Friday at 10 (2026-11-27), with their CTO.”',
      );
      expect(lines[at + 3]).toContain('Tuesday, 1 December 2026 (in 5 days)');
      expect(out.tokens).toBeLessThanOrEqual(out.budgetTokens);
    }
  });

  it('reads today on the calendar of the offset now is written with: the person has flown from UTC+01:00 to Tokyo', async () => {
    // 07:30 on Friday in Tokyo is 23:30 on Thursday where Lena last spoke: the interview is today there.
    const tokyo = await load('2026-11-27T07:30:00+09:00');
    expect(tokyo.sections.upcoming[0]?.day).toBe('2026-11-27');
    expect(tokyo.markdown).toContain('now is Friday, 27 November 2026, 07:30 (all times UTC+09:00 unless marked)');
    // The same moment in UTC says only when: Lena's last turn says where she is.
    const utc = await load('2026-11-26T22:30:00Z');
    expect(utc.sections.upcoming.map((u) => u.day).slice(0, 2)).toEqual(['2026-11-26', '2026-11-27']);
    expect(utc.markdown).toContain('now is Thursday, 26 November 2026, 23:30 (all times UTC+01:00 unless marked)');
  });

  it('leaves out days gone by, habits, the past, and what was said after now', async () => {
    const saturday = await load('2026-11-28T10:00:00+01:00');
    expect(saturday.sections.upcoming.map((u) => u.day)).toEqual(['2026-12-01', '2026-12-03']);
    // On Monday evening, before the surgery was mentioned: the week's plans, and Maya's birthday ten
    // days ahead (a birthday is coming up two weeks before, time to find a present).
    const monday = await load('2026-11-23T20:00:00+01:00');
    expect(monday.sections.upcoming.map((u) => u.day)).toEqual(['2026-11-25', '2026-11-26', '2026-11-27', '2026-12-03']);
    // A turn just said, in no episode yet.
    await engine.call('addMemory', {
      ownerId,
      conversationId: 'today',
      messages: [{ speaker: 'Lena', text: 'The dentist moved me to tomorrow at 9.', time: '2026-11-28T09:00:00+01:00' }],
    });
    expect((await load('2026-11-28T10:00:00+01:00')).sections.upcoming.map((u) => u.day)).toEqual([
      '2026-11-29',
      '2026-12-01',
      '2026-12-03',
    ]);
    const after = await load('2026-12-04T09:00:00+01:00');
    expect(after.sections.upcoming).toEqual([]);
    expect(after.markdown).not.toContain('Coming up');
  });

  it('is the listUpcoming operation, with each day written into the message and its episode', async () => {
    const out = await engine.call('listUpcoming', { ownerId, now: '2026-11-26T18:30:00+01:00', utcOffsetMin: 60, days: 2 });
    expect(out.today).toBe('2026-11-26');
    expect(out.items.map((u) => [u.day, u.text])).toEqual([
      ['2026-11-26', "Yes. I'll need the slides by Thursday (2026-11-26)."],
      ['2026-11-27', 'I have my final interview at Helix Robotics on Friday at 10 (2026-11-27), with their CTO.'],
      // A birthday, from two weeks ahead whatever the days asked for.
      ['2026-12-03', "My sister Maya's birthday is December 3rd and I haven't bought anything yet."],
    ]);
    const [first] = out.items;
    const episode = await engine.call('getEpisode', { ownerId, id: first!.episodeId! });
    expect(episode.messages.map((m) => m.id)).toContain(first!.message.id);
  });

  it('answers an opening about the days to come with what is coming up, not with what was said in them', async () => {
    const out = await load('2026-11-26T18:30:00+01:00', 'what do I have tomorrow?');
    expect(out.query).toBeNull();
    expect(out.markdown).not.toContain('Nothing was said');
    expect(out.sections.upcoming.map((u) => u.day)).toContain('2026-11-27');
  });

  it('takes at most an eighth of a small budget', async () => {
    const out = await load('2026-11-26T18:30:00+01:00', 'slides', 300);
    expect(out.sections.upcoming.length).toBeGreaterThan(0);
    expect(out.sections.upcoming.length).toBeLessThan(3);
    expect(out.tokens).toBeLessThanOrEqual(300);
  });
});

describe('loadContext: Coming up, several days at once', () => {
  const ownerId = newOwner('upcoming-days');
  const turns = [
    // Monday, 23 November 2026: how this week is going, not a plan.
    ['This week is hectic at work.', '2026-11-23T19:00:00+01:00'],
    ["We're away December 9th to 12th, at the lake.", '2026-11-23T19:05:00+01:00'],
    // Thursday.
    ["Next week I'm in Lisbon for the conference.", '2026-11-26T20:00:00+01:00'],
    ['My parents are arriving on the 5th.', '2026-11-26T20:02:00+01:00'],
  ] as const;
  const engine = lenaSaid(ownerId, { plans: turns });

  const upcoming = async (now: string) =>
    (await engine().call('loadContext', { ownerId, now, budgetTokens: 1200 })).sections.upcoming.map((u) => [u.day, u.until ?? null, u.id]);

  it('names a week or a range from its first day to come to its last, after the single days that begin with it', async () => {
    const out = await engine().call('loadContext', { ownerId, now: '2026-11-29T18:00:00+01:00', budgetTokens: 1200 });
    expect(out.sections.upcoming.map((u) => [u.day, u.until ?? null, u.text])).toEqual([
      ['2026-11-30', '2026-12-06', turns[2][0]],
      ['2026-12-05', null, turns[3][0]],
    ]);
    expect(out.markdown).toContain(
      "- Monday, 30 November 2026 – Sunday, 6 December 2026 (from tomorrow) — Lena, Thursday, 26 November 2026, 20:00: “Next week (2026-11-30 – 2026-12-06) I'm in Lisbon",
    );
    expect(out.markdown).toContain('“My parents are arriving on the 5th (2026-12-05).”');
    // Under way: from today to its last day; the trip after it comes into the week ahead.
    expect(await upcoming('2026-12-02T08:00:00+01:00')).toEqual([
      ['2026-12-02', '2026-12-06', expect.any(String)],
      ['2026-12-05', null, expect.any(String)],
      ['2026-12-09', '2026-12-12', expect.any(String)],
    ]);
  });

  it('leaves out days that had begun when they were named', async () => {
    expect(await upcoming('2026-11-23T20:00:00+01:00')).toEqual([]);
    const listed = await engine().call('listUpcoming', { ownerId, now: '2026-12-07T09:00:00+01:00', utcOffsetMin: 60 });
    expect(listed.items.map((u) => [u.day, u.until])).toEqual([['2026-12-09', '2026-12-12']]);
  });
});

describe('loadContext: Coming up, a birthday every year', () => {
  const ownerId = newOwner('upcoming-yearly');
  const turns = [
    // Said in March: a birthday and an anniversary come round; a concert does not.
    ["My sister Maya's birthday is December 3rd, she loves orchids.", '2026-03-14T10:00:00+01:00'],
    ['The concert is on December 4th, I think.', '2026-03-14T10:02:00+01:00'],
    ['我爸爸的生日是12月5日，别忘了。', '2026-03-14T10:04:00+01:00'],
  ] as const;
  const engine = lenaSaid(ownerId, { family: turns });

  it('names the day of a birthday said long before, this year and the next', async () => {
    for (const [now, days] of [
      ['2026-12-01T09:00:00+01:00', ['2026-12-03', '2026-12-05']],
      ['2027-11-30T09:00:00+01:00', ['2027-12-03', '2027-12-05']],
    ] as const) {
      const out = await engine().call('loadContext', { ownerId, now, budgetTokens: 1200 });
      expect(out.sections.upcoming.map((u) => [u.day, u.text])).toEqual([
        [days[0], turns[0][0]],
        [days[1], turns[2][0]],
      ]);
    }
    const out = await engine().call('loadContext', { ownerId, now: '2026-12-01T09:00:00+01:00', budgetTokens: 1200 });
    expect(out.markdown).toContain(
      "- Thursday, 3 December 2026 (in 2 days) — Lena, Saturday, 14 March 2026, 10:00: “My sister Maya's birthday is December 3rd, she loves orchids.”",
    );
    // Two weeks before, not sooner.
    const soon = await engine().call('loadContext', { ownerId, now: '2026-11-20T09:00:00+01:00', budgetTokens: 1200 });
    expect(soon.sections.upcoming.map((u) => u.day)).toEqual(['2026-12-03']);
    expect(
      (await engine().call('loadContext', { ownerId, now: '2026-11-15T09:00:00+01:00', budgetTokens: 1200 })).sections.upcoming,
    ).toEqual([]);
  });
});

describe('loadContext: Coming up, plans called off or moved', () => {
  const ownerId = newOwner('upcoming-changed');
  const interview = 'I have my final interview at Helix Robotics on Friday at 10.';
  const moved = 'Helix moved my interview to Monday.';
  const engine = lenaSaid(ownerId, {
    // Monday 23 November 2026.
    mon: [
      [interview, '2026-11-23T19:00:00+01:00'],
      ['Dinner with Sam is on Saturday, finally.', '2026-11-23T19:01:00+01:00'],
      ['I have the dentist on Thursday at 9.', '2026-11-23T19:02:00+01:00'],
      ['我周日有面试，有点紧张。', '2026-11-23T19:03:00+01:00'],
    ],
    // Other days, other talks: each change said in an episode of its own.
    tue: [[moved, '2026-11-24T12:00:00+01:00']],
    wed: [
      ["The dentist cancelled, they're closed all week.", '2026-11-25T12:00:00+01:00'],
      // A name alone is not the plan: nothing is said of the dinner.
      ['Sam cancelled his visit to Berlin in January.', '2026-11-25T12:01:00+01:00'],
      ['面试取消了，松了一口气。', '2026-11-25T12:02:00+01:00'],
      // What calls off the day it names is not coming up on it.
      ['The yoga class on Saturday is cancelled.', '2026-11-25T12:03:00+01:00'],
    ],
  });

  const load = (now: string) => engine().call('loadContext', { ownerId, now, budgetTokens: 3000 });
  const upcoming = async (now: string) => (await load(now)).sections.upcoming.map((u) => [u.day, u.text, u.later?.text ?? null]);

  it('shows a plan with what was said since that calls it off or moves it, and the day it moved to', async () => {
    // Before the changes were said, the plans as they were.
    expect(await upcoming('2026-11-23T20:00:00+01:00')).toEqual([
      ['2026-11-26', 'I have the dentist on Thursday at 9.', null],
      ['2026-11-27', interview, null],
      ['2026-11-28', 'Dinner with Sam is on Saturday, finally.', null],
      ['2026-11-29', '我周日有面试，有点紧张。', null],
    ]);
    expect(await upcoming('2026-11-26T08:00:00+01:00')).toEqual([
      ['2026-11-26', 'I have the dentist on Thursday at 9.', "The dentist cancelled, they're closed all week."],
      ['2026-11-27', interview, moved],
      ['2026-11-28', 'Dinner with Sam is on Saturday, finally.', null],
      ['2026-11-29', '我周日有面试，有点紧张。', '面试取消了，松了一口气。'],
      ['2026-11-30', moved, null],
    ]);
    expect((await load('2026-11-26T08:00:00+01:00')).markdown).toContain(
      `(2026-11-27).” Since then, Lena, Tuesday, 24 November 2026, 12:00: “Helix moved my interview to Monday (2026-11-30).”`,
    );
    const listed = await engine().call('listUpcoming', { ownerId, now: '2026-11-26T08:00:00+01:00', utcOffsetMin: 60, limit: 2 });
    expect(listed.items.map((u) => [u.day, u.later?.message.text, u.later?.text])).toEqual([
      ['2026-11-26', "The dentist cancelled, they're closed all week.", "The dentist cancelled, they're closed all week."],
      ['2026-11-27', moved, 'Helix moved my interview to Monday (2026-11-30).'],
    ]);
  });

  it('hears a plan called off in the turns just said', async () => {
    await engine().call('addMemory', {
      ownerId,
      conversationId: 'fri',
      messages: [{ speaker: 'Lena', text: 'Dinner is off, Sam is sick.', time: '2026-11-27T18:00:00+01:00' }],
    });
    expect((await upcoming('2026-11-27T18:30:00+01:00')).find(([day]) => day === '2026-11-28')).toEqual([
      '2026-11-28',
      'Dinner with Sam is on Saturday, finally.',
      'Dinner is off, Sam is sick.',
    ]);
  });
});

describe('loadContext: Coming up, a day given in answer to a question', () => {
  let engine: Engine;
  const ownerId = newOwner('answers');
  const asked = (id: string, turns: readonly (readonly [speaker: string, text: string, timestamp: string])[]) =>
    engine.call('ingestConversation', {
      ownerId,
      source: 'api',
      conversation: {
        id,
        messages: turns.map(([speaker, text, timestamp], n) => ({
          id: `${id}${n}`,
          speaker,
          role: speaker === 'Lena' ? ('user' as const) : ('assistant' as const),
          text,
          timestamp,
        })),
      },
    });
  beforeAll(async () => {
    engine = await openMemoryEngine();
    // Monday, 23 November 2026, in UTC+01:00.
    await asked('interview', [
      ['Nemo', 'Good luck with the applications! When is your interview?', '2026-11-23T19:00:00+01:00'],
      // A reply sent in two messages.
      ['Lena', "Ugh, don't remind me.", '2026-11-23T19:00:30+01:00'],
      ['Lena', 'Friday at 10.', '2026-11-23T19:01:00+01:00'],
    ]);
    await asked('doctor', [
      ['Nemo', '你什么时候复诊？', '2026-11-23T20:00:00+01:00'],
      ['Lena', '周四。', '2026-11-23T20:01:00+01:00'],
    ]);
    // The same answer with nothing asked before it says no tense: no day.
    await asked('alone', [['Lena', 'Saturday at 10.', '2026-11-23T21:00:00+01:00']]);
    // Since then, the appointment the question named was cancelled.
    await asked('since', [['Lena', 'Bad news: Helix cancelled the interview, they filled the role.', '2026-11-24T08:00:00+01:00']]);
  });
  afterAll(async () => {
    await engine.close();
  });

  it('takes the tense of the question and shows the question with the answer', async () => {
    const { items } = await engine.call('listUpcoming', { ownerId, now: new Date('2026-11-24T09:00:00+01:00'), utcOffsetMin: 60 });
    expect(items.map((u) => [u.day, u.answers?.text, u.text])).toEqual([
      ['2026-11-26', '你什么时候复诊？', '周四（2026-11-26）。'],
      ['2026-11-27', 'When is your interview?', 'Friday at 10 (2026-11-27).'],
    ]);
    const out = await engine.call('loadContext', { ownerId, now: '2026-11-24T09:00:00+01:00' });
    expect(out.markdown).toContain(
      '- Friday, 27 November 2026 (in 3 days, 10:00) — Lena, Monday, 23 November 2026, 19:01, answering Nemo’s “When is your interview?”: “Friday at 10 (2026-11-27).”',
    );
    expect(out.sections.upcoming.map((u) => u.answers?.speaker)).toEqual(['Nemo', 'Nemo']);
    // What calls it off names what the question named.
    expect(out.sections.upcoming.map((u) => u.later?.text ?? null)).toEqual([
      null,
      'Bad news: Helix cancelled the interview, they filled the role.',
    ]);
  });
});

describe('loadContext: Coming up, a plan in a long message', () => {
  const ownerId = newOwner('long');
  const said =
    'What a day. The train was late again, my boss moved the quarterly review twice, and the printer ate my slides ' +
    'right before the meeting, so I presented from my phone like an idiot. Then the rain started on the way home and my ' +
    'umbrella broke, and the shop was out of oat milk. Anyway, the good news: Maya finally said yes to dinner. ' +
    'We are going to that Lebanese place on Friday at 8. I hope the rain stops by then, honestly.';
  const since =
    'Another long one. The review got moved again, the printer is still broken and IT has no idea when, and I forgot ' +
    'my lunch at home, so it was vending machine crackers for me. Bad news on top: Maya cancelled our dinner, her ' +
    'daughter has a fever. Hope the kid feels better soon, it has been going around the whole school this month.';
  const engine = lenaSaid(ownerId, {
    day: [
      [said, '2026-11-23T21:00:00+01:00'],
      [since, '2026-11-24T21:00:00+01:00'],
    ],
  });

  it('quotes the sentence that names the day, or calls it off, and the one before it, not the start of the message', async () => {
    const { items } = await engine().call('listUpcoming', { ownerId, now: new Date('2026-11-25T09:00:00+01:00'), utcOffsetMin: 60 });
    expect(items.map((u) => [u.day, u.text, u.later?.text])).toEqual([
      [
        '2026-11-27',
        '… Anyway, the good news: Maya finally said yes to dinner. We are going to that Lebanese place on Friday at 8 (2026-11-27). …',
        '… The review got moved again, the printer is still broken and IT has no idea when, and I forgot my lunch at home, so it was ' +
          'vending machine crackers for me. Bad news on top: Maya cancelled our dinner, her daughter has a fever. …',
      ],
    ]);
  });
});

describe('loadContext: Coming up, a plan said again', () => {
  const ownerId = newOwner('again');
  const engine = lenaSaid(ownerId, {
    monday: [['I have my final interview at Helix on Friday at 10, with their CTO.', '2026-11-23T19:00:00+01:00']],
    tuesday: [['The dentist is on Friday too, at 4.', '2026-11-24T20:00:00+01:00']],
    wednesday: [['So nervous about the interview on Friday.', '2026-11-25T20:00:00+01:00']],
  });

  it('shows a plan named again on another day once, as last said, beside another plan of that day', async () => {
    const { items } = await engine().call('listUpcoming', { ownerId, now: new Date('2026-11-26T09:00:00+01:00'), utcOffsetMin: 60 });
    expect(items.map((u) => [u.day, u.text])).toEqual([
      ['2026-11-27', 'So nervous about the interview on Friday (2026-11-27).'],
      ['2026-11-27', 'The dentist is on Friday (2026-11-27) too, at 4.'],
    ]);
  });
});

describe('loadContext: two plans of one day said in one talk', () => {
  const ownerId = newOwner('upcoming-one-talk');
  const engine = lenaSaid(ownerId, {
    week: [
      ['My final interview at Helix is on Friday at 10.', '2026-11-23T19:00:00+01:00'],
      ['Dentist on Friday afternoon too, at 4. Ugh.', '2026-11-23T19:02:00+01:00'],
      ['My yoga class is on Thursday evening.', '2026-11-23T19:04:00+01:00'],
      ["I'm so nervous about Thursday, honestly.", '2026-11-23T19:06:00+01:00'],
      ['And Sam flies in on Friday night.', '2026-11-23T19:08:00+01:00'],
    ],
    // Said another day, of a day that has its plans: nothing to add.
    tuesday: [['Thursday will be a long day.', '2026-11-24T08:00:00+01:00']],
    周二: [
      ['周四上午要去医院复诊。', '2026-11-24T20:00:00+01:00'],
      ['周四晚上还约了小林吃饭。', '2026-11-24T20:01:00+01:00'],
    ],
  });

  it('shows each plan, and a day named again without its plan once, by the message that names the plan', async () => {
    const { items } = await engine().call('listUpcoming', { ownerId, now: new Date('2026-11-25T09:00:00+01:00'), utcOffsetMin: 60 });
    // Each talk is one episode.
    expect((await engine().call('stats', { ownerId })).owners[0]?.episodes).toBe(3);
    expect(items.map((u) => [u.day, u.text])).toEqual([
      ['2026-11-26', '周四（2026-11-26）晚上还约了小林吃饭。'],
      ['2026-11-26', '周四（2026-11-26）上午要去医院复诊。'],
      ['2026-11-26', 'My yoga class is on Thursday evening (2026-11-26).'],
      // By the time of day said, one said without it last.
      ['2026-11-27', 'My final interview at Helix is on Friday at 10 (2026-11-27).'],
      ['2026-11-27', 'Dentist on Friday afternoon (2026-11-27) too, at 4. Ugh.'],
      ['2026-11-27', 'And Sam flies in on Friday night (2026-11-27).'],
    ]);
    expect(items.map((u) => u.at)).toEqual([undefined, undefined, undefined, '10:00', '16:00', undefined]);
  });
});

describe('loadContext: a move beside another plan of its day', () => {
  const ownerId = newOwner('upcoming-move');
  const engine = lenaSaid(ownerId, {
    // Monday, 16 November 2026: a flat from 1 December, said two weeks ahead.
    flat: [['My landlord finally replied, the new flat on Elm Road is ours from December 1st!', '2026-11-16T08:10:00+01:00']],
    test: [['Spanish test next Tuesday, I should really study the subjunctive.', '2026-11-25T20:00:00+01:00']],
    周三: [
      ['下周三上午要考驾照。', '2026-11-26T20:00:00+01:00'],
      ['下周三下午交房，终于可以搬进新家了。', '2026-11-26T20:02:00+01:00'],
    ],
  });

  it('shows both: a move, a new home or its keys are plans, not only a day named', async () => {
    const { items } = await engine().call('listUpcoming', { ownerId, now: new Date('2026-11-28T09:00:00+01:00'), utcOffsetMin: 60 });
    expect(items.map((u) => [u.day, u.text])).toEqual([
      ['2026-12-01', 'Spanish test next Tuesday (2026-12-01), I should really study the subjunctive.'],
      ['2026-12-01', 'My landlord finally replied, the new flat on Elm Road is ours from December 1st!'],
      ['2026-12-02', '下周三（2026-12-02）下午交房，终于可以搬进新家了。'],
      ['2026-12-02', '下周三（2026-12-02）上午要考驾照。'],
    ]);
  });
});

describe('loadContext: plans that came while the person was away', () => {
  const talks = {
    // Thursday 19 November and Thursday 3 December 2026, in UTC+01:00; nothing more until the 20th.
    wedding: [["My brother Ravi's wedding is in Lisbon on December 12th, I still need a sari.", '2026-11-19T22:00:00+01:00']],
    dentist: [['Dentist on Monday at 9, ugh.', '2026-12-03T19:00:00+01:00']],
    done: [['Finally bought the sari!', '2026-12-05T12:00:00+01:00']],
  } as const;
  const away = newOwner('away');
  const awayEngine = lenaSaid(away, talks);
  const back = newOwner('back-since');
  // The same, and a talk of something else two days before: the last days are those it asks about.
  const backEngine = lenaSaid(back, { ...talks, shoes: [['Got new running shoes today.', '2026-12-18T18:00:00+01:00']] });

  it('asks after the plans of the days since the person last talked, however many', async () => {
    const out = await awayEngine().call('loadContext', { ownerId: away, now: '2026-12-20T10:00:00+01:00' });
    // The latest first.
    expect(out.sections.goneBy.map((u) => [u.day, u.text])).toEqual([
      ['2026-12-12', "My brother Ravi's wedding is in Lisbon on December 12th, I still need a sari."],
      ['2026-12-07', 'Dentist on Monday at 9, ugh.'],
    ]);
    expect(out.markdown).toContain(
      '- Monday, 7 December 2026 (13 days ago, 09:00) — Lena, Thursday, 3 December 2026, 19:00: “Dentist on Monday at 9 (2026-12-07), ugh.”',
    );
  });

  it('asks after the last three days only when the person talked since', async () => {
    const out = await backEngine().call('loadContext', { ownerId: back, now: '2026-12-20T10:00:00+01:00' });
    expect(out.sections.goneBy).toEqual([]);
  });
});

describe('loadContext: plans gone by, not talked about since', () => {
  const ownerId = newOwner('gone-by');
  const engine = lenaSaid(ownerId, {
    // Monday to Wednesday, 23–25 November 2026, in UTC+01:00.
    monday: [
      ['I have my final interview at Helix on Friday at 10.', '2026-11-23T19:00:00+01:00'],
      ['Dentist on Thursday at 4, ugh.', '2026-11-23T19:02:00+01:00'],
      ['And Wednesday I am seeing the flat on Rua Augusta.', '2026-11-23T19:04:00+01:00'],
      ['Pottery class on Thursday evening.', '2026-11-23T19:06:00+01:00'],
      ['Lunch with Ana on Saturday.', '2026-11-23T19:08:00+01:00'],
    ],
    // Called off before its day.
    tuesday: [['The pottery class got cancelled, the teacher is sick.', '2026-11-24T12:00:00+01:00']],
    // Thursday: the dentist, talked about once its day came.
    thursday: [['The dentist says I need a filling.', '2026-11-26T18:00:00+01:00']],
    // Said on its day: not a plan gone by.
    friday: [['Packing for the flight on Friday, so tired.', '2026-11-27T08:00:00+01:00']],
  });

  it('lists the plans of the last days that nothing was said of since, before what is coming up', async () => {
    const { items, today } = await engine().call('listUpcoming', {
      ownerId,
      now: new Date('2026-11-28T09:00:00+01:00'),
      utcOffsetMin: 60,
      daysBack: 3,
    });
    expect(today).toBe('2026-11-28');
    expect(items.map((u) => [u.day, u.text])).toEqual([
      ['2026-11-25', 'And Wednesday (2026-11-25) I am seeing the flat on Rua Augusta.'],
      ['2026-11-27', 'I have my final interview at Helix on Friday at 10 (2026-11-27).'],
      ['2026-11-28', 'Lunch with Ana on Saturday (2026-11-28).'],
    ]);
    // Without daysBack, only what is to come.
    const ahead = await engine().call('listUpcoming', { ownerId, now: new Date('2026-11-28T09:00:00+01:00'), utcOffsetMin: 60 });
    expect(ahead.items.map((u) => u.day)).toEqual(['2026-11-28']);

    const out = await engine().call('loadContext', { ownerId, now: '2026-11-28T09:00:00+01:00' });
    const lines = out.markdown.split('\n');
    const gone = lines.indexOf('### Gone by, not talked about since');
    expect(gone).toBeGreaterThan(0);
    // The latest first.
    expect(lines[gone + 1]).toBe(
      '- Friday, 27 November 2026 (yesterday, 10:00) — Lena, Monday, 23 November 2026, 19:00: “I have my final interview at Helix on Friday at 10 (2026-11-27).”',
    );
    expect(lines.indexOf('### Coming up')).toBeGreaterThan(gone);
    expect(out.sections.goneBy.map((u) => u.day)).toEqual(['2026-11-27', '2026-11-25']);
    expect(out.sections.upcoming.map((u) => u.day)).toEqual(['2026-11-28']);
    // An opening that speaks of it is the news already, shouted or not.
    for (const query of ['The interview went great!', 'THE INTERVIEW WENT GREAT!!!']) {
      const told = await engine().call('loadContext', { ownerId, now: '2026-11-28T09:00:00+01:00', query });
      expect(told.sections.goneBy.map((u) => u.day)).toEqual(['2026-11-25']);
    }
  });
});

describe('loadContext: a plan of today at a time of day', () => {
  const ownerId = newOwner('today-at');
  const engine = lenaSaid(ownerId, {
    // Sunday, 29 November 2026, in UTC+01:00.
    sunday: [['Booked the physio for Monday 9am, my knee is worse.', '2026-11-29T20:00:00+01:00']],
    周日: [['明天下午三点还要去银行。', '2026-11-29T21:00:00+01:00']],
    // Monday morning: the physio named again without its time.
    monday: [['So nervous about the physio today.', '2026-11-30T07:30:00+01:00']],
  });
  const at = (now: string) => engine().call('loadContext', { ownerId, now });

  it('is coming up until its time, then gone by an hour after it; asked about without daysBack, it is no longer listed', async () => {
    const morning = await at('2026-11-30T08:00:00+01:00');
    // As last said, at the time said before.
    expect(morning.sections.upcoming.map((u) => [u.text, u.at])).toEqual([
      ['So nervous about the physio today.', '09:00'],
      ['明天下午三点还要去银行。', '15:00'],
    ]);
    expect(morning.markdown).toContain(
      '- Monday, 30 November 2026 (today, 09:00) — Lena, Monday, 30 November 2026, 07:30: “So nervous about the physio today (2026-11-30).”',
    );

    const noon = await at('2026-11-30T12:00:00+01:00');
    expect(noon.sections.goneBy.map((u) => [u.day, u.at])).toEqual([['2026-11-30', '09:00']]);
    expect(noon.sections.upcoming.map((u) => u.at)).toEqual(['15:00']);
    const lines = noon.markdown.split('\n');
    expect(lines[lines.indexOf('### Gone by, not talked about since') + 1]).toBe(
      '- Monday, 30 November 2026 (today, 09:00) — Lena, Monday, 30 November 2026, 07:30: “So nervous about the physio today (2026-11-30).”',
    );
    const { items } = await engine().call('listUpcoming', { ownerId, now: new Date('2026-11-30T12:00:00+01:00'), utcOffsetMin: 60 });
    expect(items.map((u) => [u.at, u.goneBy])).toEqual([['15:00', false]]);
  });

  it('is not asked after once it was spoken of since its time', async () => {
    const text = 'The physio says it is just a strain.';
    await engine().call('ingestConversation', {
      ownerId,
      source: 'api',
      conversation: { id: 'after', messages: [{ id: 'a0', speaker: 'Lena', role: 'user', text, timestamp: '2026-11-30T10:30:00+01:00' }] },
    });
    expect((await at('2026-11-30T12:00:00+01:00')).sections.goneBy).toEqual([]);
  });
});

describe('loadContext: a plan pushed or bumped to another day', () => {
  const ownerId = newOwner('upcoming-pushed');
  const engine = lenaSaid(ownerId, {
    // Monday 23 November 2026.
    mon: [
      ['Figma wants a portfolio review call on Thursday at 2pm!', '2026-11-23T20:00:00+01:00'],
      ['Physio appointment on Friday at 9.', '2026-11-23T20:01:00+01:00'],
      ['周四下午三点体检。', '2026-11-23T20:02:00+01:00'],
    ],
    tue: [
      ['Ugh, the Figma call got pushed to next Monday.', '2026-11-24T09:00:00+01:00'],
      ['The physio bumped me to Wednesday next week.', '2026-11-24T09:01:00+01:00'],
      ['体检挪到下周二了。', '2026-11-24T09:02:00+01:00'],
    ],
  });

  it('shows the day it was pushed from with the move, and never asks after it', async () => {
    const thursday = await engine().call('loadContext', { ownerId, now: '2026-11-26T08:00:00+01:00', budgetTokens: 3000 });
    expect(thursday.sections.upcoming.filter((u) => u.day < '2026-11-30').map((u) => [u.day, u.later?.text ?? null])).toEqual([
      ['2026-11-26', 'Ugh, the Figma call got pushed to next Monday.'],
      ['2026-11-26', '体检挪到下周二了。'],
      ['2026-11-27', 'The physio bumped me to Wednesday next week.'],
    ]);
    const saturday = await engine().call('loadContext', { ownerId, now: '2026-11-28T10:00:00+01:00', budgetTokens: 3000 });
    expect(saturday.sections.goneBy).toEqual([]);
    expect(saturday.sections.upcoming.map((u) => [u.day, u.text])).toEqual([
      ['2026-11-30', 'Ugh, the Figma call got pushed to next Monday.'],
      ['2026-12-01', '体检挪到下周二了。'],
      ['2026-12-02', 'The physio bumped me to Wednesday next week.'],
    ]);
  });
});

describe('loadContext: a plan moved to another time of its day', () => {
  const ownerId = newOwner('retimed');
  const engine = lenaSaid(ownerId, {
    // Monday, 23 November 2026, in UTC+01:00; on Thursday the times move, without naming the day.
    monday: [
      ['My meeting with the Helix board is on Friday at 10am.', '2026-11-23T19:00:00+01:00'],
      ['周五上午九点还要去银行。', '2026-11-23T19:02:00+01:00'],
    ],
    thursday: [['Helix moved the board meeting to 3pm, ugh.', '2026-11-26T18:00:00+01:00']],
    周四: [['银行改到下午四点了。', '2026-11-26T18:05:00+01:00']],
  });
  const at = (now: string) => engine().call('loadContext', { ownerId, now });

  it('is coming up at its new time, with what moved it, and gone by an hour after that', async () => {
    const noon = await at('2026-11-27T12:00:00+01:00');
    expect(noon.sections.upcoming.map((u) => [u.at, u.later?.text])).toEqual([
      ['15:00', 'Helix moved the board meeting to 3pm, ugh.'],
      ['16:00', '银行改到下午四点了。'],
    ]);
    expect(noon.sections.goneBy).toEqual([]);
    const evening = await at('2026-11-27T16:30:00+01:00');
    expect(evening.sections.goneBy.map((u) => u.at)).toEqual(['15:00']);
    expect(evening.sections.upcoming.map((u) => u.at)).toEqual(['16:00']);
  });
});

describe('loadContext: a message of a day gone by and one to come, in Chinese', () => {
  const ownerId = newOwner('gone-by-zh');
  const engine = lenaSaid(ownerId, {
    // Monday, 23 November 2026, in UTC+01:00.
    周一: [
      ['挺忙的。周五上午十点要去腾讯面试，有点紧张。', '2026-11-23T20:01:00+01:00'],
      ['周四下午看牙。周日我妈妈坐高铁来上海。', '2026-11-23T20:03:00+01:00'],
    ],
    // The dentist, spoken of once its day came.
    周四: [['牙医说没什么问题。', '2026-11-26T18:00:00+01:00']],
  });

  it('shows it under each, and the plans gone by latest first', async () => {
    const out = await engine().call('loadContext', { ownerId, now: '2026-11-28T10:00:00+01:00' });
    expect(out.sections.goneBy.map((u) => [u.day, u.text])).toEqual([['2026-11-27', '挺忙的。周五上午十点要去腾讯面试，有点紧张。']]);
    expect(out.sections.upcoming.map((u) => [u.day, u.text])).toEqual([['2026-11-29', '周四下午看牙。周日我妈妈坐高铁来上海。']]);
    const { items } = await engine().call('listUpcoming', {
      ownerId,
      now: new Date('2026-11-27T10:00:00+01:00'),
      utcOffsetMin: 60,
      daysBack: 3,
    });
    // On Friday: Thursday's dentist was spoken of since; the interview is today, and Sunday to come.
    expect(items.map((u) => u.day)).toEqual(['2026-11-27', '2026-11-29']);
  });
});

describe('loadContext: a plan gone by whose outcome was told without naming it', () => {
  const ownerId = newOwner('gone-by-outcome');
  const engine = lenaSaid(ownerId, {
    // Monday, 23 November 2026, in UTC+01:00.
    monday: [
      ['My interview at Blue Ocean is on Wednesday at 2pm.', '2026-11-23T19:00:00+01:00'],
      ['And the driving test is on Thursday morning.', '2026-11-23T19:02:00+01:00'],
      ['周四下午还有阿里的面试。', '2026-11-23T19:04:00+01:00'],
    ],
    // Thursday evening: how two of them went, in words of their own.
    thursday: [
      ['I GOT THE JOB!!! I start in January.', '2026-11-26T18:00:00+01:00'],
      ['拿到offer了，一月份入职。', '2026-11-26T18:05:00+01:00'],
    ],
  });

  it('leaves out the interview once the job was got, and keeps the test nothing was said of', async () => {
    const out = await engine().call('loadContext', { ownerId, now: '2026-11-28T09:00:00+01:00' });
    expect(out.sections.goneBy.map((u) => [u.day, u.text])).toEqual([['2026-11-26', 'And the driving test is on Thursday morning.']]);
    // An opening that tells it is the news already.
    const told = await engine().call('loadContext', { ownerId, now: '2026-11-28T09:00:00+01:00', query: 'Passed!! I can drive now' });
    expect(told.sections.goneBy).toEqual([]);
  });
});

describe('loadContext: how a match, a checkup and a visa went, told without naming them', () => {
  const ownerId = newOwner('gone-by-outcomes');
  const engine = lenaSaid(ownerId, {
    // Monday, 23 November 2026, in UTC+01:00.
    monday: [
      ['The visa appointment is on Thursday morning.', '2026-11-23T19:00:00+01:00'],
      ['周五上午去医院体检。', '2026-11-23T19:02:00+01:00'],
      ['Our football match against the Rovers is on Saturday afternoon.', '2026-11-23T19:04:00+01:00'],
    ],
    // Sunday morning: two of them, in words of their own.
    sunday: [
      ['We beat them 3-1!! Best afternoon of the season.', '2026-11-29T11:00:00+01:00'],
      ['报告出来了，一切正常。', '2026-11-29T11:05:00+01:00'],
    ],
  });

  it('leaves out the match and the checkup, keeps the visa nothing was said of, and hears it in the opening', async () => {
    const now = '2026-11-29T20:00:00+01:00';
    const out = await engine().call('loadContext', { ownerId, now });
    expect(out.sections.goneBy.map((u) => [u.day, u.text])).toEqual([['2026-11-26', 'The visa appointment is on Thursday morning.']]);
    const told = await engine().call('loadContext', { ownerId, now, query: 'Approved!!! I can go in March' });
    expect(told.sections.goneBy).toEqual([]);
  });
});

describe('loadContext: the outcome of one plan told beside another of its kind', () => {
  const ownerId = newOwner('gone-by-outcome-of-which');
  const engine = lenaSaid(ownerId, {
    // Monday, 23 November 2026, in UTC+01:00: a follow-up visit and a checkup, both "results" kinds.
    周一: [
      ['周四下午三点去医院复诊。', '2026-11-23T19:00:00+01:00'],
      ['周五早上在公司体检，不能吃早饭。', '2026-11-23T19:02:00+01:00'],
    ],
    // Saturday: the follow-up's results, named; nothing of the checkup.
    周六: [['复诊结果挺好的，医生说不用再去了。', '2026-11-28T11:00:00+01:00']],
  });

  it('hears of the follow-up, and keeps the checkup nothing was said of, in the turns and in the opening', async () => {
    const now = '2026-11-28T20:00:00+01:00';
    const out = await engine().call('loadContext', { ownerId, now });
    expect(out.sections.goneBy.map((u) => [u.day, u.text])).toEqual([['2026-11-27', '周五早上在公司体检，不能吃早饭。']]);
    // Said as the opening, before those turns, the same.
    const told = await engine().call('loadContext', { ownerId, now: '2026-11-28T10:00:00+01:00', query: '复诊结果挺好的' });
    expect(told.sections.goneBy.map((u) => u.day)).toEqual(['2026-11-27']);
  });
});
