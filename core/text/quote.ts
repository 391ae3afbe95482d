import { sentenceSpans } from './sentences.js';
import { CJK_CHARS, tokenize } from './tokenize.js';

/** Words as a budget counts them: whitespace-separated, each CJK character one word. */
export function countWords(text: string): number {
  const cjk = text.match(CJK_CHARS)?.length ?? 0;
  const rest = cjk ? text.replace(CJK_CHARS, ' ') : text;
  let n = 0;
  for (const w of rest.split(/\s+/)) if (w) n++;
  return n + cjk;
}

/** The first `n` words of a text (CJK characters one each), with an ellipsis when it was cut; `cost`: another measure than words. */
export function cutToWords(text: string, n: number, cost: (s: string) => number = countWords): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (cost(t) <= n) return t;
  const pieces = [
    ...t.matchAll(
      /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]|[^\s\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu,
    ),
  ];
  // After a CJK character the ellipsis stands alone and counts as a word itself.
  for (let k = Math.min(n, pieces.length); k > 0; k--) {
    const last = pieces[k - 1]!;
    const cut = `${t.slice(0, last.index + last[0].length).trimEnd()}…`;
    if (cost(cut) <= n) return cut;
  }
  return '…';
}

/**
 * A long text quoted within `max` words (or units of `cost`) by what matters to a query: its sentences
 * that hold the most of `terms` (index terms, as `tokenize` makes them), then the sentences nearest
 * them — what follows a matching sentence first, it usually explains it — in the text's order, with
 * "…" where sentences are left out. Without a matching sentence, its opening. A text within `max` is
 * returned whole (spaces folded).
 */
export function excerpt(text: string, terms: readonly string[], max: number, cost: (s: string) => number = countWords): string {
  const whole = text.replace(/\s+/g, ' ').trim();
  if (cost(whole) <= max) return whole;
  const wanted = new Set(terms);
  const sentences = sentenceSpans(text).map((x, i) => ({ i, ...x, hits: 0 }));
  for (const s of sentences) s.hits = wanted.size ? new Set(tokenize(text.slice(s.from, s.to)).filter((t) => wanted.has(t))).size : 0;
  // How far each sentence is from a matching one (one before it counts double); the opening without any.
  const distance = sentences.map((s) => (s.hits > 0 ? 0 : Infinity));
  if (!distance.includes(0)) distance.forEach((_, i) => (distance[i] = i));
  for (let i = 1; i < distance.length; i++) distance[i] = Math.min(distance[i]!, distance[i - 1]! + 1);
  for (let i = distance.length - 2; i >= 0; i--) distance[i] = Math.min(distance[i]!, distance[i + 1]! + 2);
  const order = [...sentences].sort((a, b) => b.hits - a.hits || distance[a.i]! - distance[b.i]! || a.i - b.i);
  const chosen: typeof sentences = [];
  // Runs of neighbouring sentences are quoted as the text has them (code keeps its dots and spaces).
  const assemble = (xs: typeof sentences) => {
    const sorted = [...xs].sort((a, b) => a.i - b.i);
    const runs: string[] = [];
    for (let k = 0; k < sorted.length;) {
      let end = k;
      while (end + 1 < sorted.length && sorted[end + 1]!.i === sorted[end]!.i + 1) end++;
      runs.push(text.slice(sorted[k]!.from, sorted[end]!.to).replace(/\s+/g, ' ').trim());
      k = end + 1;
    }
    const out = runs.join(' … ');
    return `${sorted[0]!.i > 0 ? '… ' : ''}${out}${sorted.at(-1)!.i < sentences.length - 1 ? ' …' : ''}`;
  };
  // A sentence adds its own words and at most one "…": only a sentence near the limit is tried whole.
  let used = 0;
  for (const s of order) {
    if (used >= max) break;
    const n = cost(text.slice(s.from, s.to).replace(/\s+/g, ' ').trim());
    if (used + n > max) continue;
    if (used + n + 1 > max && cost(assemble([...chosen, s])) > max) continue;
    chosen.push(s);
    used = cost(assemble(chosen));
  }
  // Not even the best sentence fits: its beginning.
  if (chosen.length === 0) return cutToWords(order[0] ? text.slice(order[0].from, order[0].to) : whole, max, cost);
  return assemble(chosen);
}
