import type { Hit } from './search.js';

/** Why a result is there, in words a person reads next to it. */
export function explainHit(h: Hit): string {
  const parts: string[] = [];
  if (h.matchedBy.includes('bm25') && h.bm25 !== null) {
    parts.push(`keywords ${h.matchedTerms.map((t) => `“${t}”`).join(', ')} (BM25 ${h.bm25.toFixed(2)})`);
  }
  if (h.matchedBy.includes('vector') && h.similarity !== null) {
    parts.push(`close in meaning (similarity ${h.similarity.toFixed(2)})`);
  }
  const when = h.during === undefined ? '' : `around “${h.during}”`;
  if (parts.length === 0) return when || 'weak match';
  return `matched by ${parts.join(' and ')}${when ? `, ${when}` : ''}`;
}
