import { filterSql, type EpisodeFilters } from './episodes.js';
import { chunks, Params, type Sql } from './sql.js';

/** Field order used by every array below: title, summary, entities, topics, content. */
export const BM25_FIELDS = ['title', 'summary', 'entities', 'topics', 'content'] as const;
export type FieldVector = [number, number, number, number, number];

export interface Bm25Doc {
  episodeId: string;
  /** term → frequency in each field */
  terms: Map<string, FieldVector>;
  lengths: FieldVector;
}

export interface Bm25Params {
  k1: number;
  b: number;
  weights: FieldVector;
}

export interface Bm25Hit {
  episodeId: string;
  score: number;
  matchedTerms: string[];
}

const SMALLINT_MAX = 32767;

export function bm25Repo(q: Sql) {
  async function adjustStats(ownerId: string, sign: 1 | -1, docs: number, lens: FieldVector): Promise<void> {
    await q.query(
      `INSERT INTO bm25_stats (owner_id, doc_count, len_title, len_summary, len_entities, len_topics, len_content)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (owner_id) DO UPDATE SET
         doc_count = bm25_stats.doc_count + EXCLUDED.doc_count,
         len_title = bm25_stats.len_title + EXCLUDED.len_title,
         len_summary = bm25_stats.len_summary + EXCLUDED.len_summary,
         len_entities = bm25_stats.len_entities + EXCLUDED.len_entities,
         len_topics = bm25_stats.len_topics + EXCLUDED.len_topics,
         len_content = bm25_stats.len_content + EXCLUDED.len_content`,
      [ownerId, sign * docs, ...lens.map((l) => sign * l)],
    );
  }

  return {
    async add(ownerId: string, docs: readonly Bm25Doc[]): Promise<void> {
      if (docs.length === 0) return;
      const totals: FieldVector = [0, 0, 0, 0, 0];
      const df = new Map<string, number>();
      const rows: { term: string; id: string; tf: FieldVector; len: FieldVector }[] = [];
      for (const d of docs) {
        d.lengths.forEach((l, i) => (totals[i] = totals[i]! + l));
        for (const [term, tf] of d.terms) {
          df.set(term, (df.get(term) ?? 0) + 1);
          rows.push({ term, id: d.episodeId, tf: tf.map((x) => Math.min(x, SMALLINT_MAX)) as FieldVector, len: d.lengths });
        }
      }
      await q.query(
        `INSERT INTO bm25_docs (episode_id, owner_id, len_title, len_summary, len_entities, len_topics, len_content)
         SELECT u.id, $1, u.l1, u.l2, u.l3, u.l4, u.l5
         FROM unnest($2::uuid[], $3::int[], $4::int[], $5::int[], $6::int[], $7::int[]) AS u(id, l1, l2, l3, l4, l5)`,
        [ownerId, docs.map((d) => d.episodeId), ...[0, 1, 2, 3, 4].map((i) => docs.map((d) => d.lengths[i]))],
      );
      for (const batch of chunks(rows, 5000)) {
        const col = (i: number, pick: 'tf' | 'len') => batch.map((r) => r[pick][i]);
        await q.query(
          `INSERT INTO bm25_postings (owner_id, term, episode_id, tf_title, tf_summary, tf_entities, tf_topics, tf_content,
                                      len_title, len_summary, len_entities, len_topics, len_content)
           SELECT $1, u.* FROM unnest($2::text[], $3::uuid[], $4::int2[], $5::int2[], $6::int2[], $7::int2[], $8::int2[],
                                      $9::int[], $10::int[], $11::int[], $12::int[], $13::int[]) AS u`,
          [ownerId, batch.map((r) => r.term), batch.map((r) => r.id),
           ...[0, 1, 2, 3, 4].map((i) => col(i, 'tf')), ...[0, 1, 2, 3, 4].map((i) => col(i, 'len'))],
        );
      }
      for (const batch of chunks([...df], 5000)) {
        await q.query(
          `INSERT INTO bm25_terms (owner_id, term, df) SELECT $1, u.term, u.df FROM unnest($2::text[], $3::int[]) AS u(term, df)
           ON CONFLICT (owner_id, term) DO UPDATE SET df = bm25_terms.df + EXCLUDED.df`,
          [ownerId, batch.map((x) => x[0]), batch.map((x) => x[1])],
        );
      }
      await adjustStats(ownerId, 1, docs.length, totals);
    },

    /** Removes documents and keeps document frequencies and corpus totals exact. */
    async remove(ownerId: string, episodeIds: readonly string[]): Promise<void> {
      if (episodeIds.length === 0) return;
      const gone = await q.query<{ n: number; l1: number; l2: number; l3: number; l4: number; l5: number }>(
        `WITH d AS (DELETE FROM bm25_docs WHERE owner_id = $1 AND episode_id = ANY($2::uuid[]) RETURNING *)
         SELECT count(*)::int AS n, COALESCE(sum(len_title), 0)::int AS l1, COALESCE(sum(len_summary), 0)::int AS l2,
                COALESCE(sum(len_entities), 0)::int AS l3, COALESCE(sum(len_topics), 0)::int AS l4,
                COALESCE(sum(len_content), 0)::int AS l5 FROM d`,
        [ownerId, episodeIds],
      );
      const g = gone.rows[0]!;
      await q.query(
        `WITH p AS (DELETE FROM bm25_postings WHERE owner_id = $1 AND episode_id = ANY($2::uuid[]) RETURNING term),
              c AS (SELECT term, count(*)::int AS n FROM p GROUP BY term)
         UPDATE bm25_terms t SET df = t.df - c.n FROM c WHERE t.owner_id = $1 AND t.term = c.term`,
        [ownerId, episodeIds],
      );
      await q.query(`DELETE FROM bm25_terms WHERE owner_id = $1 AND df <= 0`, [ownerId]);
      if (g.n > 0) await adjustStats(ownerId, -1, g.n, [g.l1, g.l2, g.l3, g.l4, g.l5]);
    },

    async clear(ownerId: string): Promise<void> {
      await q.query(`DELETE FROM bm25_postings WHERE owner_id = $1`, [ownerId]);
      await q.query(`DELETE FROM bm25_docs WHERE owner_id = $1`, [ownerId]);
      await q.query(`DELETE FROM bm25_terms WHERE owner_id = $1`, [ownerId]);
      await q.query(`DELETE FROM bm25_stats WHERE owner_id = $1`, [ownerId]);
    },

    /**
     * BM25F (Robertson et al.): per-field term frequencies are length-normalised per field, weighted and
     * summed into one pseudo-frequency, then saturated once with k1. idf is the Lucene-style non-negative
     * form. Everything is computed from the live postings and totals, so scores always match the data.
     */
    async search(
      ownerId: string,
      terms: readonly string[],
      o: { limit: number; filters: EpisodeFilters; params: Bm25Params; within?: readonly string[] | undefined },
    ): Promise<Bm25Hit[]> {
      if (terms.length === 0) return [];
      const p = new Params();
      const owner = p.add(ownerId);
      const k1 = p.add(o.params.k1);
      const b = p.add(o.params.b);
      const w = o.params.weights.map((x) => p.add(x));
      const termList = p.add(terms);
      const norm = (field: string, i: number) =>
        `${w[i]}::float8 * p.tf_${field} / (1 - ${b}::float8 + ${b}::float8 * p.len_${field} / GREATEST(st.len_${field}::float8 / st.doc_count, 1))`;
      const pseudoTf = BM25_FIELDS.map(norm).join(' + ');
      const within = o.within ? ` AND p.episode_id = ANY(${p.add(o.within)}::uuid[])` : '';
      const filters = filterSql(o.filters, p);
      const joinEpisodes = filters ? ` JOIN episodes e ON e.id = p.episode_id AND e.owner_id = ${owner}${filters}` : '';
      const r = await q.query<{ episode_id: string; score: number; terms: string[] }>(
        `WITH st AS (SELECT * FROM bm25_stats WHERE owner_id = ${owner} AND doc_count > 0),
              qt AS (SELECT term, count(*)::float8 AS qtf FROM unnest(${termList}::text[]) AS t(term) GROUP BY term),
              qi AS (SELECT qt.term, qt.qtf, ln(1 + (st.doc_count - bt.df + 0.5) / (bt.df + 0.5)) AS idf
                     FROM qt JOIN bm25_terms bt ON bt.owner_id = ${owner} AND bt.term = qt.term CROSS JOIN st)
         SELECT p.episode_id, sum(qi.qtf * qi.idf * x.tf * (${k1}::float8 + 1) / (${k1}::float8 + x.tf)) AS score,
                array_agg(qi.term) AS terms
         FROM qi JOIN bm25_postings p ON p.owner_id = ${owner} AND p.term = qi.term${within}
         CROSS JOIN st
         CROSS JOIN LATERAL (SELECT ${pseudoTf} AS tf) x${joinEpisodes}
         GROUP BY p.episode_id ORDER BY score DESC, p.episode_id LIMIT ${p.add(o.limit)}`,
        p.values,
      );
      return r.rows.map((x) => ({ episodeId: x.episode_id, score: x.score, matchedTerms: x.terms }));
    },

    /**
     * Compares the maintained totals with what the postings say. All zeros means the index agrees with
     * itself and with the episodes table (used by tests and `health`).
     */
    async verify(ownerId: string): Promise<{ dfMismatches: number; docsWithoutEpisode: number; episodesWithoutDoc: number; statsMismatch: boolean }> {
      const r = await q.query<{ df: number; orphan: number; missing: number; stats: boolean }>(
        `SELECT
           (SELECT count(*)::int FROM (
              SELECT term, count(*) AS n FROM bm25_postings WHERE owner_id = $1 GROUP BY term) p
            FULL JOIN (SELECT term, df FROM bm25_terms WHERE owner_id = $1) t USING (term)
            WHERE p.n IS DISTINCT FROM t.df) AS df,
           (SELECT count(*)::int FROM bm25_docs d WHERE d.owner_id = $1
              AND NOT EXISTS (SELECT 1 FROM episodes e WHERE e.id = d.episode_id AND e.owner_id = $1)) AS orphan,
           (SELECT count(*)::int FROM episodes e WHERE e.owner_id = $1
              AND NOT EXISTS (SELECT 1 FROM bm25_docs d WHERE d.episode_id = e.id)) AS missing,
           (SELECT COALESCE((SELECT doc_count FROM bm25_stats WHERE owner_id = $1), 0)
                   <> (SELECT count(*) FROM bm25_docs WHERE owner_id = $1)
                OR COALESCE((SELECT len_content FROM bm25_stats WHERE owner_id = $1), 0)
                   <> COALESCE((SELECT sum(len_content) FROM bm25_docs WHERE owner_id = $1), 0)) AS stats`,
        [ownerId],
      );
      const row = r.rows[0]!;
      return { dfMismatches: row.df, docsWithoutEpisode: row.orphan, episodesWithoutDoc: row.missing, statsMismatch: row.stats };
    },

    async docCount(ownerId: string): Promise<number> {
      const r = await q.query<{ doc_count: number }>(`SELECT doc_count FROM bm25_stats WHERE owner_id = $1`, [ownerId]);
      return r.rows[0]?.doc_count ?? 0;
    },
  };
}
export type Bm25Repo = ReturnType<typeof bm25Repo>;
