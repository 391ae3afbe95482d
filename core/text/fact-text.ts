import type { Fact } from '../domain/fact.js';
import { keywords as salientWords } from './keywords.js';
import { CJK_CHARS, tokenize } from './tokenize.js';

/** Field weights of a fact's keyword document: what it is about counts most, where it was said least. */
const WEIGHTS = { label: 3, value: 2, keywords: 2, context: 1 } as const;

type Indexable = Pick<Fact, 'label' | 'value' | 'context' | 'keywords'>;

/** Weighted term frequencies and weighted length of a fact (BM25F folded into one document). */
export function factTerms(n: Indexable): { terms: Map<string, number>; length: number } {
  const terms = new Map<string, number>();
  let length = 0;
  const add = (text: string, w: number) => {
    for (const t of tokenize(text)) {
      terms.set(t, (terms.get(t) ?? 0) + w);
      length += w;
    }
  };
  add(n.label, WEIGHTS.label);
  add(n.value, WEIGHTS.value);
  add(n.keywords.join(' \n '), WEIGHTS.keywords);
  add(n.context, WEIGHTS.context);
  return { terms, length };
}

/** What the embedding model sees, and what de-duplication compares: the fact itself, not where it was said. */
export function factEmbeddingText(n: Pick<Fact, 'label' | 'value'>): string {
  return `${n.label}: ${n.value}`;
}

/**
 * The text a fact hands to an LLM (and what it costs in a retrieval budget): its label, then its value —
 * the value alone when it says every word of the label already ("coffee" and "Lin drinks black coffee";
 * a fact memorized without a key, labelled with its own first words), which would only be said twice.
 */
export function factText(n: Pick<Fact, 'label' | 'value' | 'context'>): string {
  const labelTerms = tokenize(n.label);
  const valueTerms = new Set(tokenize(n.value));
  const said = labelTerms.length > 0 && labelTerms.every((t) => valueTerms.has(t)) ? n.value : `${n.label}: ${n.value}`;
  return n.context ? `${said} (${n.context})` : said;
}

const SPACE_CHAR = /\s/gu;
/** A character outside the Basic Multilingual Plane is two UTF-16 units, and one character. */
const ASTRAL_CHAR = /[\u{10000}-\u{10FFFF}]/gu;

/**
 * A cheap, model-free token estimate for capacity accounting: about four Latin characters per token,
 * one token per CJK character.
 */
export function estimateTokens(text: string): number {
  // Counted with whole-text matches, not a test per character: the evidence packer measures every
  // candidate line it may pack, which made this a tenth of a loadContext.
  const cjk = text.match(CJK_CHARS)?.length ?? 0;
  const spaces = text.match(SPACE_CHAR)?.length ?? 0;
  const astral = text.match(ASTRAL_CHAR)?.length ?? 0;
  return cjk + Math.ceil((text.length - astral - cjk - spaces) / 4);
}

/** Two values say the same thing when they differ only in case, width, spacing or final punctuation. */
export function sameValue(a: string, b: string): boolean {
  const norm = (s: string) =>
    s
      .normalize('NFKC')
      .toLowerCase()
      .replace(/\s+/g, ' ')
      .replace(/[\s.。!！]+$/u, '')
      .trim();
  return norm(a) === norm(b);
}

export function factKeywords(label: string, value: string, given: readonly string[]): string[] {
  return [...new Set([...given.map((k) => k.trim()).filter(Boolean), ...salientWords(`${label} ${value}`, 6)])].slice(0, 12);
}
