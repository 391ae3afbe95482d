/**
 * The token estimate every budget is counted in (the knowledge store's capacity, loadContext's block):
 * about four Latin characters per token, one per CJK character, whitespace free — counted per character,
 * so a character beyond the Basic Multilingual Plane (an emoji, a rare Han character) is one, not two.
 */
import { describe, expect, it } from 'vitest';
import { estimateTokens } from '../../core/text/fact-text.js';

describe('estimateTokens', () => {
  it.each([
    ['', 0],
    ['   \n\t', 0],
    ['hello world', 3], // 10 letters
    ['abcd', 1],
    ['abcde', 2],
    ['我昨天去爬山了', 7],
    ['我去了 Hangzhou', 5], // 3 Han + 8 letters
    ['こんにちは カタカナ 한국어', 12],
    ['😀👍', 1], // two characters, four UTF-16 units
    ['𠀀𠀁', 2], // Han beyond the BMP: one token each
    ['full\u3000width\u00a0spaces', 4], // 15 letters; ideographic and no-break spaces are whitespace
  ])('%j → %i', (text, tokens) => {
    expect(estimateTokens(text)).toBe(tokens);
  });
});
