import type { SearchResult } from '../api/types';
import type { Translate } from '../i18n/translate';

/**
 * Why a result matched, in the reader's language, from the result's own data (the engine's
 * `explanation` is the English sentence the CLI prints): the words it shares with the query and
 * their BM25 score, how close in meaning it is, and the period the query named that it is from. Pure.
 */
export function describeMatch(r: Pick<SearchResult, 'reason' | 'scores'>, t: Translate): string {
  const parts: string[] = [];
  const { bm25, vector } = r.scores;
  if (r.reason.matchedBy.includes('bm25') && bm25 !== null) {
    const score = bm25.toFixed(2);
    parts.push(
      r.reason.words.length
        ? t('search.match.words', { terms: r.reason.words.map((w) => t('search.match.term', { w })).join(t('search.match.list')), score })
        : t('search.match.wordsPlain', { score }),
    );
  }
  if (r.reason.matchedBy.includes('vector') && vector !== null) parts.push(t('search.match.meaning', { similarity: vector.toFixed(2) }));
  const { during } = r.reason;
  const when = during === undefined ? null : t('search.match.during', { phrase: during });
  if (parts.length === 0) return when ?? t('search.match.weak');
  const how = parts.length === 1 ? parts[0]! : t('search.match.both', { a: parts[0]!, b: parts[1]! });
  return when ? t('search.match.both', { a: how, b: when }) : how;
}
