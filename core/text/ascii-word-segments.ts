/**
 * Word segments of pure-ASCII text, the very ones Intl.Segmenter gives (word granularity), found by
 * a scan of character classes: ICU costs most of the time an import spends reading words, and most
 * chat text is ASCII. The rules are UAX #29's word boundaries restricted to ASCII, as ICU applies them
 * (its colon is a MidLetter: "a:b" is one word); test/retrieval/word-segments.test.ts compares the two
 * on random ASCII text.
 */

// UAX #29 Word_Break classes of the ASCII characters.
const OTHER = 0;
const LETTER = 1; // ALetter
const NUMERIC = 2;
const MID_LETTER = 3; // ":"
const MID_NUM_LET = 4; // "." and "'" (Single_Quote: the same rules as MidNumLet without Hebrew)
const MID_NUM = 5; // "," and ";"
const EXTEND_NUM_LET = 6; // "_"
const SPACE = 7; // WSegSpace: " " only (a tab is Other)
const CR = 8;
const LF = 9;
const NEWLINE = 10; // vertical tab, form feed

const CLASS = new Uint8Array(128);
for (let c = 0x41; c <= 0x5a; c++) CLASS[c] = LETTER;
for (let c = 0x61; c <= 0x7a; c++) CLASS[c] = LETTER;
for (let c = 0x30; c <= 0x39; c++) CLASS[c] = NUMERIC;
CLASS[0x3a] = MID_LETTER;
CLASS[0x2e] = MID_NUM_LET;
CLASS[0x27] = MID_NUM_LET;
CLASS[0x2c] = MID_NUM;
CLASS[0x3b] = MID_NUM;
CLASS[0x5f] = EXTEND_NUM_LET;
CLASS[0x20] = SPACE;
CLASS[0x0d] = CR;
CLASS[0x0a] = LF;
CLASS[0x0b] = NEWLINE;
CLASS[0x0c] = NEWLINE;

/** Whether `text` is all ASCII, so asciiWordSegments may segment it. */
export const isAscii = (text: string): boolean => /^[\x00-\x7f]*$/.test(text);

/** The class at `i`; OTHER past either end (no rule joins across the text's ends). */
function classAt(text: string, i: number): number {
  return i >= 0 && i < text.length ? CLASS[text.charCodeAt(i)]! : OTHER;
}

/** UAX #29 rules WB3–WB13b between `i - 1` and `i` (WB4 does not apply: ASCII has no Extend or Format). */
function breaksBefore(text: string, i: number): boolean {
  const a = classAt(text, i - 1);
  const b = classAt(text, i);
  if (a === CR && b === LF) return false; // WB3
  if (a === CR || a === LF || a === NEWLINE || b === CR || b === LF || b === NEWLINE) return true; // WB3a, WB3b
  if (a === SPACE && b === SPACE) return false; // WB3d
  if ((a === LETTER || a === NUMERIC) && (b === LETTER || b === NUMERIC)) return false; // WB5, WB8, WB9, WB10
  // WB6, WB7: a letter, "." ":" or "'", a letter.
  if (a === LETTER && (b === MID_LETTER || b === MID_NUM_LET) && classAt(text, i + 1) === LETTER) return false;
  if ((a === MID_LETTER || a === MID_NUM_LET) && b === LETTER && classAt(text, i - 2) === LETTER) return false;
  // WB11, WB12: a digit, "." "," ";" or "'", a digit.
  if (a === NUMERIC && (b === MID_NUM || b === MID_NUM_LET) && classAt(text, i + 1) === NUMERIC) return false;
  if ((a === MID_NUM || a === MID_NUM_LET) && b === NUMERIC && classAt(text, i - 2) === NUMERIC) return false;
  if ((a === LETTER || a === NUMERIC || a === EXTEND_NUM_LET) && b === EXTEND_NUM_LET) return false; // WB13a
  if (a === EXTEND_NUM_LET && (b === LETTER || b === NUMERIC)) return false; // WB13b
  return true; // WB999
}

/**
 * The segments of an ASCII `text`, offsets shifted by `offset`. A segment is word-like when ICU says so:
 * one that starts with a letter or digit, or a run joined by "_" (a lone "_" is not).
 */
export function* asciiWordSegments(text: string, offset: number): Generator<{ segment: string; index: number; isWordLike: boolean }> {
  let start = 0;
  for (let i = 1; i <= text.length; i++) {
    if (i < text.length && !breaksBefore(text, i)) continue;
    const first = CLASS[text.charCodeAt(start)]!;
    yield {
      segment: text.slice(start, i),
      index: offset + start,
      isWordLike: first === LETTER || first === NUMERIC || (first === EXTEND_NUM_LET && i - start > 1),
    };
    start = i;
  }
}
