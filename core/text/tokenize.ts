/**
 * The one tokeniser for BM25: used both when indexing episodes and when parsing a query, so the two
 * sides always agree on what a "term" is.
 *
 * Pipeline: NFKC (full-width → ASCII, compatibility forms folded) → lower case → Intl.Segmenter
 * (locale 'zh', word granularity; Node ships full ICU, whose dictionary segments Chinese and Japanese
 * and falls back to UAX #29 rules for everything else) → keep word-like segments → per-script terms:
 *
 * Latin and other space-delimited scripts
 *   - "’" and "ʼ" count as apostrophes. Every "n't" form is a stopword; a trailing "'s/'m/'re/'ve/'ll/'d"
 *     is stripped ("mother's" → mother, "it's" → it → stopword); other apostrophes are removed
 *     ("o'brien" → obrien).
 *   - Stopwords (./text/stopwords.ts) are dropped; pure a–z words are Porter-stemmed
 *     (running → run, hiking → hike). Tokens with digits or other scripts are kept as they are
 *     ("2023", "3pm", "v2.0", "3.14"); digit groups lose their commas ("1,000" → 1000); dotted
 *     abbreviations lose their dots ("u.s.a." → usa); Latin diacritics are folded ("café" → cafe).
 *   - Hyphenated compounds: the segmenter splits at "-", so "e-mail" yields its parts AND the joined
 *     form: ["e", "mail", "email"]. A query "email" then finds "e-mail" and vice versa. Purely numeric
 *     compounds (dates like 2023-05-08, phone numbers) are not joined.
 *
 * CJK (Han, kana, hangul)
 *   Word segmentation depends on context: "北京大学" may be one word in one sentence and 北京 + 大学 in
 *   another, and the query is segmented without the document's context. Matching words alone would
 *   then miss. So a run of adjacent CJK words emits
 *     - each multi-character word of 3+ characters as a whole (a whole-word match scores extra),
 *     - every character bigram inside each word (a 2-character word IS its only bigram),
 *     - the bigram straddling each word boundary (so a query word still matches when the document
 *       split it differently: 研究生|命 still contains the bigram 生命),
 *     - single-character words as unigrams (猫, 考), because a bigram cannot represent them.
 *   Function words (的, 了, 我, 们…, Japanese particles) are dropped and no bigram straddles them:
 *   "我最" or "的猫" would only be noise. This is the CJKAnalyzer bigram scheme plus segmenter words.
 *   Consequence: when a query string occurs verbatim in a document, the query's bigrams are all in the
 *   document's terms; a query word of 3+ characters or a single-character word may not be (the document
 *   may have segmented it differently), which costs a little score but never the match.
 *
 * Everything else: emoji and punctuation are not word-like and vanish; tokens longer than
 * MAX_TOKEN_LENGTH (base64 blobs, hashes, long URL parts) are dropped, not truncated, because a
 * truncated blob is a random term that only matches other copies of the same blob's prefix.
 *
 * Hot path (100k documents at import): the segmenter and regexes are module-level, the per-token
 * Latin normalisation is memoised in a bounded map, and CJK runs are processed as a stream with no
 * intermediate arrays.
 */
import { stemmer } from 'stemmer';
import { boundedMemo } from './bounded-memo.js';
import { CJK_STOPWORDS, ENGLISH_STOPWORDS } from './stopwords.js';
import { wordSegments } from './word-segments.js';

/** Terms longer than this (UTF-16 code units) are dropped. */
export const MAX_TOKEN_LENGTH = 40;

const APOSTROPHES = /[\u2018\u2019\u02bc]/g;
const CLITIC_SUFFIX = /'(?:s|m|re|ve|ll|d)$/;
const DOTTED_ABBREVIATION = /^(?:\p{L}\.)+\p{L}?\.?$/u;
const DIGIT_GROUPS = /^\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;
const LATIN_WITH_DIACRITIC = /[\u00c0-\u024f\u1e00-\u1eff]/;
const COMBINING_MARKS = /\p{M}+/gu;
const ASCII_WORD = /^[a-z]+$/;
const HAS_LETTER = /\p{L}/u;

