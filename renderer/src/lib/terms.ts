/** Which words of a search result to mark. Pure. */

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const CJK = /[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]/;

/**
 * A pattern for the matched terms of a result. Terms come from the engine's tokenizer (English is
 * stemmed: "hiking" → "hike"), so a Latin term also marks the word it starts ("hik" marks "hiking");
 * Chinese terms are marked where they appear.
 */
export function termPattern(terms: readonly string[]): RegExp | null {
  const parts = [...new Set(terms.map((t) => t.trim()).filter(Boolean))]
    .sort((a, b) => b.length - a.length)
    .map((t) => {
      if (CJK.test(t)) return escape(t);
      // Stems drop endings ("hike" from "hiking"): match the stem minus a trailing e, then the rest of the word.
      const stem = t.length > 3 && t.endsWith('e') ? t.slice(0, -1) : t;
      return `(?<![\\p{L}\\p{N}])${escape(stem)}[\\p{L}\\p{N}]*`;
    });
  return parts.length ? new RegExp(parts.join('|'), 'giu') : null;
}

/**
 * What a search result shows under its title: the summary when it says a matched word, otherwise the
 * matching messages of the episode (its text, one message a line), so a person sees why it was found.
 */
export function snippet(summary: string, text: string, pattern: RegExp | null, max = 280): string {
  if (summary && (!pattern || summary.search(pattern) >= 0)) return summary;
  const lines = pattern ? text.split('\n').filter((l) => l.search(pattern) >= 0) : [];
  const shown = lines.length ? lines.slice(0, 2).join(' … ') : summary || text;
  return shown.length > max ? `${shown.slice(0, max - 1).trimEnd()}…` : shown;
}
