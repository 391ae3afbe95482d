import type { Sql } from './sql.js';

/**
 * The two-character terms of an owner's keyword index (episodes' or facts') that begin or end with
 * each of `chars`, the `per` most frequent for each: what a one-character Chinese query word also
 * matches (core/retrieval/char-words.ts). Those beginning with c are the range of the index by term
 * from c up to c followed by the last code point; those ending with it, migration 017's partial index.
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
  // The range's two-character terms are picked out after it is read (OFFSET 0 keeps the planner from
  // pushing the length into it): said in its WHERE, the length lets the planner read the whole partial
  // index instead, 135 ms a character at 20k episodes.
  const starting = `SELECT t.term, ${df} AS df FROM ${table} t WHERE t.owner_id = $1 AND t.term > c.ch AND t.term < c.ch || chr(1114111)${grouped} OFFSET 0`;
  const ending = `SELECT t.term, ${df} AS df FROM ${table} t WHERE t.owner_id = $1 AND right(t.term, 1) = c.ch AND char_length(t.term) = 2${grouped}`;
  const r = await q.query<{ term: string }>(
    `SELECT w.term FROM unnest($2::text[]) AS c(ch) CROSS JOIN LATERAL (
       SELECT term, df FROM (SELECT * FROM (${starting}) s WHERE char_length(s.term) = 2 UNION ${ending}) ends
       ORDER BY df DESC, term LIMIT $3) w`,
    [ownerId, chars, per],
  );
  return [...new Set(r.rows.map((x) => x.term))];
}
