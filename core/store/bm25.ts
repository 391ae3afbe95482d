import { filterSql, type EpisodeFilters } from './episodes.js';
import { chunks, Params, type Sql, type WriteTracker } from './sql.js';

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
  /**
   * A query reads at most this many postings per term, strongest first. Terms rarer than this are
   * scored exactly; for commoner ones only documents where the term weighs little are left out.
   */
  postingsPerTerm: number;
}

export interface Bm25Hit {
  episodeId: string;
  score: number;
  matchedTerms: string[];
}

/** The collection side of BM25 for some terms: the owner's document count and each term's document frequency. */
export interface Bm25TermStats {
  docCount: number;
  /** Terms no episode contains are absent. */
  df: Map<string, number>;
}

/** Document count and summed field lengths of one owner's indexed episodes. */
export interface Bm25Corpus {
  docCount: number;
  lengths: FieldVector;
}
type Stats = Bm25Corpus;

/** What the stored impacts depend on; `corpus` pins the averages (a full rebuild knows the final ones). */
export type ImpactParams = Pick<Bm25Params, 'k1' | 'b' | 'weights'> & { corpus?: Bm25Corpus | undefined };

/**
 * BM25F (Robertson et al.) split in two: the document side — per-field frequencies normalised by field
 * length, weighted, summed into one pseudo-frequency and saturated with k1 — is the posting's stored
 * impact; the collection side, idf, is applied live at query time.
 */
export function impact(tf: FieldVector, len: FieldVector, stats: Stats, p: Pick<Bm25Params, 'k1' | 'b' | 'weights'>): number {
  let pseudo = 0;
  for (let f = 0; f < 5; f++) {
    if (tf[f] === 0) continue;
    const avg = Math.max(stats.lengths[f]! / Math.max(stats.docCount, 1), 1);
    pseudo += (p.weights[f]! * tf[f]!) / (1 - p.b + (p.b * len[f]!) / avg);
  }
  return pseudo / (p.k1 + pseudo);
}

async function stats(q: Sql, ownerId: string): Promise<Stats> {
  const r = await q.query<{ doc_count: number; l: string[] }>(
    `SELECT doc_count, ARRAY[len_title, len_summary, len_entities, len_topics, len_content]::text[] AS l FROM bm25_stats WHERE owner_id = $1`,
    [ownerId],
  );
  const row = r.rows[0];
  return row ? { docCount: row.doc_count, lengths: row.l.map(Number) as FieldVector } : { docCount: 0, lengths: [0, 0, 0, 0, 0] };
}

/**
 * The index's tables are written only through these: every way a document enters the live index (a
 * fresh indexing, or un-parking after a restore) inserts its rows and adjusts document frequencies
 * and corpus totals the same way. Each takes the SELECT that yields its rows. A document row carries
 * its own postings (terms, impacts): removing it removes them (migration 006's trigger).
 */
const insertDocs = (rows: string) =>
  `INSERT INTO bm25_docs (episode_id, owner_id, len_title, len_summary, len_entities, len_topics, len_content, terms, impacts) ${rows}`;
const insertPostings = (rows: string) => `INSERT INTO bm25_postings (owner_id, term, episode_id, impact) ${rows}`;
const addDocFrequencies = (rows: string) =>
  `INSERT INTO bm25_terms (owner_id, term, df) ${rows}
   ON CONFLICT (owner_id, term) DO UPDATE SET df = bm25_terms.df + EXCLUDED.df`;

