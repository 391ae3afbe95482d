import { describe, expect, it } from 'vitest';
import type { StoredMessage } from '../../core/domain/conversation.js';
import { defaultSegmentConfig } from '../../core/context/segment-config.js';
import { buildHeuristicEpisode, episodeFrom, rarityTerms, readEpisode } from '../../core/episodes/heuristic.js';
import { segmentMessages } from '../../core/episodes/segment.js';
import { PrivacyConfig } from '../../core/context/privacy-config.js';
import { redactText } from '../../core/privacy/redact.js';

let seq = 0;
function msg(speaker: string, text: string, iso: string, offsetMin = 0): StoredMessage {
  return {
    id: `m${++seq}`,
    conversationId: 'c',
    externalId: null,
    seq,
    speaker,
    role: 'other',
    text,
    sentAt: new Date(iso),
    utcOffsetMin: offsetMin,
    attachments: [],
    episodeId: null,
  };
}

describe('heuristic episodes', () => {
  it('state who talked, exactly when, and resolve relative dates in English', () => {
    const e = buildHeuristicEpisode([
      msg('Caroline', 'I went to a LGBTQ support group yesterday and it was so powerful.', '2023-05-08T13:56:00Z'),
      msg('Melanie', 'That sounds amazing! Last Saturday I painted a sunrise by the lake.', '2023-05-08T13:58:00Z'),
    ]);
    expect(e.content).toContain('Caroline and Melanie talked on Monday, 8 May 2023, 13:56–13:58 (UTC+00:00)');
    expect(e.content).toContain('yesterday (2023-05-07)');
    expect(e.content).toContain('Last Saturday (2023-05-06)');
    expect(e.metadata.timeReferences.map((t) => t.start)).toEqual(['2023-05-07', '2023-05-06']);
    expect(e.temporal).toEqual({ start: new Date('2023-05-08T13:56:00Z'), end: new Date('2023-05-08T13:58:00Z'), utcOffsetMin: 0 });
    expect(e.metadata.participants).toEqual(['Caroline', 'Melanie']);
    expect(e.metadata.entities).toEqual(expect.arrayContaining(['Caroline', 'Melanie', 'LGBTQ']));
    expect(e.title).toMatch(/^Caroline and Melanie on /);
    expect(e.summary.length).toBeGreaterThan(10);
    expect(e.keywords.length).toBeGreaterThan(2);
  });

  it('name the last day of a talk over midnight as its first, the year only when it is another', () => {
    const overNight = buildHeuristicEpisode([
      msg('Lin', 'Still up, writing the toast for the wedding.', '2023-12-31T22:50:00Z', 60),
      msg('Lin', 'Done. Happy new year!', '2024-01-01T00:10:00Z', 60),
    ]);
    expect(overNight.content).toContain('Lin talked on Sunday, 31 December 2023, 23:50 – Monday, 1 January 2024, 01:10 (UTC+01:00).');
    const overDays = buildHeuristicEpisode([
      msg('Lin', 'Packing for Lisbon.', '2026-11-23T22:30:00Z', 60),
      msg('Lin', 'Landed in Lisbon.', '2026-11-26T21:00:00Z', 60),
    ]);
    expect(overDays.content).toContain('Lin talked on Monday, 23 November 2026, 23:30 – Thursday, 26 November, 22:00 (UTC+01:00).');
  });

  it('resolve Chinese relative dates in the sender’s own time zone', () => {
    // 01:30 on 8 May in Shanghai is still 7 May in UTC: 昨天 must mean 7 May local, not 6 May.
    const e = buildHeuristicEpisode([
      msg('小明', '我昨天去爬山了，上周六还去了杭州。', '2023-05-07T17:30:00Z', 480),
      msg('小红', '真好！我们下个月一起去上海吧。', '2023-05-07T17:31:00Z', 480),
    ]);
    expect(e.content).toContain('昨天（2023-05-07）');
    expect(e.content).toContain('上周六（2023-05-06）');
    expect(e.content).toContain('下个月（2023-06）');
    // Who talked and when, in Chinese too.
    expect(e.content.split('\n')[0]).toBe('小明和小红在2023年5月8日星期一 01:30–01:31（UTC+08:00）聊天。');
  });

  it('sum up with the sentences that carry the topic, not the greeting or reaction a message opens with', () => {
    const en = buildHeuristicEpisode([
      msg(
        'Melanie',
        'Hey Caroline! Good to see you. Last Friday I took my kids to a pottery workshop and we made clay pots.',
        '2024-03-01T10:00:00Z',
      ),
      msg('Caroline', 'Aw, that is sweet! Pottery with kids sounds fun.', '2024-03-01T10:01:00Z'),
      msg('Melanie', 'Thanks! The clay pots are drying on the windowsill now, the kids painted them blue.', '2024-03-01T10:02:00Z'),
    ]);
    expect(en.summary).toContain('took my kids to a pottery workshop');
    expect(en.summary).toContain('clay pots are drying');
    for (const opener of ['Hey Caroline', 'Good to see you', 'Aw, that is sweet', 'Thanks!']) expect(en.summary).not.toContain(opener);
    expect(en.metadata.keyPoints).toEqual([expect.stringContaining('pottery workshop'), expect.stringContaining('clay pots are drying')]);

    const zh = buildHeuristicEpisode([
      msg('小明', '哈哈，好久不见！我上周六去杭州爬山了，西湖边的龙井茶特别香。', '2024-03-01T02:00:00Z', 480),
      msg('小红', '太好了！下次去杭州叫上我，我也想喝龙井茶。', '2024-03-01T02:01:00Z', 480),
    ]);
    expect(zh.summary).toContain('龙井茶');
    expect(zh.summary).not.toContain('哈哈');
    expect(zh.summary).not.toContain('太好了');
  });

  it('sum up a sentence that opens with a pronoun ("He is…", 她…) with the sentence before it, which says who', () => {
    const en = buildHeuristicEpisode([
      msg('Priya', '10k training: did 8k this morning.', '2026-11-21T11:00:00Z'),
      msg(
        'Priya',
        'Jordan and I talked it out last night, we are good now. He is buying a dishwasher rack for the kitchen.',
        '2026-11-21T11:01:00Z',
      ),
    ]);
    expect(en.summary).toContain('Jordan and I talked it out last night, we are good now. He is buying a dishwasher rack');
    const zh = buildHeuristicEpisode([
      msg('小林', '我表姐下个月结婚。她让我去当伴娘，还要准备伴娘服和礼金。', '2026-11-21T03:00:00Z', 480),
    ]);
    expect(zh.summary).toContain('我表姐下个月结婚。她让我去当伴娘');
  });

  it('sum up whole sentences: the period of a title or an abbreviation ends none ("Dr. Alvarez", "e.g. celadon")', () => {
    const booked = buildHeuristicEpisode([
      msg('Sam', "I finally booked the dentist for my broken molar, it's next Thursday at 3pm with Dr. Alvarez.", '2026-11-20T11:00:00Z'),
      msg('Sam', 'Glazes for the molar-shaped bowl, e.g. celadon, suit stoneware.', '2026-11-20T11:01:00Z'),
    ]);
    expect(booked.summary).toContain('with Dr. Alvarez. ');
    expect(booked.summary).toContain('e.g. celadon, suit stoneware.');
    expect(booked.keywords).not.toContain('e.g');
    const done = buildHeuristicEpisode([
      msg('Sam', 'Dentist done. Dr. Alvarez says I need a crown, another visit in January.', '2026-11-27T00:10:00Z'),
    ]);
    expect(done.summary).toBe('Sam: Dr. Alvarez says I need a crown, another visit in January.');
    // "Alvarez" is said inside a sentence, not at the start of one: a name; "Dr" is no name of its own.
    expect(done.metadata.entities).toEqual(['Sam', 'Alvarez']);
    // A sentence wrapped over lines is one sentence.
    const wrapped = buildHeuristicEpisode([
      msg('Alex', 'Check-in after 3pm,\nand they said "bring cash" for the onsen.', '2026-11-27T00:12:00Z'),
    ]);
    expect(wrapped.summary).toBe('Alex: Check-in after 3pm, and they said "bring cash" for the onsen.');
  });

  it('tell attachments instead of dropping them', () => {
    const m = msg('Ann', 'look!', '2024-01-01T10:00:00Z');
    m.attachments = [{ kind: 'image', caption: 'a dog on a beach' }];
    expect(buildHeuristicEpisode([m]).content).toContain('look! [shares a photo: a dog on a beach]');
  });

  it('title a Chinese talk in Chinese however many photos it shares (their telling is in English)', () => {
    const photo = (speaker: string, iso: string) => {
      const m = msg(speaker, '', iso, 480);
      m.attachments = [{ kind: 'image' }];
      return m;
    };
    const e = buildHeuristicEpisode([
      photo('张三', '2019-07-20T04:05:00Z'),
      photo('小明', '2019-07-20T04:30:00Z'),
      photo('小明', '2019-07-20T04:30:10Z'),
      msg('小明', '山顶风好大', '2019-07-20T04:30:45Z', 480),
    ]);
    expect(e.title).toMatch(/聊到|说到/);
    expect(e.title).not.toMatch(/ on | and /);
  });

  it('tell an attachment by the name a person gave its file, not by one a phone or an export made up', () => {
    const shared = (name: string, kind: 'image' | 'audio' | 'file' = 'image') => {
      const m = msg('Ann', '', '2024-01-01T10:00:00Z');
      m.attachments = [{ kind, name }];
      return buildHeuristicEpisode([m, msg('Bob', 'Nice one!', '2024-01-01T10:01:00Z')]);
    };
    for (const made of [
      '00000012-PHOTO-2024-10-27-03-30-45.jpg',
      'IMG-20240310-WA0001.jpg',
      'photo_1@10-02-2024_09-12-00.jpg',
      'IMG_0042.HEIC',
      '448812345_1.jpg',
      'Screen Shot 2024-03-14 at 8.01.00 PM.png',
    ]) {
      const e = shared(made);
      expect(e.content).toContain('Ann: [shares a photo]');
      expect(e.keywords.join(' ')).not.toMatch(/photo|img|wa0001|2024/i);
      expect(e.title).not.toMatch(/img|wa0001|2024/i);
    }
    expect(shared('PTT-20240310-WA0002.opus', 'audio').content).toContain('Ann: [shares an audio]');
    expect(shared('west-lake.jpg').content).toContain('Ann: [shares a photo: west-lake.jpg]');
    expect(shared('西湖.jpg').content).toContain('Ann: [shares a photo: 西湖.jpg]');
    expect(shared('Lease agreement 2024.pdf', 'file').content).toContain('Ann: [shares a file: Lease agreement 2024.pdf]');
  });
});

