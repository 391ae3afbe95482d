/**
 * A keyword hit must share with the query a word it looks for, not only its function words, verbs of
 * going and words of when: "我明天要去医院体检" is not answered with every talk that says 去 or 明天.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { contentTerms } from '../../core/text/keywords.js';
import { engineWithTalks, newOwner } from '../helpers/engine.js';

describe('the words a query looks for', () => {
  it('are its things, names, acronyms and numbers, not its function words, general verbs or words of when', () => {
    expect([...contentTerms('我明天要去医院体检')]).toEqual(['医院', '体检']);
    expect([...contentTerms('我的猫最近怎么样')]).toEqual(['猫']);
    expect([...contentTerms('我妈妈的生日是哪天？')]).toEqual(['妈妈', '生日']);
    expect([...contentTerms('我爸的手术安排在几号')]).toEqual(['手术']);
    expect(contentTerms('What time is the dentist tomorrow?')).toEqual(new Set(['dentist']));
    expect(contentTerms('trip to LA in 2023')).toEqual(new Set(['trip', 'la', '2023']));
    // A word written with a hyphen is one word, though neither part would be looked for alone.
    expect(contentTerms('How did the check-up go last month?')).toEqual(new Set(['checkup']));
    expect([...contentTerms('the dentist follow-up')]).toEqual(expect.arrayContaining(['dentist', 'followup']));
    expect(contentTerms('hi! how are you?').size).toBe(0);
    expect(contentTerms('我们去哪儿').size).toBe(0);
    // A number said alone is no thing (七 | 点, 三 | 个), nor how big (小 | 龙虾) or whether it moved (没 | 动).
    expect([...contentTerms('明天下午三点还要去银行')]).toEqual(['银行']);
    expect([...contentTerms('小龙虾三个人吃够吗')]).toEqual(expect.not.arrayContaining(['小', '三']));
    expect([...contentTerms('PPT还没动')]).toEqual(['ppt']);
    // The name of a work is looked for whole, whatever words it is made of.
    expect(contentTerms('我上次说的《三体》是谁推荐的').has('三体')).toBe(true);
  });

  it('are the nouns a function character also makes (地铁, 成都, 酒吧, 太太), not the function words it makes (特地, 全都, 来个)', () => {
    expect([...contentTerms('我上次去成都是什么时候？')]).toEqual(['成都']);
    expect([...contentTerms('地铁几点关门？')]).toEqual(['地铁', '关门']);
    expect(contentTerms('哪家酒吧好').has('酒吧')).toBe(true);
    expect([...contentTerms('我太太喜欢什么花？')]).toEqual(['太太', '花']);
    // And the few nouns a function word proper is part of (他 of 吉他, 就 of 就业).
    expect([...contentTerms('我的吉他放哪了')]).toEqual(['吉他']);
    expect(contentTerms('就业的事怎么样了').has('就业')).toBe(true);
    for (const said of ['我特地来的', '全都来个', '过多了']) expect(contentTerms(said).size, said).toBe(0);
  });

  describe('in a store', () => {
    let engine: Engine;
    const ownerId = newOwner('content-words');
    const texts = async (query: string) =>
      (await engine.call('search', { ownerId, query, mode: 'bm25', kind: 'episodic', limit: 10 })).results.map((r) => r.text);

    beforeAll(async () => {
      engine = await engineWithTalks(ownerId, '林', [
        { id: 'bike', day: '2026-09-02', text: '明天去西湖骑自行车，风景很好。', reply: '听起来很惬意！' },
        { id: 'job', day: '2026-09-05', text: '面试通过了，下个月去杭州上班。', reply: '恭喜你！' },
        { id: 'clinic', day: '2026-09-08', text: '明天去医院体检，早上不能吃饭。', reply: '记得带身份证。' },
        { id: 'gym', day: '2026-09-09', text: 'Going to the gym tomorrow morning before work.', reply: 'Have fun!' },
        { id: 'dentist', day: '2026-09-10', text: 'The dentist moved my appointment to Friday.', reply: 'Friday works.' },
        { id: 'metro', day: '2026-09-11', text: '地铁末班车是十一点半，别错过。', reply: '好的。' },
      ]);
    });
    afterAll(async () => {
      await engine.close();
    });

    it('finds only the talks that share what the query looks for', async () => {
      const clinic = await texts('我明天要去医院体检');
      expect(clinic).toHaveLength(1);
      expect(clinic[0]).toContain('医院体检');
      const dentist = await texts('What time is the dentist tomorrow?');
      expect(dentist).toHaveLength(1);
      expect(dentist[0]).toContain('dentist');
    });

    it('finds a talk by a noun made with a function character (地铁), though it shares no other word with the query', async () => {
      const metro = await texts('地铁几点关门？');
      expect(metro).toHaveLength(1);
      expect(metro[0]).toContain('地铁末班车');
    });

    it('finds nothing rather than every talk that says 去 or 明天', async () => {
      expect(await texts('我明天要去看牙医')).toEqual([]);
      expect(await texts('Are you going to the zoo tomorrow?')).toEqual([]);
    });

    it('still finds what a query made only of such words says', async () => {
      expect((await texts('明天去')).length).toBeGreaterThanOrEqual(2);
    });

    it('gives a companion no turns that share only such words with its opening', async () => {
      const out = await engine.call('loadContext', {
        ownerId,
        query: '我明天要去看牙医',
        budgetTokens: 400,
        now: '2026-10-01T09:00:00+08:00',
      });
      expect(out.sections.related).toEqual([]);
    });
  });
});
