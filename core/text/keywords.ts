import { CJK_STOPWORDS } from './stopwords.js';
import { tokenize } from './tokenize.js';

const wordSegmenter = new Intl.Segmenter('zh', { granularity: 'word' });

/**
 * Salient words of a text, in their readable surface form: terms are counted by their BM25 stem (so
 * "hike", "hiking", "hiked" add up) and shown as the form used most often.
 */
export function keywords(text: string, limit: number, exclude: ReadonlySet<string> = new Set()): string[] {
  const count = new Map<string, number>();
  const surface = new Map<string, Map<string, number>>();
  for (const seg of wordSegmenter.segment(text)) {
    if (!seg.isWordLike) continue;
    const word = seg.segment;
    // Single letters, short Latin fragments and single CJK characters (去, 点, 下: mostly function
    // words and verbs of motion) are noise as keywords even when they are valid search terms.
    if (/^[\p{Script=Latin}\d]{1,2}$/u.test(word) || /^\d+$/.test(word) || /^\p{Script=Han}$/u.test(word)) continue;
    // Han words containing a function character (也不, 我妈, 在家) rarely name a topic.
    if (/^\p{Script=Han}+$/u.test(word) && [...word].some((ch) => CJK_STOPWORDS.has(ch))) continue;
    for (const term of tokenize(word)) {
      if (exclude.has(term) || exclude.has(word.toLowerCase())) continue;
      if (term.length < 2 && !/\p{Script=Han}/u.test(term)) continue;
      count.set(term, (count.get(term) ?? 0) + 1);
      const forms = surface.get(term) ?? new Map<string, number>();
      forms.set(word, (forms.get(word) ?? 0) + 1);
      surface.set(term, forms);
      break;
    }
  }
  return [...count]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, limit)
    .map(([term]) => [...surface.get(term)!].sort((a, b) => b[1] - a[1])[0]![0]);
}

/** Capitalised words (or acronyms) not at the start of a sentence, joined when consecutive. */
const NAME = /(?<![.!?]\s|^)\b(?:\p{Lu}[\p{Ll}'’]+|\p{Lu}{2,})(?:\s+(?:\p{Lu}[\p{Ll}'’]+|\p{Lu}{2,}))*/gu;
const NOT_NAMES = new Set([
  'I', "I'm", 'OK', 'Oh', 'Hey', 'Hi', 'Yes', 'No', 'Thanks', 'Wow', 'The', 'It', 'That', 'This', 'LOL', 'OMG',
  'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday',
  'January', 'February', 'March', 'April', 'June', 'July', 'August', 'September', 'October', 'November', 'December',
]);

/**
 * Likely names of people, places and things: capitalised words that do not start a sentence. Crude,
 * but it is what a heuristic can know; the LLM builder replaces it with real entity extraction.
 */
export function properNouns(text: string, limit: number): string[] {
  const count = new Map<string, number>();
  for (const line of text.split('\n')) {
    for (const m of line.matchAll(NAME)) {
      const name = m[0].replace(/['’]s$/, '');
      if (NOT_NAMES.has(name)) continue;
      count.set(name, (count.get(name) ?? 0) + 1);
    }
  }
  return [...count].sort((a, b) => b[1] - a[1]).slice(0, limit).map(([n]) => n);
}
