import type { Sql } from './sql.js';
import { vectorParam } from './sql.js';
import { signBits } from './vectors.js';

/**
 * The bare SQL our searches reduce to, for the scale benchmark: the same tables queried with nothing
 * around them, so its numbers show what tokenising, fusion and result assembly cost on top.
 */
export function baselineReads(q: Sql) {
  return {
    /** The exhaustive posting-list scan: every posting of every query term, idf × impact, no pruning. */
    async bm25(ownerId: string, terms: readonly string[], limit: number): Promise<number> {
      const r = await q.query(
        `SELECT u.doc_no, sum(u.impact * ln(1 + (st.doc_count - t.df + 0.5)::float8 / (t.df + 0.5))) AS s
         FROM bm25_terms t
         JOIN bm25_posting_lists p ON p.owner_id = t.owner_id AND p.term_id = t.id
         CROSS JOIN unnest(p.docs, p.impacts) AS u(doc_no, impact)
         JOIN bm25_stats st ON st.owner_id = t.owner_id
         WHERE t.owner_id = $1 AND t.term = ANY($2::text[])
         GROUP BY u.doc_no ORDER BY s DESC LIMIT $3`,
        [ownerId, terms, limit],
      );
      return r.rows.length;
    },

    /** Plain pgvector kNN over the same HNSW index (sign bits, no exact re-ranking). */
    async knn(ownerId: string, modelId: string, dimensions: number, vector: Float32Array, limit: number): Promise<number> {
      const lit = `'${modelId.replace(/'/g, "''")}'`;
      const r = await q.query(
        `SELECT episode_id FROM episode_embeddings
         WHERE model_id = ${lit} AND owner_id = $1
         ORDER BY ${signBits('embedding', dimensions)} <~> ${signBits('$2::real[]', dimensions)} LIMIT $3`,
        [ownerId, vectorParam(vector), limit],
      );
      return r.rows.length;
    },
  };
}