/** Han (incl. extensions and compatibility ideographs), kana, hangul, and the CJK iteration marks. */
export function isCjkCodePoint(cp: number): boolean {
  return (
    (cp >= 0x4e00 && cp <= 0x9fff) || // CJK Unified Ideographs
    (cp >= 0x3400 && cp <= 0x4dbf) || // Extension A
    (cp >= 0x3040 && cp <= 0x30ff) || // Hiragana, Katakana (incl. ー)
    (cp >= 0xac00 && cp <= 0xd7af) || // Hangul syllables
    (cp >= 0x1100 && cp <= 0x11ff) || // Hangul Jamo
    (cp >= 0x3130 && cp <= 0x318f) || // Hangul compatibility Jamo
    (cp >= 0x31f0 && cp <= 0x31ff) || // Katakana phonetic extensions
    (cp >= 0x3005 && cp <= 0x3007) || // 々 〆 〇
    (cp >= 0xf900 && cp <= 0xfaff) || // CJK compatibility ideographs
    (cp >= 0x20000 && cp <= 0x3ffff) // Extensions B–H (astral)
  );
}

/**
 * Every Han, kana and hangul character of a text, for counting (`match`) or replacing: a budget counts
 * each as a word, a token estimate as a token. Global, so never `test` with it (it would keep `lastIndex`).
 */
export const CJK_CHARS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;

/** Whether `text` is written (at least partly) in a CJK script. */
export function hasCjk(text: string): boolean {
  for (const ch of text) if (isCjkCodePoint(ch.codePointAt(0)!)) return true;
  return false;
}

/* ---------- Latin (and other space-delimited scripts) ---------- */

/** Raw lower-cased segment → term, or null when the segment yields no term (stopword, too long): bounded for huge imports. */
const latinTerm = boundedMemo(100_000, computeLatinTerm);

function computeLatinTerm(raw: string): string | null {
  if (raw.length > MAX_TOKEN_LENGTH) return null;
  let w = raw;
  if (w.includes("'") || w.includes('\u2019') || w.includes('\u2018') || w.includes('\u02bc')) {
    w = w.replace(APOSTROPHES, "'");
    if (w.endsWith("n't")) return null; // don't, can't, wouldn't…: negated auxiliaries
    w = w.replace(CLITIC_SUFFIX, '').replaceAll("'", '');
  }
  if (w.includes('.') && DOTTED_ABBREVIATION.test(w)) w = w.replaceAll('.', '');
  else if (w.includes(',') && DIGIT_GROUPS.test(w)) w = w.replaceAll(',', '');
  if (LATIN_WITH_DIACRITIC.test(w)) w = w.normalize('NFD').replace(COMBINING_MARKS, '');
  if (w.length === 0 || ENGLISH_STOPWORDS.has(w)) return null;
  return ASCII_WORD.test(w) ? stemmer(w) : w;
}

/* ---------- the tokeniser ---------- */

/**
 * Building episodes reads each message several times (to find topic shifts, to weigh words against the
 * whole memory, to pick the lines that carry the keywords, to index the episode's content): the terms
 * of recent short texts are kept, in two generations of TEXT_CACHE_MAX. When the newer one is full it
 * becomes the older (the older is dropped) and a text found in the older moves back: one map of twice
 * that, cleared when full, made every text an import window had read before the clear a miss when the
 * window was indexed, a second segmentation of thousands of messages. The bound on memory is the same.
 */
const TEXT_CACHE_MAX = 10_000;
const CACHED_TEXT_MAX = 2_000;
let recentTexts = new Map<string, readonly string[]>();
let olderTexts = new Map<string, readonly string[]>();

/**
 * Index terms of `text`, in text order, duplicates kept (BM25 needs term frequencies).
 * Deterministic and pure (the memo caches never change results).
 *
 * A text is read line by line, and a line as its parts before and after each ": ". No word runs
 * across a line break or a space, so the terms are those of the whole; but the parts are what was
 * tokenized before: an episode's content is its messages, one `speaker: text` line each, and building
 * the episode has just read every one of those texts. So the content costs cache lookups, not a
 * second segmentation of every message.
 */
export function tokenize(text: string): string[] {
  if (!text.includes('\n') && !text.includes(': ')) return [...cachedTerms(text)];
  const out: string[] = [];
  for (const line of text.split('\n')) {
    // Not push(...terms): a one-line export can hold millions of terms, more than a call's arguments.
    for (const part of line.split(': ')) for (const t of cachedTerms(part)) out.push(t);
  }
  return out;
}

/**
 * The terms of a text, kept when it is short; never to be changed by the caller. Spaces around a text
 * make no term and end every run, so they are no part of the key: the lists an episode is indexed by
 * are joined with " \n ", and their items were read alone before.
 */
