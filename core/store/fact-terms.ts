import { factFilterSql, type FactFilters } from './facts.js';
import { Params, type Sql, type WriteTracker } from './sql.js';
import { queryWeights } from './bm25.js';
import { termPairs } from './term-pairs.js';

/**
 * The keyword side of fact search (table `semantic_terms`, and the fact's `term_len` and `tokens`):
 * weighted term frequencies over label, value, context and keywords. A trashed fact keeps its entries;
 * search leaves it out by its tier, so nothing is parked and a restore needs no re-indexing.
 */

export interface FactKeywordHit {
  id: string;
  score: number;
  matchedTerms: string[];
}

export function factTermReads(q: Sql) {
  return {
    /** The two-character terms of the owner's facts that begin or end with each of `chars` (see termPairs). */
    pairsWith: (ownerId: string, chars: readonly string[], per: number) => termPairs(q, 'semantic_terms', ownerId, chars, per),

    /**
     * BM25 over the owner's facts outside the trash, with their number and average length as
     * fact_stats keeps them. Filters narrow the results, not the statistics.
     */
    async search(
      ownerId: string,
      terms: readonly string[],
      o: {
        limit: number;
        filters: FactFilters;
        k1: number;
        b: number;
        /** Other words to match, each with its weight (a query word counts once per time it is given). */
        also?: ReadonlyMap<string, number> | undefined;
      },
    ): Promise<FactKeywordHit[]> {
      if (terms.length === 0) return [];
      const qtf = queryWeights(terms, o.also);
      const p = new Params();
      const owner = p.add(ownerId);
      const k1 = `${p.add(o.k1)}::float8`;
      const b = `${p.add(o.b)}::float8`;
      // One round trip. Postings are read by term first, then their facts by primary key: the order that
      // stays cheap whatever the planner believes about these small, often fresh tables. Equal scores
      // are ordered by key, not by id (ids are random), so every store ranks the same facts alike.
      const filters = factFilterSql(o.filters, p, 'n');
      const r = await q.query<{ node_id: string; score: number; terms: string[] }>(
        `WITH q AS (SELECT * FROM unnest(${p.add([...qtf.keys()])}::text[], ${p.add([...qtf.values()])}::float8[]) AS q(term, qtf)),
              t AS MATERIALIZED (
                SELECT s.node_id, n.key, s.term, s.tf, n.term_len FROM semantic_terms s
                JOIN semantic_nodes n ON n.id = s.node_id AND n.tier <> 'trash'
                WHERE s.owner_id = ${owner} AND s.term = ANY(${p.add([...qtf.keys()])}::text[])),
              st AS (SELECT facts::float8 AS n, GREATEST(term_len / NULLIF(facts, 0), 1)::float8 AS avgdl FROM fact_stats WHERE owner_id = ${owner}),
              w AS (SELECT t.term, q.qtf * ln(1 + (st.n - count(*) + 0.5) / (count(*) + 0.5)) * (${k1} + 1) AS w
                    FROM t JOIN q USING (term) CROSS JOIN st GROUP BY t.term, q.qtf, st.n)
         SELECT t.node_id, sum(w.w * t.tf / (t.tf + ${k1} * (1 - ${b} + ${b} * t.term_len / st.avgdl)))::float8 AS score,
                array_agg(t.term ORDER BY t.term) AS terms
         FROM t JOIN w USING (term) CROSS JOIN st
         ${filters ? `JOIN semantic_nodes n ON n.id = t.node_id${filters}` : ''}
         GROUP BY t.node_id, t.key ORDER BY score DESC, t.key LIMIT ${p.add(o.limit)}`,
        p.values,
      );
      return r.rows.map((x) => ({ id: x.node_id, score: x.score, matchedTerms: x.terms }));
    },
  };
}

export function factTermWrites(q: Sql, track: WriteTracker) {
  return {
    /**
     * Replaces one of the owner's facts' keyword entries, with the document length BM25 normalises by
     * and the token count capacity limits (another owner's fact gets nothing).
     */
    async set(ownerId: string, factId: string, terms: ReadonlyMap<string, number>, length: number, tokens: number): Promise<void> {
      await q.query(`DELETE FROM semantic_terms WHERE owner_id = $1 AND node_id = $2`, [ownerId, factId]);
      const fact = await q.query(`UPDATE semantic_nodes SET term_len = $3, tokens = $4 WHERE owner_id = $1 AND id = $2`, [
        ownerId,
        factId,
        length,
        tokens,
      ]);
      if (terms.size > 0 && (fact.affectedRows ?? 0) > 0) {
        await q.query(
          `INSERT INTO semantic_terms (node_id, owner_id, term, tf) SELECT $2, $1, u.term, u.tf FROM unnest($3::text[], $4::real[]) AS u(term, tf)`,
          [ownerId, factId, [...terms.keys()], [...terms.values()]],
        );
      }
      track.postings(terms.size);
      track.facts(1);
    },
  };
}
