import { describe, expect, it } from 'vitest';
import { wordSegments } from '../../core/text/word-segments.js';

const icu = new Intl.Segmenter('zh', { granularity: 'word' });
const segmentsOf = (text: string) => [...wordSegments(text)].map((s) => [s.segment, s.index, s.isWordLike]);
const icuSegmentsOf = (text: string) => [...icu.segment(text)].map((s) => [s.segment, s.index, s.isWordLike ?? false]);

/** A deterministic generator (the same texts on every run). */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}

describe('word segments', () => {
  it('cuts ASCII text exactly where ICU does, word-like or not', () => {
    const fixed = [
      "don't stop: it's 3.14, or 1,000; u.s.a. v2.0 e-mail a:b a..b 1.a a.1 '5 x_.y __ _ a_1 _1 1_",
      'tabs\tand  spaces\r\nlines\n\nform\ffeed\u000bvtab "quoted" #tag @who $5 (x) [y] {z} ~!%^&*+=|\\/<>?`',
    ];
    // Letters, digits and every ASCII character a word-break rule names, with the others now and then.
    const pool = "aabbxyzAZ0123456789....'''',,,;;;::__  -\"\t\r\n\u000b\u000c!?#$%&()*+/<=>@[\\]^`{|}~\u0000\u007f";
    const next = random(16);
    const texts = [...fixed];
    for (let k = 0; k < 20_000; k++) {
      let t = '';
      for (let i = Math.floor(next() * 24); i > 0; i--)
        t += next() < 0.1 ? String.fromCharCode(Math.floor(next() * 128)) : pool[Math.floor(next() * pool.length)];
      texts.push(t);
    }
    for (const t of texts) expect(segmentsOf(t), JSON.stringify(t)).toEqual(icuSegmentsOf(t));
  });

  it('gives ICU’s segments for text mixing scripts, in pieces of a long text', () => {
    const mixed = 'Meet at 北京大学 at 3pm — café ok? 我们明天见 🙂 bye.';
    expect(segmentsOf(mixed)).toEqual(icuSegmentsOf(mixed));
    // Pieces end after a space: the offsets run on through the whole text.
    const long = 'word '.repeat(450) + mixed;
    const segments = [...wordSegments(long)];
    expect(segments.map((s) => s.segment).join('')).toBe(long);
    for (const s of segments) expect(long.slice(s.index, s.index + s.segment.length)).toBe(s.segment);
  });
});
