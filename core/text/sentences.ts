/**
 * Where sentences end, for every reader that cuts a text into them (summaries, excerpts, the words of a
 * title): an end mark before a space or the text's end (not the dots inside 3.5, a web address or
 * `[...xs].sort()`), with the closing quotes and brackets after it, a CJK end mark, a line break — but
 * not the period of a title or a Latin abbreviation ("Dr. Alvarez", "e.g. tea"), which would cut a
 * name from its title or a sentence in two.
 */
const SENTENCE_END = /[.!?]+["'”’)\]]*(?=\s|$)|[。！？]+|\n/gu;

/** Words whose period is part of the word: titles before a name, and Latin abbreviations. */
const ABBREVIATIONS = new Set(['dr', 'mr', 'mrs', 'ms', 'mx', 'prof', 'st', 'mt', 'e.g', 'i.e', 'vs', 'cf', 'approx']);

/** Whether the word before a period is one whose period ends no sentence ("Dr" in "Dr. Alvarez"). */
export function isAbbreviation(word: string): boolean {
  return ABBREVIATIONS.has(word.toLowerCase());
}

/** Whether the period at `at` belongs to the word before it ("Dr. Alvarez", "e.g. tea") instead of ending a sentence. */
export function abbreviationAt(text: string, at: number): boolean {
  if (text[at] !== '.') return false;
  const word = /[\p{L}.]*\p{L}$/u.exec(text.slice(Math.max(0, at - 12), at))?.[0] ?? '';
  return isAbbreviation(word);
}

/** The sentences of a text (and the lines of a list or of code), as spans; empty ones left out. */
export function sentenceSpans(text: string): { from: number; to: number }[] {
  const spans: { from: number; to: number }[] = [];
  let from = 0;
  for (const m of text.matchAll(SENTENCE_END)) {
    const end = m.index + m[0].length;
    if (m[0] === '.' && end < text.length && abbreviationAt(text, m.index)) continue;
    spans.push({ from, to: end });
    from = end;
  }
  if (from < text.length) spans.push({ from, to: text.length });
  return spans.filter((x) => text.slice(x.from, x.to).trim());
}

/**
 * The sentences of a message, each with the space before it. A line break alone ends none: chat
 * messages wrap sentences over lines ("Check-in after 3pm,\nand they said…").
 */
export function sentences(text: string): string[] {
  const flat = text.replace(/\n/g, ' ');
  return sentenceSpans(flat).map((x) => flat.slice(x.from, x.to));
}
