/**
 * Intl.Segmenter over text of any length. ICU's word segmenter slows down more than linearly on long
 * strings (200 KB of English: 45 s in one call, 0.15 s in 1,000-character pieces), and one long message
 * or a one-line export made an import hang. So text is segmented in bounded pieces, each cut after a
 * space or sentence punctuation where there is one, so no word is split (a piece without any — a long
 * CJK run, a blob — is cut at the bound, which can split one word there).
 */

import { asciiWordSegments, isAscii } from './ascii-word-segments.js';

/** One word segmenter for every caller: 'zh' makes ICU use its CJ dictionary; other scripts segment the same under any locale. */
const wordSegmenter = new Intl.Segmenter('zh', { granularity: 'word' });

const PIECE = 1_000;
const CUT_AFTER = /[\s。！？，、；：.!?,;:]/u;

export interface WordSegment {
  segment: string;
  /** Offset in the whole text. */
  index: number;
  isWordLike: boolean;
}

/** Where the piece starting at `from` ends: after the last separator in its second half, else at the bound. */
function pieceEnd(text: string, from: number): number {
  const bound = from + PIECE;
  if (bound >= text.length) return text.length;
  for (let i = bound - 1; i > from + PIECE / 2; i--) if (CUT_AFTER.test(text[i]!)) return i + 1;
  const code = text.charCodeAt(bound - 1);
  return code >= 0xd800 && code <= 0xdbff ? bound - 1 : bound; // never between a surrogate pair
}

/** The segments of `text`, in order, with offsets into the whole text. Time linear in its length. */
export function* wordSegments(text: string): Generator<WordSegment> {
  for (let from = 0; from < text.length;) {
    const to = pieceEnd(text, from);
    const piece = text.slice(from, to);
    // The same segments as ICU's, several times faster (core/text/ascii-word-segments.ts).
    if (isAscii(piece)) yield* asciiWordSegments(piece, from);
    else
      for (const s of wordSegmenter.segment(piece)) yield { segment: s.segment, index: from + s.index, isWordLike: s.isWordLike ?? false };
    from = to;
  }
}
