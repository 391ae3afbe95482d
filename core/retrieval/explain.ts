import { hasCjk, tokenize } from '../text/tokenize.js';
import { wordSegments } from '../text/word-segments.js';
import type { Hit } from './search.js';

/**
 * For a query, the words of it that a hit's matched terms come from, as the person typed them, in the
 * query's order: "Hakone" for the stem "hakon", "自行车" for its bigrams 自行 and 行车. A term the query
 * does not hold (a word found inside a longer one: 开车 for the query's 车) is shown as it is, after
 * them. The query is read once for all of a search's hits.
 */
export function matchedWords(query: string): (terms: readonly string[]) => string[] {
  const text = query.normalize('NFKC');
  const lower = text.toLowerCase();
  const words = [...wordSegments(text)]
    .filter((s) => s.isWordLike)
    .map((s) => ({ from: s.index, to: s.index + s.segment.length, terms: new Set(tokenize(s.segment)) }));
  return (terms) => wordsOf(text, lower, words, terms);
}

function wordsOf(
  text: string,
  lower: string,
  words: readonly { from: number; to: number; terms: ReadonlySet<string> }[],
  terms: readonly string[],
): string[] {
  const at = new Map<string, number>();
  const add = (word: string, from: number) => at.set(word, Math.min(at.get(word) ?? Infinity, from));
  for (const t of terms) {
    const own = words.find((w) => w.terms.has(t));
    if (own) {
      add(text.slice(own.from, own.to), own.from);
      continue;
    }
    // A bigram across two of the query's words (自行|车 → 行车) is from both.
    const from = lower.indexOf(t);
    const across = from < 0 ? [] : words.filter((w) => w.from < from + t.length && w.to > from);
    if (across.length) add(text.slice(across[0]!.from, across.at(-1)!.to), across[0]!.from);
    else add(t, Infinity);
  }
  const sorted = [...at].sort((a, b) => a[1] - b[1]);
  const typed = sorted.filter(([, from]) => from < Infinity).map(([w]) => w);
  // A Chinese word of the query inside another one shown (自行 beside 自行车) says nothing more.
  return [
    ...typed.filter((w) => !(hasCjk(w) && typed.some((o) => o !== w && o.includes(w)))),
    ...sorted.filter(([, from]) => from === Infinity).map(([w]) => w),
  ];
}

/** Why a result is there, in words a person reads next to it; `words`: the query's words it matched (matchedWords). */
export function explainHit(h: Hit, words: readonly string[]): string {
  const parts: string[] = [];
  if (h.matchedBy.includes('bm25') && h.bm25 !== null) {
    parts.push(`keywords ${words.map((t) => `“${t}”`).join(', ')} (BM25 ${h.bm25.toFixed(2)})`);
  }
  if (h.matchedBy.includes('vector') && h.similarity !== null) {
    parts.push(`close in meaning (similarity ${h.similarity.toFixed(2)})`);
  }
  const when = h.during === undefined ? '' : `around “${h.during}”`;
  if (parts.length === 0) return when || 'weak match';
  return `matched by ${parts.join(' and ')}${when ? `, ${when}` : ''}`;
}
