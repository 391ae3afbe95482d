import { isCjkCodePoint } from '../text/tokenize.js';

/**
 * A one-character Chinese (or Japanese) query word, and the words the index holds that character in.
 * The segmenter reads "我的猫叫Mochi" as 我的 / 猫叫 and "猫咪很可爱" as 猫咪 / 很 / 可爱, so "猫" alone
 * matches neither, and a person searching for their cat finds only where 猫 stood alone. Such a
 * query word also matches the two-character words that begin or end with it, each at this weight
 * (a query word counts 1): they are the character in context (猫咪, 小猫, 猫粮) more often than not,
 * though not always (熊猫 is a panda). Longer words are indexed with their two-character parts too.
 */
export const CHAR_WORD_WEIGHT = 0.5;

/**
 * How many of the index's such words a character matches at most (the most frequent ones), and how
 * many of a query's characters are widened so (the first ones): a common character is in hundreds of
 * words (一起, 一下, 一样 …), and each word matched is one more list of postings for the search to read.
 */
export const CHAR_WORDS_PER_CHAR = 4;
export const CHARS_WIDENED = 3;

/** The query terms that are one CJK character: those the segmenter read as words of their own (猫 in 我的猫). */
export function loneChars(terms: Iterable<string>): string[] {
  return [...new Set(terms)].filter((t) => [...t].length === 1 && isCjkCodePoint(t.codePointAt(0)!)).slice(0, CHARS_WIDENED);
}

/** Whether `word` is two characters and begins or ends with `char`. */
export function holdsChar(word: string, char: string): boolean {
  const cs = [...word];
  return cs.length === 2 && (cs[0] === char || cs[1] === char);
}

/**
 * The words of `vocabulary` a query's lone characters also match, with their weight, leaving out the
 * query's own terms. `vocabulary`: the words to choose from (the index's, or the candidates' own).
 */
export function charWords(query: ReadonlySet<string> | ReadonlyMap<string, number>, vocabulary: Iterable<string>): Map<string, number> {
  const chars = loneChars(query.keys());
  const out = new Map<string, number>();
  if (chars.length === 0) return out;
  for (const w of vocabulary) if (!query.has(w) && chars.some((c) => holdsChar(w, c))) out.set(w, CHAR_WORD_WEIGHT);
  return out;
}