describe('heuristic titles', () => {
  const at = (i: number) => new Date(Date.UTC(2024, 2, 1, 10, i)).toISOString();

  it('name what was talked about, never the placeholders of the secrets taken out of it (both languages)', () => {
    const rules = PrivacyConfig.parse({});
    const said = (speaker: string, text: string, i: number) => msg(speaker, redactText(text, rules).value, at(i));
    const en = buildHeuristicEpisode([
      said('Lin', 'My sister Mei arrives from Chengdu next Friday, I need a table with good dumplings.', 0),
      said('Nemo', 'Lovely! Does Mei have any food allergies?', 1),
      said('Lin', 'Peanuts. And my wifi password is hunter2-Secret! and the card is 4111 1111 1111 1111', 2),
      said('Lin', 'The door code password: 8841xx, the alarm password: zz91-aa', 3),
    ]);
    const zh = buildHeuristicEpisode([
      said('小明', '下周五妹妹从成都来，想找家饺子好吃的馆子。', 0),
      said('小红', '好呀！她对什么过敏吗？', 1),
      said('小明', '花生过敏。对了，家里无线网密码是 hunter2-Secret，卡号 4111 1111 1111 1111', 2),
    ]);
    for (const e of [en, zh]) {
      expect(e.content).toContain('[secret: ');
      const named = [e.title, ...e.keywords, ...e.metadata.topics, ...e.metadata.entities].join(' | ');
      expect(named).not.toMatch(/secret|card number/i);
    }
    expect(en.title).toMatch(/Mei|Chengdu|dumplings|peanuts/);
  });

  it('name the topic in a phrase, without sentence-initial verbs or interjections (English)', () => {
    const e = buildHeuristicEpisode([
      msg('Sam', 'Bring the seed catalogue tomorrow? I want to order basil.', at(0)),
      msg('Ruth', 'heh sure, lets pick basil from the seed catalogue. Guess what, the balcony gets sun all day.', at(1)),
      msg('Sam', 'Wow, then basil on the balcony it is. Haha', at(2)),
    ]);
    expect(e.title).toMatch(/^Sam and Ruth on /);
    expect(e.title).toMatch(/seed catalogue|basil/);
    for (const noise of ['Bring', 'bring', 'heh', 'lets', 'Guess', 'Wow', 'Haha', 'sure'])
      expect(e.title.split(/[\s,]+/)).not.toContain(noise);
    for (const noise of ['Bring', 'heh', 'lets', 'Guess', 'Wow', 'Haha'])
      expect(e.keywords.map((k) => k.toLowerCase())).not.toContain(noise.toLowerCase());
  });

  it('write a name as the person writes it, whatever a sentence it opens does to it', () => {
    const e = buildHeuristicEpisode([
      msg('Lin', 'My cat Mochi knocked over my coffee this morning.', at(0)),
      msg('Nemo', 'Mochi strikes again! Is Mochi hiding under the bed now?', at(1)),
      msg('Lin', 'Coffee is everywhere. I need more coffee.', at(2)),
    ]);
    expect(e.title).toContain('Mochi');
    expect(e.title).not.toContain('mochi');
    expect(e.keywords).toContain('Mochi');
    // A word capitalised only where it opens a sentence is written in lower case.
    expect(e.keywords).toContain('coffee');
    expect(e.keywords).not.toContain('Coffee');
    // A name in a title is written whole as it was, though one of its words is said in lower case too.
    const studio = buildHeuristicEpisode([
      msg('Sam', 'I have an interview at Blue Ocean Games on Thursday for the designer role.', at(3)),
      msg('Sam', 'I want to show the puzzle game I did in 2024.', at(4)),
    ]);
    expect(studio.title).toMatch(/^Sam on Blue Ocean Games\b/);
  });

  it('read a shouted sentence in lower case: its capitals name no one ("I GOT THE JOB!!!"), a run of acronyms stays', () => {
    const e = buildHeuristicEpisode([
      msg('Sam', 'I GOT THE JOB!!! I start in January.', at(0)),
      msg('Nemo', 'Congratulations, that is wonderful news.', at(1)),
      msg('Sam', 'OMG WE WON THE FINAL AGAINST RIVERSIDE TOO. The vet said Miso is fine.', at(2)),
    ]);
    expect(e.title).toMatch(/^Sam and Nemo on (job|final)/);
    expect(e.keywords).toEqual(expect.arrayContaining(['job', 'final', 'Miso']));
    expect(e.keywords.filter((k) => /^\p{Lu}{2,}$/u.test(k))).toEqual([]);
    expect(e.metadata.entities).toEqual(['Sam', 'Nemo', 'Miso']);

    const acronyms = buildHeuristicEpisode([msg('Lin', 'The billing moves this week. SSO, ECS, RDS, IAM. The ECS part is done.', at(3))]);
    expect(acronyms.keywords).toEqual(expect.arrayContaining(['ECS', 'RDS', 'IAM']));
  });

  it('title no talk by a word used as a verb: "has been throwing up", "we\'re moving", not "my hobby is painting"', () => {
    const sick = buildHeuristicEpisode([msg('Sam', 'Miso has been throwing up since yesterday, I booked the vet for Tuesday.', at(0))]);
    expect(sick.title).toBe('Sam on vet');
    const move = buildHeuristicEpisode([
      msg('Sam', "We're moving to Hamburg in March, the movers come at eight.", at(1)),
      msg('Nemo', 'Big change! Are you moving the piano too?', at(2)),
    ]);
    expect(move.title).not.toMatch(/moving/);
    expect(move.title).toContain('Hamburg');
    // After a plain "is" with a thing as its subject, an -ing word names a thing.
    const hobby = buildHeuristicEpisode([msg('Sam', 'My hobby is painting. I love painting landscapes in Saxony.', at(3))]);
    expect(hobby.title).toContain('painting');
  });

  it('title no talk by the past of an irregular verb or how often: "Mango threw up twice" is about Mango', () => {
    const e = buildHeuristicEpisode([
      msg('Priya', 'Mango threw up twice again this morning, so the vet sees her on Wednesday.', at(4)),
      msg('Priya', 'Jordan broke a glass and Mango fled under the bed.', at(5)),
    ]);
    expect(e.title).toContain('Mango');
    for (const word of ['threw', 'twice', 'broke', 'fled']) {
      expect(e.title).not.toContain(word);
      expect(e.keywords).not.toContain(word);
    }
  });

  it('title no talk by a verb after "that" or "who", or by anyone or somewhere ("a job that combines", "somewhere quiet")', () => {
    const e = buildHeuristicEpisode([
      msg('James', 'I found a dream job that combines gaming and coding, at a studio in Toronto.', at(6)),
      msg('John', 'Anyone who loves games would want it. Is the studio somewhere near you?', at(7)),
    ]);
    expect(e.title).toMatch(/studio|gaming|coding|dream job/);
    for (const word of ['combines', 'loves', 'anyone', 'somewhere']) expect(e.title.toLowerCase()).not.toContain(word);
    for (const word of ['anyone', 'somewhere']) expect(e.keywords.map((k) => k.toLowerCase())).not.toContain(word);
  });

  it('name the days named like "Black Friday" or "Mother\'s Day" whole, as "New York", never a name and the weekday after it', () => {
    const e = buildHeuristicEpisode([
      msg('Ana', 'Did you get anything on Black Friday?', at(0)),
      msg('Ben', 'Just a new TV, it was half price on Black Friday.', at(1)),
    ]);
    expect(e.title).toBe('Ana and Ben on Black Friday and half price');
    const trip = buildHeuristicEpisode([
      msg('Ana', "We are going to New York for New Year's Eve, then to my mum's for Mother's Day.", at(0)),
      msg('Ben', 'I will see Sam Monday and ask him about New York.', at(1)),
    ]);
    expect(trip.keywords).toEqual(expect.arrayContaining(['New York', "New Year's Eve", "Mother's Day"]));
    expect(trip.keywords).not.toContain('Sam Monday');
    expect(trip.keywords).not.toContain('York');
  });

  it('name no chat spelling of when, how long or how sure ("jump tmrw", "ya prob", "6 yrs old", "4ever")', () => {
    const e = buildHeuristicEpisode([
      msg('Jess', 'ugh my car wont start again', at(0)),
      msg('Tom', 'battery? i can give u a jump tmrw morning', at(1)),
      msg('Jess', 'ya prob, its like 6 yrs old. ur a lifesaver, friends 4ever', at(2)),
    ]);
    for (const noise of ['tmrw', 'prob', 'yrs', '4ever', 'ur']) {
      expect(e.title.split(/[\s,]+/)).not.toContain(noise);
      expect(e.keywords).not.toContain(noise);
    }
    expect(e.keywords).toEqual(expect.arrayContaining(['car', 'jump']));
  });

  it('name a thing, not its possessive: "son" alone, "son\'s accident" in a phrase', () => {
    const e = buildHeuristicEpisode([
      msg('Mel', "My son's bike accident scared me. His bike is wrecked.", at(0)),
      msg('Caro', "Oh no! Is your son's arm ok? Bikes are dangerous.", at(1)),
      msg('Mel', "The doctor says my son's arm will heal.", at(2)),
    ]);
    expect(e.keywords).toContain('son');
    expect(e.keywords.join(' ')).not.toMatch(/['’]s\b/);
    expect(e.title).not.toMatch(/['’]s$/);
  });

  it('name the topic in a phrase, without interjections or time words (Chinese)', () => {
    const e = buildHeuristicEpisode([
      msg('小明', '哈哈，周六我们去杭州西湖骑自行车吧！', at(0), 480),
      msg('小红', '好的好的！顺便去龙井村买点龙井茶。', at(1), 480),
      msg('小明', '嗯嗯，西湖边的樱花应该开了，记得带相机。', at(2), 480),
    ]);
    expect(e.title).toMatch(/^小明和小红聊到/);
    expect(e.title).toMatch(/西湖|龙井|杭州|自行车/);
    for (const noise of ['哈哈', '好的', '嗯嗯', '周六', '记得']) expect(e.title).not.toContain(noise);
  });

  it('name what was counted, not the count or how often (Chinese)', () => {
    const e = buildHeuristicEpisode([
      msg('小林', '今天去医院复查了，医生说我的血压有点高。', at(0), 480),
      msg('Nemo', '医生有没有开药？', at(1), 480),
      msg('小林', '开了降压药，每天早上吃一片。十五号还要再去复查，挂号费三百块。', at(2), 480),
      msg('Nemo', '好的，十五号复查，我记住了。', at(3), 480),
      msg('小林', '我订好了两辆车，还买了三张票。', at(4), 480),
      msg('Nemo', '恭喜！这几天好好休息。婚礼上要写一段致辞吗？', at(5), 480),
    ]);
    for (const noise of ['十五', '一片', '每天', '三百块', '两辆车', '三张票', '恭喜', '几天', '一段致辞']) {
      expect(e.title).not.toContain(noise);
      expect(e.keywords).not.toContain(noise);
    }
    expect(e.keywords).toEqual(expect.arrayContaining(['复查', '血压']));
    // Nor which one or how many places (一家, 第二).
    const interview = buildHeuristicEpisode([
      msg('小林', '今天去一家公司面试了，做游戏的。', at(0), 480),
      msg('Nemo', '感觉怎么样？下周还有第二轮吗？', at(1), 480),
    ]);
    for (const noise of ['一家', '第二']) {
      expect(interview.title).not.toContain(noise);
      expect(interview.keywords).not.toContain(noise);
    }
  });

  it('leave replies, years and adverb-led words out of titles and keywords (同意, 欢迎, 明年, 最好, 到家)', () => {
    const e = buildHeuristicEpisode([
      msg('陈晨', '第三章的转折写得真好，人生就是这样。', at(0), 480),
      msg('刘老师', '同意，而且余华写得很克制。欢迎大家明年继续来读书会！', at(1), 480),
      msg('小王', '这本小说最好的部分是结尾。我五点到家再接着读。', at(2), 480),
    ]);
    for (const noise of ['同意', '欢迎', '明年', '最好', '到家']) {
      expect(e.title).not.toContain(noise);
      expect(e.keywords).not.toContain(noise);
    }
    expect(e.keywords).toEqual(expect.arrayContaining(['转折', '克制']));
  });

  it('join no words across a pause into a phrase ("五公里，膝盖" is no 公里膝盖, "my mother, page 42" no "mother page")', () => {
    const zh = buildHeuristicEpisode([
      msg('我', '晚上跑步五公里，膝盖有点疼，明天休息一天。膝盖是老毛病了。', at(0), 480),
      msg('我', '跑完步膝盖还是疼。', at(1), 480),
    ]);
    expect(zh.title).not.toContain('公里膝盖');
    expect(zh.keywords).not.toContain('公里');
    expect(zh.keywords).toContain('膝盖');
    const en = buildHeuristicEpisode([
      msg('Oma', 'The recipe from my mother, page 42. It needs 6 apples.', '2024-10-27T03:31:00Z'),
      msg('Jonas', 'Mother always made the best apple cake, page after page of notes.', '2024-10-27T03:32:00Z'),
    ]);
    expect(en.title).not.toMatch(/mother page/i);
  });

  it('make no phrase of a verb after a name ("Tomorrow Beijing expects light rain"), and keep plurals there ("Lego sets are", "Mel’s kids")', () => {
    const rain = buildHeuristicEpisode([
      msg('User', '明天北京会下雨吗？', '2024-05-01T08:05:00Z'),
      msg('ChatGPT', 'Tomorrow Beijing expects light rain in the afternoon.', '2024-05-01T08:06:00Z'),
    ]);
    expect(rain.title).not.toContain('expects');
    const kids = buildHeuristicEpisode([
      msg('Ann', "Mel's kids love the zoo. The kids wanted to see the pandas.", '2024-03-31T08:05:00Z'),
      msg('Bob', 'Lego sets are great too, the kids build them for hours.', '2024-03-31T08:06:00Z'),
    ]);
    expect(kids.keywords).toEqual(expect.arrayContaining(['kids', 'sets']));
  });

  it('take no words from a web address, and join none across brackets or signs ("doc (link) & #team" is no "plan china")', () => {
    const e = buildHeuristicEpisode([
      msg('Alice Chen', 'Welcome @Wang! Plan is in the doc (https://example.com/plan) & #china-team.', '2024-03-09T16:05:00Z'),
      msg('Bob', 'Thanks, reading the doc now (www.example.org/roadmap/q3)', '2024-03-09T16:06:00Z'),
    ]);
    expect(e.title).not.toMatch(/example|roadmap|plan china/i);
    expect(e.keywords).not.toEqual(expect.arrayContaining(['example.com']));
    expect(e.keywords).not.toContain('roadmap');
    expect(e.keywords).toContain('doc');
    // The address itself stays in what the episode tells.
    expect(e.content).toContain('https://example.com/plan');
    const zh = buildHeuristicEpisode([
      msg('王小明', '新年快乐！红包在这里 https://example.com/cny 大吉大利', at(0), 480),
      msg('Lin Wei', '新年快乐，谢谢！', at(1), 480),
    ]);
    expect(zh.title).not.toMatch(/example|cny/);
    expect(zh.title).toContain('聊到');
  });

  it('make no phrase of a verb before a name ("the train leaves Shinjuku"), and keep plural nouns after one ("Lego sets")', () => {
    const e = buildHeuristicEpisode([
      msg('Alex', 'Train leaves Shinjuku at 8:30, I joined the group chat for the hotel too.', '2024-03-31T08:05:00Z'),
      msg('Emma', 'Great, the train leaves Shinjuku early so we can see Hakone.', '2024-03-31T08:06:00Z'),
    ]);
    expect(e.title).not.toContain('leaves');
    expect(e.title).toContain('Shinjuku');
    const lego = buildHeuristicEpisode([
      msg('Ann', 'We bought two Lego sets for the kids.', '2024-03-31T08:05:00Z'),
      msg('Bob', 'Lego sets are the best gift.', '2024-03-31T08:06:00Z'),
    ]);
    expect(lego.title).toContain('Lego sets');
  });

  it('leave times of day and files’ extensions out of titles: "8pm", "route_map.jpg" says "route map"', () => {
    const m = msg('张伟', '路线图', '2024-06-01T07:01:00Z', 480);
    m.attachments = [{ kind: 'image', name: 'route_map.jpg' }];
    const e = buildHeuristicEpisode([
      msg('赵敏', 'Tom & Jerry at 8pm? Or the new Pixar movie at 10:30pm?', '2024-06-01T07:00:00Z', 480),
      m,
      msg('Lin Wei', 'Sure, the route along the lake. Send me the map later.', '2024-06-01T07:02:00Z', 480),
    ]);
    expect(e.content).toContain('[shares a photo: route_map.jpg]');
    for (const noise of ['8pm', '10:30pm', 'jpg', 'route_map']) {
      expect(e.title).not.toContain(noise);
      expect(e.keywords.join(' ')).not.toContain(noise);
    }
    expect(e.keywords).toEqual(expect.arrayContaining(['route', 'map']));
  });

  it('leave a web address’s scheme and words of when out of titles (https, earlier, back, late)', () => {
    const e = buildHeuristicEpisode([
      msg('Lin', 'Lantern festival photos are up, see https://example.com/lanterns', at(0)),
      msg('Max', 'I saw the lantern festival photos earlier. I will be back late, save me some dumplings.', at(1)),
    ]);
    for (const noise of ['https', 'earlier', 'back', 'late']) {
      expect(e.title.split(/[\s,]+/)).not.toContain(noise);
      expect(e.keywords).not.toContain(noise);
    }
    expect(e.title).toMatch(/lantern/);
  });

  it('title an episode that opens with things shared by what was shared, in the chat’s language', () => {
    const shared = (speaker: string, kinds: StoredMessage['attachments'][number]['kind'][], i: number, offset = 0) => {
      const m = msg(speaker, '', at(i), offset);
      m.attachments = kinds.map((kind) => ({ kind }));
      return m;
    };
    const zh = buildHeuristicEpisode([shared('张三', ['image'], 0, 480)]);
    expect(zh.title).toBe('张三分享了一张照片');
    expect(zh.content.split('\n')[0]).toBe('张三在2024年3月1日星期五 18:00（UTC+08:00）留言。');
    expect(zh.summary).toBe('张三: [shares a photo]');
    expect(buildHeuristicEpisode([shared('小明', ['image', 'image'], 0, 480), shared('李华', ['video'], 1, 480)]).title).toBe(
      '小明和李华分享了两张照片和一段视频',
    );
    const en = buildHeuristicEpisode([
      shared('Oma', ['image', 'image', 'image'], 0),
      shared('Oma', ['audio'], 1),
      msg('Jonas', 'So nice!', at(2)),
    ]);
    expect(en.title).toBe('Oma shares 3 photos and a voice message');
    expect(buildHeuristicEpisode([shared('Alex', ['other'], 0)]).title).toBe('Alex shares an attachment');
    // One message that says nothing a title could use is its own title and summary, never "exchanged 1 messages".
    const said = buildHeuristicEpisode([msg('小明', '我到东门了', at(0), 480)]);
    expect(said.title).toBe('我到东门了');
    expect(said.summary).toBe('小明: 我到东门了');
  });

  it('name the places and people said inside a sentence, never the one spoken to or a speaker by a short name', () => {
    const e = buildHeuristicEpisode([
      msg('Caroline', 'Thanks, Mel! I finally booked my trip to Lisbon for Fri.', at(0)),
      msg('Melanie', 'Hey Caro, that is amazing. You and Jun in Lisbon, I love it.', at(1)),
      msg('Caroline', 'We will ride the old tram, Mel. I will send you pictures of the tram.', at(2)),
    ]);
    expect(e.title).toMatch(/^Caroline and Melanie on .*Lisbon/);
    for (const noise of ['Mel', 'Caro', 'Fri']) {
      expect(e.title.split(/[\s,]+/)).not.toContain(noise);
      expect(e.keywords).not.toContain(noise);
    }
    // Thanked or greeted, in any of the languages a chat mixes, a name is who is spoken to.
    const thanked = buildHeuristicEpisode([msg('Jonas', 'Danke Oma! Remember the clocks go back tonight.', at(3))]);
    expect(thanked.title).toBe('Jonas on clocks');
    expect(thanked.keywords).not.toContain('Oma');
  });

  it('leave prepositions and negations out of titles ("bakery near", "didnt", 不要)', () => {
    const en = buildHeuristicEpisode([
      msg('Sam', 'I will order a matcha cake from the bakery near the station.', at(0)),
      msg('Jonas', 'The bakery near the station? Their matcha cake is great.', at(1)),
    ]);
    expect(en.title.split(/[\s,]+/)).not.toContain('near');
    expect(en.keywords).not.toContain('near');
    const zh = buildHeuristicEpisode([
      msg('王老师', '这周练肖邦的夜曲，左手要放松，踏板不要踩太深。', at(0), 480),
      msg('我', '明白了，踏板不要踩太深，左手放松。', at(1), 480),
    ]);
    expect(zh.title).not.toContain('不要');
    expect(zh.keywords).not.toContain('不要');
    // a negation typed without its apostrophe, as chats often are
    const typed = buildHeuristicEpisode([
      msg('Sam', 'Leo is finally in his new place in Astoria.', at(0)),
      msg('Sam', 'the couch didnt fit through the door, im so done, thats it', at(1)),
    ]);
    for (const noise of ['didnt', 'im', 'thats']) {
      expect(typed.title.split(/[\s,]+/)).not.toContain(noise);
      expect(typed.keywords).not.toContain(noise);
    }
  });

  it('name a Chinese noun whole where the segmenter cuts its ending off (身份 | 证 is 身份证), not a noun and the verb after it', () => {
    const e = buildHeuristicEpisode([
      msg('张三', '周末去爬长城？记得带身份证，电影票我也买好了。', at(0), 480),
      msg('小明', '好的，身份证带上。饺子吃了吗？', at(1), 480),
    ]);
    expect(e.keywords).toEqual(expect.arrayContaining(['身份证', '电影票']));
    expect(e.keywords).not.toContain('身份');
    expect(e.keywords.join(' ')).not.toContain('饺子吃');
  });

  it('name what a Chinese talk was about, not how it went (完整, 放松, 担心)', () => {
    const e = buildHeuristicEpisode([
      msg('王老师', '这周练肖邦的夜曲，左手要放松，踏板不要踩太深。', at(0), 480),
      msg('我', '明白了。下周二的课我想把第二段弹完整，有点担心左手。', at(1), 480),
      msg('王老师', '别担心，弹完整就好，左手放松。', at(2), 480),
    ]);
    for (const noise of ['完整', '放松', '担心']) {
      expect(e.title).not.toContain(noise);
      expect(e.keywords).not.toContain(noise);
    }
    expect(e.keywords).toEqual(expect.arrayContaining(['夜曲', '左手']));
  });

  it('name what a Chinese talk was about, not how long, how soon or whether it helped (一周, 当场, 没用)', () => {
    const e = buildHeuristicEpisode([
      msg('小林', '最近睡眠很差，试过了没用。中医当场开了一周的药，说我肝火旺。', at(0), 480),
      msg('小林', '客户当场签了合同，试了三个月终于成了。', at(1), 480),
    ]);
    for (const noise of ['一周', '当场', '没用', '三个月', '终于']) {
      expect(e.title).not.toContain(noise);
      expect(e.keywords).not.toContain(noise);
    }
    expect(e.keywords).toEqual(expect.arrayContaining(['中医', '睡眠', '合同']));
  });

  it('name a work by its name in 《》 however it is segmented (《三体》), never a time of day or a linking word (明晚, 另外)', () => {
    const e = buildHeuristicEpisode([
      msg('小美', '你上次说的那本《三体》我看完了，明晚还书给你。', at(0), 480),
      msg('我', '怎么样？另外第三部更绝。', at(1), 480),
      msg('小美', '太震撼了，《三体》的黑暗森林那段看得我头皮发麻。', at(2), 480),
    ]);
    expect(e.title).toContain('三体');
    expect(e.keywords).toContain('三体');
    for (const noise of ['明晚', '另外']) {
      expect(e.title).not.toContain(noise);
      expect(e.keywords).not.toContain(noise);
    }
  });

  it('name a Chinese thing whole (辣椒酱, 纪念日) and an acronym (HR), never a count or a verb before one (一整箱, 买一床, 松了一口气)', () => {
    const e = buildHeuristicEpisode([
      msg('小雨', 'HR说我不在名单里，松了一口气！', at(0), 480),
      msg('小雨', '我妈带了一整箱腊肉和自己做的辣椒酱，还要买一床新被子。', at(1), 480),
      msg('小雨', '跟女朋友吵架了，因为我忘了我们的纪念日。', at(2), 480),
    ]);
    for (const thing of ['HR', '辣椒酱', '纪念日']) expect(e.keywords).toContain(thing);
    for (const noise of ['口气', '整箱', '买一床', '买一', '辣椒', '纪念']) {
      expect(e.title).not.toMatch(new RegExp(`(^|[到、和])${noise}([、和]|$)`));
      expect(e.keywords).not.toContain(noise);
    }
  });

  it('name and sum up what the person brought to a talk before a companion’s kind words (享受, 休息, "have fun")', () => {
    const said = (speaker: string, role: StoredMessage['role'], text: string, i: number, offset = 0) => ({
      ...msg(speaker, text, at(i), offset),
      role,
    });
    const zh = buildHeuristicEpisode([
      said('小林', 'user', '周四晚上和阿杰约了吃火锅。', 0, 480),
      said('Nemo', 'assistant', '好好享受！吃完早点回家，路上注意安全。', 1, 480),
    ]);
    expect(zh.title.startsWith('小林和Nemo聊到火锅')).toBe(true);
    const en = buildHeuristicEpisode([
      said('Sam', 'user', 'Finally booked the flights to Lisbon for my sister and me.', 0),
      said('Nemo', 'assistant', 'Lovely! Try the pastries there, and the coffee by the river!', 1),
    ]);
    for (const kind of ['pastries', 'coffee', 'river']) expect(en.title.split(/[\s,]+/)).not.toContain(kind);
    // The summary quotes the person before a companion's reply.
    const physio = buildHeuristicEpisode([
      said('Sam', 'user', 'My knee is worse after the run today, might see a physio.', 0),
      said('Nemo', 'assistant', 'Good idea, do not push through the pain.', 1),
      said('Sam', 'user', 'Booked Dr. Alvarez for Monday 9am.', 2),
    ]);
    expect(physio.summary).not.toContain('Nemo:');
    // Where only a companion spoke, its words are what the talk was about.
    const alone = buildHeuristicEpisode([
      said('Nemo', 'assistant', 'Your pastries class is tomorrow: bring an apron for the pastries.', 0),
    ]);
    expect(alone.title).toContain('pastries');
  });

  it('name an allergy, not how close a call it was (过敏 is a word, though 过 is a function word of 吃过; 差点, 小心 say how)', () => {
    const e = buildHeuristicEpisode([
      msg('Lin', '我对花生过敏，昨天差点吃了花生酱，好险。', at(0), 480),
      msg('Nemo', '一定要小心！有带肾上腺素笔吗？', at(1), 480),
      msg('Lin', '带了，一直在包里。', at(2), 480),
    ]);
    expect(e.title).toContain('过敏');
    expect(e.keywords).toEqual(expect.arrayContaining(['花生', '过敏']));
    for (const noise of ['差点', '小心', '好险']) {
      expect(e.title).not.toContain(noise);
      expect(e.keywords).not.toContain(noise);
    }
  });

  it('name a dish, a temple and a palace whole (红烧 | 肉, 城隍 | 庙, 少年 | 宫), and never a word of how, where or how far (正好, 平时, 要不, 附近, 十公里)', () => {
    const food = buildHeuristicEpisode([
      msg('妈妈', '周末回家吃饭吧，我给你做红烧肉。', at(0), 480),
      msg('小李', '一定要去城隍庙吃小笼包，平时人很多，要不早点去。', at(1), 480),
      msg('小红', '香山的红叶正好，我们去爬山吧。', at(2), 480),
    ]);
    expect(food.keywords).toEqual(expect.arrayContaining(['红烧肉', '城隍庙']));
    for (const noise of ['正好', '平时', '要不', '红烧', '城隍']) {
      expect(food.title).not.toMatch(new RegExp(`${noise}(?![肉庙])`));
      expect(food.keywords).not.toContain(noise);
    }
    const week = buildHeuristicEpisode([
      msg('女儿', '我同学在少年宫学钢琴，就在学校附近。', at(0), 480),
      msg('我', '今天跑了十公里，膝盖好疼，心疼我的新鞋。', at(1), 480),
    ]);
    expect(week.keywords).toContain('少年宫');
    for (const noise of ['少年', '附近', '十公里', '心疼']) {
      expect(week.title).not.toMatch(new RegExp(`${noise}(?!宫)`));
      expect(week.keywords).not.toContain(noise);
    }
  });

  it('name a word written with hyphens whole ("check-up", "follow-up"), not by a part of it ("follow")', () => {
    const e = buildHeuristicEpisode([
      msg('Lin', 'My annual check-up is on Thursday at 10.', at(0)),
      msg('Lin', 'And the follow-up with the physio is on Friday.', at(1)),
    ]);
    expect(e.title).toContain('check-up');
    expect(e.title).toContain('follow-up');
    expect(e.keywords).not.toContain('follow');
    // Numbers joined by a hyphen are still a count.
    expect(buildHeuristicEpisode([msg('Lin', 'Twenty-five minutes of scales with the metronome.', at(0))]).keywords).not.toContain(
      'twenty-five',
    );
  });

  it('name what was counted, not a number said in words ("fifteen minutes a day", "thirty minutes")', () => {
    const e = buildHeuristicEpisode([
      msg('Teacher', 'Practice switching between C and G for fifteen minutes a day.', at(0)),
      msg('Me', 'Okay, and thirty minutes of scales on weekends, with a metronome.', at(1)),
    ]);
    expect(e.keywords).toEqual(expect.arrayContaining(['metronome', 'scales']));
    for (const noise of ['fifteen', 'thirty']) {
      expect(e.title.split(/[\s,]+/)).not.toContain(noise);
      expect(e.keywords).not.toContain(noise);
    }
  });

  it('lead with the subject a conversation is titled with, then the episode’s own phrase, never its words twice', () => {
    const messages = [
      msg('Lin', 'Plan five days in Kyoto for me and Jun. Jun is vegetarian.', at(0)),
      msg('ChatGPT', 'Day one in Kyoto: the temples of Higashiyama. For vegetarian food, Shigetsu serves Buddhist cuisine.', at(1)),
    ];
    const e = episodeFrom(readEpisode(messages), undefined, 'Kyoto itinerary');
    expect(e.title).toMatch(/^Lin and ChatGPT on Kyoto itinerary and /);
    expect(e.title.match(/Kyoto/g)).toHaveLength(1);
    expect(buildHeuristicEpisode(messages).title).not.toContain('itinerary');
  });

  it('prefer what is particular to this conversation over what the person always talks about', () => {
    const messages = [
      msg('Ann', 'The garden needs water again, and I bought a new compost bin for the garden.', at(0)),
      msg('Ben', 'A compost bin in the garden is a good idea.', at(1)),
    ];
    // In Ann's memory "garden" is everywhere, "compost" is rare.
    const idf = (t: string) => (t === 'garden' ? 0.1 : 3);
    expect(buildHeuristicEpisode(messages).title).toMatch(/garden/);
    const title = buildHeuristicEpisode(messages, { idf }).title;
    expect(title).toMatch(/^Ann and Ben on compost/);
  });

  it('ask the rarity of no term but those read beforehand (the store looks those up, and only those)', () => {
    const reading = readEpisode([
      msg('Ann', 'Guess what! The garden needs water again, so I bought a compost bin.', at(0)),
      msg('Ben', '哈哈，周六我们去杭州西湖骑自行车吧！Bring the camera.', at(1)),
    ]);
    const asked = new Set<string>();
    episodeFrom(reading, (t) => (asked.add(t), 1));
    expect(asked.size).toBeGreaterThan(0);
    expect([...asked].filter((t) => ![...rarityTerms(reading)].includes(t))).toEqual([]);
  });
});

describe('episode boundaries without an LLM', () => {
  const c = defaultSegmentConfig;

  it('cut at silences longer than the gap', () => {
    const ms = [
      msg('A', 'morning coffee plans', '2024-01-01T08:00:00Z'),
      msg('B', 'sure, coffee at nine', '2024-01-01T08:05:00Z'),
      msg('A', 'evening: the movie was great', '2024-01-01T20:00:00Z'),
    ];
    expect(segmentMessages(ms, c).map((s) => s.length)).toEqual([2, 1]);
  });

  it('cut where the topic shifts, by shared words when there is no model', () => {
    const t = (i: number) => new Date(Date.UTC(2024, 0, 1, 10, i)).toISOString();
    const garden = [
      'tomatoes in the garden are ripe',
      'the garden tomatoes need water',
      'garden soil for tomatoes',
      'tomatoes garden compost',
      'more garden tomatoes today',
    ];
    const taxes = [
      'the tax return deadline is close',
      'tax forms and the return',
      'my tax advisor filed the return',
      'tax refund from the return',
      'tax return done',
    ];
    const ms = [...garden, ...taxes].map((text, i) => msg(i % 2 ? 'B' : 'A', text, t(i)));
    const segments = segmentMessages(ms, { ...c, minMessages: 3 });
    expect(segments.map((s) => s.map((m) => m.text))).toEqual([garden, taxes]);
  });

  it('never let an episode grow past the size cap', () => {
    const ms = Array.from({ length: 30 }, (_, i) =>
      msg('A', `same topic message ${i}`, new Date(Date.UTC(2024, 0, 1, 10, i)).toISOString()),
    );
    const segments = segmentMessages(ms, c);
    expect(segments.every((s) => s.length <= c.maxMessages)).toBe(true);
    expect(segments.flat()).toHaveLength(30);
  });
});
