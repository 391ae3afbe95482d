import { describe, expect, it } from 'vitest';
import { matchedWords } from '../../core/retrieval/explain.js';
import { tokenize } from '../../core/text/tokenize.js';

describe('the words a result matched, as the query says them', () => {
  it('names an English word as typed, not by its stem, in the order of the query', () => {
    expect(matchedWords('Hiking trips to Hakone?')(['hakon', 'hike'])).toEqual(['Hiking', 'Hakone']);
  });

  it('names a Chinese word once for all its bigrams, however the query was segmented', () => {
    expect(matchedWords('龙井 自行车')(['自行', '行车', '龙井'])).toEqual(['龙井', '自行车']);
    // What a text that says 骑自行车 has of the query 龙井自行车 (segmented 龙井|自行|车, or 龙井|自行车).
    const inText = new Set(tokenize('周六去西湖骑自行车'));
    expect(matchedWords('龙井自行车')(tokenize('龙井自行车').filter((t) => inText.has(t)))).toEqual(['自行车']);
  });

  it('names a word found inside a longer one as the text has it', () => {
    expect(matchedWords('我的猫')(['猫咪'])).toEqual(['猫咪']);
    expect(matchedWords('猫 and cats')(['猫咪', 'cat', '猫'])).toEqual(['猫', 'cats', '猫咪']);
  });
});
