/**
 * A one-character Chinese query word finds the words the segmenter holds it in: "猫" finds "我的猫叫
 * Mochi" (segmented 我的 / 猫叫) and "猫咪很可爱" (猫咪), in keyword search, in fact search and in the
 * messages a companion is handed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { charWords, CHAR_WORD_WEIGHT, loneChars } from '../../core/retrieval/char-words.js';
import { tokenize } from '../../core/text/tokenize.js';
import { engineWithTalks, newOwner } from '../helpers/engine.js';

describe('one-character Chinese query words', () => {
  it('are matched by the two-character words that begin or end with them, at a lower weight', () => {
    // What this is about: the segmenter reads these characters into longer words.
    expect(tokenize('我的猫叫Mochi')).not.toContain('猫');
    expect(tokenize('猫咪很可爱')).not.toContain('猫');
    expect(loneChars(['猫', 'cat', '样'])).toEqual(['猫', '样']);
    const words = charWords(new Map([['猫', 1]]), ['猫叫', '小猫', '猫头鹰', '熊猫', '花瓶', '猫']);
    expect(words).toEqual(
      new Map([
        ['猫叫', CHAR_WORD_WEIGHT],
        ['小猫', CHAR_WORD_WEIGHT],
        ['熊猫', CHAR_WORD_WEIGHT],
      ]),
    );
    expect(charWords(new Map([['花瓶', 1]]), ['花瓶', '花园'])).toEqual(new Map());
  });

  describe('in a store', () => {
    let engine: Engine;
    const ownerId = newOwner('char-words');

    beforeAll(async () => {
      engine = await engineWithTalks(ownerId, '林', [
        { id: 'mochi', day: '2026-08-10', text: '我的猫叫Mochi，今天她把花瓶打碎了。', reply: '哈哈，Mochi 真调皮。' },
        { id: 'vet', day: '2026-08-12', text: '猫咪最近不爱吃饭，我有点担心。', reply: '可以带她去看看兽医。' },
        { id: 'bike', day: '2026-09-02', text: '周末去西湖骑自行车，风景很好。', reply: '听起来很惬意！' },
        { id: 'job', day: '2026-09-05', text: '面试通过了，下个月去杭州上班。', reply: '恭喜你！' },
      ]);
      await engine.call('memorize', { ownerId, key: 'pet:mochi', value: '林的猫咪叫 Mochi' });
    });
    afterAll(async () => {
      await engine.close();
    });

    it('finds every episode and fact about the cat by keywords alone', async () => {
      const out = await engine.call('search', { ownerId, query: '猫', mode: 'bm25', limit: 10 });
      const episodes = out.results.flatMap((r) => (r.kind === 'episode' ? [r.text] : []));
      expect(episodes).toHaveLength(2);
      expect(episodes.join('\n')).toContain('Mochi');
      expect(episodes.join('\n')).toContain('兽医');
      expect(out.results.find((r) => r.kind === 'semantic')?.key).toBe('pet:mochi');
      // Words that hold no such character are not widened: 花瓶 finds the vase and nothing else.
      expect((await engine.call('search', { ownerId, query: '花瓶', mode: 'bm25', kind: 'episodic' })).results).toHaveLength(1);
    });

    it("hands a companion the cat's turns for a question about the cat", async () => {
      const out = await engine.call('loadContext', {
        ownerId,
        query: '我的猫最近怎么样',
        budgetTokens: 400,
        now: '2026-10-01T09:00:00+08:00',
      });
      const related = out.sections.related.flatMap((x) => (x.kind === 'episode' ? x.messages.map((m) => m.text) : []));
      expect(related.join('\n')).toContain('我的猫叫Mochi');
      expect(related.join('\n')).toContain('猫咪最近不爱吃饭');
      expect(related.join('\n')).not.toContain('西湖');
    });
  });
});