async function adjustStats(q: Sql, ownerId: string, sign: 1 | -1, docs: number, lens: FieldVector): Promise<void> {
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

export function bm25Reads(q: Sql) {
  /**
   * The collection side of BM25 for some terms: the owner's document count and each term's document
   * frequency (terms no episode contains are absent). Lets a caller score other units — messages of
   * the found episodes — with the same idf as the index.
   */
  async function readTermStats(ownerId: string, terms: readonly string[]): Promise<Bm25TermStats> {
    const r = await q.query<{ doc_count: number; term: string | null; df: number | null }>(
      `SELECT s.doc_count, t.term, t.df FROM bm25_stats s
       LEFT JOIN bm25_terms t ON t.owner_id = s.owner_id AND t.term = ANY($2::text[])
       WHERE s.owner_id = $1`,
      [ownerId, [...new Set(terms)]],
    );
    const df = new Map<string, number>();
    for (const x of r.rows) if (x.term !== null && x.df !== null) df.set(x.term, x.df);
    return { docCount: r.rows[0]?.doc_count ?? 0, df };
  }

  return {
    /**
     * Top documents for the query terms: Σ over matched terms of idf × stored impact. Without filters
     * each term contributes its `postingsPerTerm` strongest postings (bounded work at any corpus size);
     * with filters every posting is read, so nothing filtered is missed. The statistics it scored
     * with come back too (`termStats` of the distinct terms; null without terms), for a caller that
     * scores other units by them.
     */
    async search(
      ownerId: string,
      terms: readonly string[],
      o: { limit: number; filters: EpisodeFilters; params: Bm25Params },
    ): Promise<{ hits: Bm25Hit[]; termStats: Bm25TermStats | null }> {
      if (terms.length === 0) return { hits: [], termStats: null };
      const qtf = new Map<string, number>();
      for (const t of terms) qtf.set(t, (qtf.get(t) ?? 0) + 1);
      const termStats = await readTermStats(ownerId, [...qtf.keys()]);
      const n = termStats.docCount;
      const matched = [...termStats.df].map(([term, df]) => ({ term, df }));
      if (n <= 0 || matched.length === 0) return { hits: [], termStats };
      // Matched terms come back as a bit mask, so at most 63 distinct terms are scored.
      const found = matched.slice(0, 63);
      const weights = found.map((r) => qtf.get(r.term)! * Math.log(1 + (n - r.df + 0.5) / (r.df + 0.5)) * (o.params.k1 + 1));
      const p = new Params();
      const owner = p.add(ownerId);
      const qt = `unnest(${p.add(found.map((f) => f.term))}::text[], ${p.add(weights)}::float8[], ${p.add(found.map((_, i) => (1n << BigInt(i)).toString()))}::int8[]) AS qt(term, w, bit)`;
      const filters = filterSql(o.filters, p);
      let postings: string;
      if (filters) {
        postings = `SELECT qt.w, qt.bit, x.episode_id, x.impact FROM ${qt}
          JOIN bm25_postings x ON x.owner_id = ${owner} AND x.term = qt.term
          JOIN episodes e ON e.id = x.episode_id AND e.owner_id = ${owner}${filters}`;
      } else {
        postings = `SELECT qt.w, qt.bit, x.episode_id, x.impact FROM ${qt}
          CROSS JOIN LATERAL (SELECT episode_id, impact FROM bm25_postings
                              WHERE owner_id = ${owner} AND term = qt.term
                              ORDER BY impact DESC LIMIT ${p.add(o.params.postingsPerTerm)}) x`;
      }
      const r = await q.query<{ episode_id: string; score: number; mask: string }>(
        `SELECT s.episode_id, sum(s.w * s.impact) AS score, bit_or(s.bit)::text AS mask
         FROM (${postings}) s GROUP BY s.episode_id ORDER BY score DESC, s.episode_id LIMIT ${p.add(o.limit)}`,
        p.values,
      );
      const hits = r.rows.map((x) => {
        const mask = BigInt(x.mask);
        return {
          episodeId: x.episode_id,
          score: x.score,
          matchedTerms: found.filter((_, i) => (mask >> BigInt(i)) & 1n).map((f) => f.term),
        };
      });
      return { hits, termStats };
    },

    /**
     * Compares the maintained totals with what the postings say. All zeros means the index agrees with
     * itself and with the episodes table (used by tests and `health`).
     */
    async verify(
      ownerId: string,
    ): Promise<{ dfMismatches: number; docsWithoutEpisode: number; episodesWithoutDoc: number; statsMismatch: boolean }> {
      const r = await q.query<{ df: number; orphan: number; missing: number; stats: boolean }>(
        `SELECT
           (SELECT count(*)::int FROM (
              SELECT term, count(*) AS n FROM bm25_postings WHERE owner_id = $1 GROUP BY term) p
            FULL JOIN (SELECT term, df FROM bm25_terms WHERE owner_id = $1) t USING (term)
            WHERE p.n IS DISTINCT FROM t.df) AS df,
           (SELECT count(*)::int FROM bm25_docs d WHERE d.owner_id = $1
              AND NOT EXISTS (SELECT 1 FROM episodes e WHERE e.id = d.episode_id AND e.owner_id = $1)) AS orphan,
           (SELECT count(*)::int FROM episodes e WHERE e.owner_id = $1 AND e.tier <> 'trash'
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

    termStats: readTermStats,

    async docCount(ownerId: string): Promise<number> {
      return (await stats(q, ownerId)).docCount;
    },
  };
}

export function bm25Writes(q: Sql, track: WriteTracker) {
  /** Removes documents from the live index and keeps document frequencies and corpus totals exact. */
  async function remove(ownerId: string, episodeIds: readonly string[]): Promise<void> {
    if (episodeIds.length === 0) return;
    const gone = await q.query<{ n: number; postings: number; l1: number; l2: number; l3: number; l4: number; l5: number }>(
      `WITH d AS (DELETE FROM bm25_docs WHERE owner_id = $1 AND episode_id = ANY($2::uuid[]) RETURNING *),
            c AS (SELECT u.term, count(*)::int AS n FROM d, unnest(d.terms) AS u(term) GROUP BY u.term),
            t AS (UPDATE bm25_terms t SET df = t.df - c.n FROM c WHERE t.owner_id = $1 AND t.term = c.term RETURNING 1)
       SELECT count(*)::int AS n, COALESCE(sum(cardinality(terms)), 0)::int AS postings,
              COALESCE(sum(len_title), 0)::int AS l1, COALESCE(sum(len_summary), 0)::int AS l2,
              COALESCE(sum(len_entities), 0)::int AS l3, COALESCE(sum(len_topics), 0)::int AS l4,
              COALESCE(sum(len_content), 0)::int AS l5 FROM d`,
      [ownerId, episodeIds],
    );
    const g = gone.rows[0]!;
    await q.query(`DELETE FROM bm25_terms WHERE owner_id = $1 AND df <= 0`, [ownerId]);
    if (g.n > 0) await adjustStats(q, ownerId, -1, g.n, [g.l1, g.l2, g.l3, g.l4, g.l5]);
    track(g.postings);
  }

  return {
    async add(ownerId: string, docs: readonly Bm25Doc[], params: ImpactParams): Promise<void> {
      if (docs.length === 0) return;
      // Only the owner's episodes are indexed, and a trashed one stays out even when it is edited or
      // re-indexed: its entries are parked until it is restored (`park` / `unpark`).
      const indexable = await q.query<{ id: string }>(
        `SELECT id FROM episodes WHERE owner_id = $1 AND id = ANY($2::uuid[]) AND tier <> 'trash'`,
        [ownerId, docs.map((d) => d.episodeId)],
      );
      if (indexable.rows.length < docs.length) {
        const keep = new Set(indexable.rows.map((r) => r.id));
        docs = docs.filter((d) => keep.has(d.episodeId));
        if (docs.length === 0) return;
      }
      const totals: FieldVector = [0, 0, 0, 0, 0];
      for (const d of docs) d.lengths.forEach((l, i) => (totals[i] = totals[i]! + l));
      await adjustStats(q, ownerId, 1, docs.length, totals);
      // Averages include this batch, so the first documents of a new owner normalise against themselves.
      const st = params.corpus ?? (await stats(q, ownerId));
      const df = new Map<string, number>();
      const rows: { term: string; id: string; impact: number }[] = [];
      const own: { terms: string[]; impacts: number[] }[] = [];
      for (const d of docs) {
        const mine = { terms: [] as string[], impacts: [] as number[] };
        for (const [term, tf] of d.terms) {
          df.set(term, (df.get(term) ?? 0) + 1);
          // Rounded to a float4 here, so the document's copy and the posting hold the very same number.
          const x = Math.fround(impact(tf, d.lengths, st, params));
          rows.push({ term, id: d.episodeId, impact: x });
          mine.terms.push(term);
          mine.impacts.push(x);
        }
        own.push(mine);
      }
      await q.query(
        insertDocs(`SELECT u.id, $1, u.l1, u.l2, u.l3, u.l4, u.l5,
                           ARRAY(SELECT jsonb_array_elements_text(u.terms::jsonb)),
                           ARRAY(SELECT jsonb_array_elements_text(u.impacts::jsonb)::real)
                    FROM unnest($2::uuid[], $3::int[], $4::int[], $5::int[], $6::int[], $7::int[], $8::text[], $9::text[])
                      AS u(id, l1, l2, l3, l4, l5, terms, impacts)`),
        [
          ownerId,
          docs.map((d) => d.episodeId),
          ...[0, 1, 2, 3, 4].map((i) => docs.map((d) => d.lengths[i])),
          own.map((o) => JSON.stringify(o.terms)),
          own.map((o) => JSON.stringify(o.impacts)),
        ],
      );
      for (const batch of chunks(rows, 5000)) {
        await q.query(
          insertPostings(`SELECT $1, u.term, u.id, u.impact FROM unnest($2::text[], $3::uuid[], $4::real[]) AS u(term, id, impact)`),
          [ownerId, batch.map((r) => r.term), batch.map((r) => r.id), batch.map((r) => r.impact)],
        );
      }
      for (const batch of chunks([...df], 5000)) {
        await q.query(addDocFrequencies(`SELECT $1, u.term, u.df FROM unnest($2::text[], $3::int[]) AS u(term, df)`), [
          ownerId,
          batch.map((x) => x[0]),
          batch.map((x) => x[1]),
        ]);
      }
      track(rows.length);
    },

    remove,

    async clear(ownerId: string): Promise<void> {
      await q.query(`DELETE FROM bm25_postings WHERE owner_id = $1`, [ownerId]);
      await q.query(`DELETE FROM bm25_docs WHERE owner_id = $1`, [ownerId]);
      await q.query(`DELETE FROM bm25_terms WHERE owner_id = $1`, [ownerId]);
      await q.query(`DELETE FROM bm25_stats WHERE owner_id = $1`, [ownerId]);
    },

    /**
     * Takes trashed episodes out of the live index, setting their entries aside (impacts and field
     * lengths included) so a restore puts back the very same rows: scores after a restore are the
     * scores before the trash. Document frequencies and corpus totals drop as with `remove`.
     */
    async park(ownerId: string, episodeIds: readonly string[], now: Date): Promise<void> {
      if (episodeIds.length === 0) return;
      await q.query(
        `INSERT INTO bm25_parked (episode_id, owner_id, lengths, terms, impacts, parked_at)
         SELECT d.episode_id, d.owner_id, ARRAY[d.len_title, d.len_summary, d.len_entities, d.len_topics, d.len_content],
                d.terms, d.impacts, $3
         FROM bm25_docs d WHERE d.owner_id = $1 AND d.episode_id = ANY($2::uuid[])
         ON CONFLICT (episode_id) DO NOTHING`,
        [ownerId, episodeIds, now],
      );
      await remove(ownerId, episodeIds);
    },

    /**
     * Puts parked entries back into the live index exactly as they were, restoring document
     * frequencies and corpus totals. Returns the ids that had parked entries.
     */
    async unpark(ownerId: string, episodeIds: readonly string[]): Promise<string[]> {
      if (episodeIds.length === 0) return [];
      const args = [ownerId, episodeIds];
      const which = `p.owner_id = $1 AND p.episode_id = ANY($2::uuid[])`;
      await q.query(
        insertDocs(
          `SELECT p.episode_id, p.owner_id, p.lengths[1], p.lengths[2], p.lengths[3], p.lengths[4], p.lengths[5], p.terms, p.impacts
           FROM bm25_parked p WHERE ${which}`,
        ),
        args,
      );
      const postings = await q.query(
        insertPostings(
          `SELECT p.owner_id, u.term, p.episode_id, u.impact FROM bm25_parked p, unnest(p.terms, p.impacts) AS u(term, impact) WHERE ${which}`,
        ),
        args,
      );
      await q.query(
        addDocFrequencies(
          `SELECT $1::text, u.term, count(*)::int FROM bm25_parked p, unnest(p.terms) AS u(term) WHERE ${which} GROUP BY u.term`,
        ),
        args,
      );
      const gone = await q.query<{ episode_id: string; lengths: number[] }>(
        `DELETE FROM bm25_parked p WHERE ${which} RETURNING p.episode_id, p.lengths`,
        args,
      );
      const lengths: FieldVector = [0, 0, 0, 0, 0];
      for (const row of gone.rows) row.lengths.forEach((l, i) => (lengths[i] = lengths[i]! + l));
      if (gone.rows.length > 0) await adjustStats(q, ownerId, 1, gone.rows.length, lengths);
      track(postings.affectedRows ?? 0);
      return gone.rows.map((x) => x.episode_id);
    },

    /** Drops parked entries that went stale (the episode was edited while in the trash). */
    async dropParked(ownerId: string, episodeIds: readonly string[]): Promise<void> {
      if (episodeIds.length === 0) return;
      await q.query(`DELETE FROM bm25_parked WHERE owner_id = $1 AND episode_id = ANY($2::uuid[])`, [ownerId, episodeIds]);
    },
  };
}
