import type { Sql } from './sql.js';

/**
 * The two-character terms of an owner's keyword index (episodes' or facts') that begin or end with
 * each of `chars`, the `per` most frequent for each: what a one-character Chinese query word also
 * matches (core/retrieval/char-words.ts). Those beginning with c are the index's range from c up to c
 * followed by the last code point; those ending with it, a partial index's (migration 017).
 */
export async function termPairs(
  q: Sql,
  table: 'bm25_terms' | 'semantic_terms',
  ownerId: string,
  chars: readonly string[],
  per: number,
): Promise<string[]> {
  if (chars.length === 0) return [];
  // Episode terms keep their document frequency; a fact's term has a row per fact.
  const [df, grouped] = table === 'bm25_terms' ? ['t.df', ' AND t.df > 0'] : ['count(*)', ' GROUP BY t.term'];
  const side = (end: string) =>
    `SELECT t.term, ${df} AS df FROM ${table} t WHERE t.owner_id = $1 AND ${end} AND char_length(t.term) = 2${grouped}`;
  const r = await q.query<{ term: string }>(
    `SELECT w.term FROM unnest($2::text[]) AS c(ch) CROSS JOIN LATERAL (
       SELECT term, df FROM (${side('t.term > c.ch AND t.term < c.ch || chr(1114111)')} UNION ${side('right(t.term, 1) = c.ch')}) ends
       ORDER BY df DESC, term LIMIT $3) w`,
    [ownerId, chars, per],
  );
  return [...new Set(r.rows.map((x) => x.term))];
}