function cachedTerms(raw: string): readonly string[] {
  if (raw.length > CACHED_TEXT_MAX) return termsOf(raw);
  const text = withoutOuterSpaces(raw);
  let terms = recentTexts.get(text);
  if (terms !== undefined) return terms;
  terms = olderTexts.get(text) ?? termsOf(text);
  if (recentTexts.size >= TEXT_CACHE_MAX) {
    olderTexts = recentTexts;
    recentTexts = new Map();
  }
  recentTexts.set(text, terms);
  return terms;
}

function withoutOuterSpaces(s: string): string {
  let from = 0;
  let to = s.length;
  while (from < to && s.charCodeAt(from) === 0x20) from++;
  while (to > from && s.charCodeAt(to - 1) === 0x20) to--;
  return from === 0 && to === s.length ? s : s.slice(from, to);
}

function termsOf(text: string): string[] {
  const out: string[] = [];
  if (text.length === 0) return out;
  const norm = text.normalize('NFKC').toLowerCase();

  // CJK stream state: end offset of the previous CJK segment and its last character, or null
  // when the previous CJK segment was a stopword (no bigram may straddle a stopword).
  let cjkEnd = -1;
  let cjkLast: string | null = null;

  // Hyphen-compound state: joined raw parts, how many parts, and where the last part ended.
  let compound = '';
  let compoundParts = 0;
  let compoundEnd = -1;

  const flushCompound = (): void => {
    // compound is '' when the parts outgrew MAX_TOKEN_LENGTH: the parts alone are indexed then.
    if (compoundParts >= 2 && compound.length > 0 && HAS_LETTER.test(compound)) {
      const t = latinTerm(compound);
      if (t !== null) out.push(t);
    }
    compound = '';
    compoundParts = 0;
  };

  for (const s of wordSegments(norm)) {
    if (!s.isWordLike) continue;
    const seg = s.segment;
    const idx = s.index;
    const first = seg.codePointAt(0) ?? 0;

    if (isCjkCodePoint(first)) {
      flushCompound();
      if (idx !== cjkEnd) cjkLast = null; // a gap (space, punctuation, Latin word) ends the run
      cjkEnd = idx + seg.length;
      if (CJK_STOPWORDS.has(seg)) {
        cjkLast = null;
        continue;
      }
      cjkLast = emitCjkWord(seg, cjkLast, out);
      continue;
    }

    // Latin & co.: a word directly after "<word>-" continues a hyphen compound.
    const hyphenBefore = compoundParts > 0 && idx === compoundEnd + 1 && isHyphen(norm.charCodeAt(compoundEnd));
    if (!hyphenBefore) flushCompound();
    const overflow = compound.length + seg.length > MAX_TOKEN_LENGTH || (compoundParts > 0 && compound.length === 0);
    compound = overflow ? '' : compound + seg;
    compoundParts++;
    compoundEnd = idx + seg.length;
    const t = latinTerm(seg);
    if (t !== null) out.push(t);
  }
  flushCompound();
  return out;
}

/** '-' and the Unicode hyphen (NFKC maps the non-breaking hyphen U+2011 to U+2010). */
function isHyphen(code: number): boolean {
  return code === 0x2d || code === 0x2010;
}

/**
 * Emits the terms of one CJK word (see the module comment) and returns its last character, which
 * the next adjacent word uses for the straddling bigram. `prevLast` is the previous adjacent
 * non-stopword's last character, or null at the start of a run.
 */
function emitCjkWord(seg: string, prevLast: string | null, out: string[]): string {
  // Code points by hand: BMP characters are one UTF-16 unit, astral ones (Extension B…) two.
  const firstWidth = (seg.codePointAt(0) ?? 0) > 0xffff ? 2 : 1;
  const firstChar = firstWidth === 1 ? seg[0]! : seg.slice(0, 2);
  if (prevLast !== null) out.push(prevLast + firstChar);
  if (firstWidth === seg.length) {
    out.push(firstChar); // single-character word: a unigram, no bigram can stand for it
    return firstChar;
  }
  if (seg.length <= MAX_TOKEN_LENGTH && codePointCount(seg) >= 3) out.push(seg);
  let prev = firstChar;
  let i = firstWidth;
  while (i < seg.length) {
    const width = (seg.codePointAt(i) ?? 0) > 0xffff ? 2 : 1;
    const ch = width === 1 ? seg[i]! : seg.slice(i, i + 2);
    out.push(prev + ch);
    prev = ch;
    i += width;
  }
  return prev;
}

function codePointCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++, n++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) i++; // high surrogate: skip its low half
  }
  return n;
}

/** Distinct terms in first-occurrence order: what a query needs (BM25 sums over distinct query terms). */
export function uniqueTerms(text: string): string[] {
  return [...new Set(tokenize(text))];
}
