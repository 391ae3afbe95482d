import { filterSql, keepsFew, type EpisodeFilters } from './episodes.js';
import { bestByPostingsRead, type ReadScores } from './bm25-postings.js';
import { BLOCK, intoBlocks, packBlocks, type Waiting } from './bm25-blocks.js';
import { termPairs } from './term-pairs.js';
import {
  chunks,
  flattened,
  float4Array,
  float8Array,
  int4Array,
  int8Array,
  Params,
  textArray,
  uuidArray,
  withReferencesChecked,
  type Sql,
  type WriteTracker,
} from './sql.js';

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
  /**
   * The best this many documents by the postings read get the weight of the cut terms they hold but
   * whose postings were not read, from their own entries: a document that holds several of the
   * query's common terms, none of them strongly, is ranked by all of them. 0: scores stay those of
   * the postings read.
   */
  rescoreDepth: number;
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

/** A document entering the live index: its field lengths and its postings, impacts already computed. */
interface IndexEntry {
  episodeId: string;
  lengths: FieldVector;
  terms: string[];
  impacts: number[];
}

function entryOf(d: Bm25Doc, st: Stats, params: ImpactParams): IndexEntry {
  const e: IndexEntry = { episodeId: d.episodeId, lengths: d.lengths, terms: [], impacts: [] };
  for (const [term, tf] of d.terms) {
    e.terms.push(term);
    // Rounded to a float4 here, so the document's copy and the posting hold the very same number.
    e.impacts.push(Math.fround(impact(tf, d.lengths, st, params)));
  }
  return e;
}

async function adjustStats(q: Sql, ownerId: string, sign: 1 | -1, docs: number, postings: number, lens: FieldVector): Promise<void> {
  await q.query(
    `INSERT INTO bm25_stats (owner_id, doc_count, len_title, len_summary, len_entities, len_topics, len_content, postings)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (owner_id) DO UPDATE SET
       doc_count = bm25_stats.doc_count + EXCLUDED.doc_count,
       postings = bm25_stats.postings + EXCLUDED.postings,
       len_title = bm25_stats.len_title + EXCLUDED.len_title,
       len_summary = bm25_stats.len_summary + EXCLUDED.len_summary,
       len_entities = bm25_stats.len_entities + EXCLUDED.len_entities,
       len_topics = bm25_stats.len_topics + EXCLUDED.len_topics,
       len_content = bm25_stats.len_content + EXCLUDED.len_content`,
    [ownerId, sign * docs, ...lens.map((l) => sign * l), sign * postings],
  );
}

/**
 * Terms' new postings as flat parameters: from[i]..to[i] (1-based, inclusive) of the documents and
 * impacts arrays are the i-th term's.
 */
function postingLists(terms: readonly (readonly [string, readonly { doc: number; impact: number }[]])[]): Uint8Array[] {
  const { items, from, to } = flattened(terms.map(([, postings]) => postings));
  return [int4Array(from), int4Array(to), int4Array(items.map((x) => x.doc)), float4Array(items.map((x) => x.impact))];
}

/**
 * Puts documents into the live index: interns their terms (new ones get the owner's next ids), numbers
 * the documents and writes their rows. A term's newest postings wait on its own row (bm25_terms.docs,
 * impacts) until there are a block's worth: most terms never have more, and need no block row at all.
 * Then they move into blocks — merged with the term's blocks into one sorted run once the postings
 * since its last merge are a quarter of all of them, so each posting is rewritten a handful of times
 * over the index's growth and a query meets few unmerged runs. Every way a document enters the index
 * (a fresh indexing, un-parking after a restore) goes through here; corpus totals are the caller's.
 */
async function insertEntries(q: Sql, ownerId: string, entries: readonly IndexEntry[]): Promise<void> {
  // Documents are numbered first: the numbers are what their terms' postings hold.
  const counter = await q.query<{ doc0: number }>(
    `INSERT INTO bm25_stats (owner_id, doc_count, len_title, len_summary, len_entities, len_topics, len_content, next_doc)
     VALUES ($1, 0, 0, 0, 0, 0, 0, $2)
     ON CONFLICT (owner_id) DO UPDATE SET next_doc = bm25_stats.next_doc + $2
     RETURNING next_doc - $2 AS doc0`,
    [ownerId, entries.length],
  );
  const doc0 = counter.rows[0]!.doc0;
  const byTerm = new Map<string, { doc: number; impact: number }[]>();
  entries.forEach((e, i) =>
    e.terms.forEach((t, j) => {
      let postings = byTerm.get(t);
      if (!postings) byTerm.set(t, (postings = []));
      postings.push({ doc: doc0 + i + 1, impact: e.impacts[j]! });
    }),
  );

  // Known terms' waiting postings grow on their rows, found by the term itself: their ids come back,
  // and whether they now hold a block's worth — as one JSON value, not a row each: PGlite parses rows
  // field by field in JS, and a window's ~4,000 terms took as long to parse as to find.
  const known = new Map<string, number>();
  const full: Waiting[] = [];
  const merged = new Set<number>();
  for (const batch of chunks([...byTerm], 5000)) {
    const r = await q.query<{ rows: [k: number, id: number, waiting: number, merging: boolean][] | null }>(
      `WITH u AS (
         UPDATE bm25_terms t SET df = t.df + u.b - u.a + 1, fresh = t.fresh + u.b - u.a + 1,
           docs = t.docs || ($5::int[])[u.a:u.b], impacts = t.impacts || ($6::real[])[u.a:u.b]
         FROM unnest($2::text[], $3::int[], $4::int[]) WITH ORDINALITY AS u(term, a, b, k)
         WHERE t.owner_id = $1 AND t.term = u.term
         RETURNING u.k::int AS k, t.id, cardinality(t.docs) AS waiting, 4 * t.fresh >= t.df AS merging)
       SELECT json_agg(json_build_array(k, id, waiting, merging)) AS rows FROM u`,
      [ownerId, textArray(batch.map(([t]) => t)), ...postingLists(batch)],
    );
    for (const [k, id, waiting, merging] of r.rows[0]?.rows ?? []) {
      known.set(batch[k - 1]![0], id);
      if (waiting < BLOCK) continue;
      full.push({ id, waiting });
      if (merging) merged.add(id);
    }
  }

  // New terms get the owner's next ids, in the order the documents first use them, and their rows.
  const added = [...byTerm].filter(([t]) => !known.has(t));
  if (added.length > 0) {
    const counted = await q.query<{ term0: number }>(
      `UPDATE bm25_stats SET next_term = next_term + $2 WHERE owner_id = $1 RETURNING next_term - $2 AS term0`,
      [ownerId, added.length],
    );
    const term0 = counted.rows[0]!.term0;
    added.forEach(([t], i) => known.set(t, term0 + i + 1));
  }
  // A new term's postings are all fresh: once there are a block's worth, they are one run.
  await insertTerms(
    q,
    ownerId,
    added.map(([term, postings]) => ({
      term,
      id: known.get(term)!,
      df: postings.length,
      fresh: postings.length,
      docs: postings.map((x) => x.doc),
      impacts: postings.map((x) => x.impact),
    })),
  );
  for (const [t, postings] of added) {
    if (postings.length < BLOCK) continue;
    full.push({ id: known.get(t)!, waiting: postings.length });
    merged.add(known.get(t)!);
  }

  await insertDocs(
    q,
    ownerId,
    entries.map((e) => ({ ...e, termIds: e.terms.map((t) => known.get(t)!) })),
    doc0,
  );
  if (full.length > 0) await intoBlocks(q, ownerId, full, merged);
}

/** Writes terms' rows, each with the postings waiting on it. */
async function insertTerms(
  q: Sql,
  ownerId: string,
  rows: readonly { term: string; id: number; df: number; fresh: number; docs: readonly number[]; impacts: readonly number[] }[],
): Promise<void> {
  for (const batch of chunks(rows, 5000)) {
    const docs = flattened(batch.map((r) => r.docs));
    await q.query(
      `INSERT INTO bm25_terms (owner_id, term, id, df, fresh, docs, impacts)
       SELECT $1, u.term, u.id, u.df, u.fresh, COALESCE(($8::int[])[u.a:u.b], '{}'), COALESCE(($9::real[])[u.a:u.b], '{}')
       FROM unnest($2::text[], $3::int[], $4::int[], $5::int[], $6::int[], $7::int[]) AS u(term, id, df, fresh, a, b)`,
      [
        ownerId,
        textArray(batch.map((r) => r.term)),
        int4Array(batch.map((r) => r.id)),
        int4Array(batch.map((r) => r.df)),
        int4Array(batch.map((r) => r.fresh)),
        int4Array(docs.from),
        int4Array(docs.to),
        int4Array(docs.items),
        float4Array(flattened(batch.map((r) => r.impacts)).items),
      ],
    );
  }
}

/**
 * Writes documents' own rows, numbered doc0 + 1, doc0 + 2, …: field lengths and postings as term ids.
 * Every document's episode is stored (its caller read them just before; parked entries go with their
 * episode): no foreign-key lookup per document.
 */
async function insertDocs(
  q: Sql,
  ownerId: string,
  docs: readonly { episodeId: string; lengths: FieldVector; termIds: readonly number[]; impacts: readonly number[] }[],
  doc0: number,
): Promise<void> {
  // A document's own arrays are slices of the flat ones.
  const ids = flattened(docs.map((d) => d.termIds));
  const impacts = flattened(docs.map((d) => d.impacts)).items;
  await withReferencesChecked(q, () =>
    q.query(
      `INSERT INTO bm25_docs (episode_id, owner_id, doc_no, len_title, len_summary, len_entities, len_topics, len_content, term_ids, impacts)
       SELECT u.id, $1, u.no, u.l1, u.l2, u.l3, u.l4, u.l5, COALESCE(($11::int[])[u.a:u.b], '{}'), COALESCE(($12::real[])[u.a:u.b], '{}')
       FROM unnest($2::uuid[], $3::int[], $4::int[], $5::int[], $6::int[], $7::int[], $8::int[], $9::int[], $10::int[])
         AS u(id, no, l1, l2, l3, l4, l5, a, b)`,
      [
        ownerId,
        uuidArray(docs.map((d) => d.episodeId)),
        int4Array(docs.map((_, i) => doc0 + i + 1)),
        ...[0, 1, 2, 3, 4].map((f) => int4Array(docs.map((d) => d.lengths[f]!))),
        int4Array(ids.from),
        int4Array(ids.to),
        int4Array(ids.items),
        float4Array(impacts),
      ],
    ),
  );
}

interface TermRow {
  term: string;
  id: number;
  df: number;
}

/** A keyword query's weight per term: how often it was given, and each of `also` at its own weight. */
export function queryWeights(terms: readonly string[], also?: ReadonlyMap<string, number>): Map<string, number> {
  const qtf = new Map<string, number>();
  for (const t of terms) qtf.set(t, (qtf.get(t) ?? 0) + 1);
  for (const [t, w] of also ?? []) if (!qtf.has(t)) qtf.set(t, w);
  return qtf;
}

/**
 * A filtered keyword search scores the episodes the filters keep by their own documents when they are
 * fewer than the terms' postings and no more than this: a search naming last weeks at 100k episodes
 * looked up, best first, the episode of each of 16,682 documents holding "books" for the 60 it wanted.
 */
const FEW_KEPT = 2000;

/**
 * How many of the documents a filtered search that keeps many episodes scores and sorts itself, best
 * first, before looking up which are of kept episodes; the others are scored and sorted by Postgres
 * only when those hold too few. Searching a year of 100k episodes, SQL took 31 ms to sum and sort
 * 8,000 postings' documents, and sorting all of them here 2–8 ms for 8,000–30,000.
 */
const SORTED_FIRST = 2048;

export function bm25Reads(q: Sql) {
  /**
   * The owner's document count and the rows of those of `terms` some document contains, in the query's
   * order: matched terms are listed as the person wrote them, and the first 63 are the ones scored.
   * The rows come as one JSON value (see insertEntries): building an episode asks for thousands.
   */
  async function readTerms(ownerId: string, terms: readonly string[]): Promise<{ docCount: number; rows: TermRow[] }> {
    const wanted = [...new Set(terms)];
    const r = await q.query<{ doc_count: number; terms: [term: string, id: number, df: number][] | null }>(
      `SELECT s.doc_count, (SELECT json_agg(json_build_array(t.term, t.id, t.df)) FROM bm25_terms t
                            WHERE t.owner_id = s.owner_id AND t.term = ANY($2::text[])) AS terms
       FROM bm25_stats s WHERE s.owner_id = $1`,
      [ownerId, wanted],
    );
    const at = new Map(wanted.map((t, i) => [t, i]));
    const rows = (r.rows[0]?.terms ?? []).map(([term, id, df]) => ({ term, id, df })).sort((a, b) => at.get(a.term)! - at.get(b.term)!);
    return { docCount: r.rows[0]?.doc_count ?? 0, rows };
  }

  /**
   * The collection side of BM25 for some terms: the owner's document count and each term's document
   * frequency (terms no episode contains are absent). Lets a caller score other units — messages of
   * the found episodes — with the same idf as the index.
   */
  async function readTermStats(ownerId: string, terms: readonly string[]): Promise<Bm25TermStats> {
    const { docCount, rows } = await readTerms(ownerId, terms);
    return { docCount, df: new Map(rows.map((x) => [x.term, x.df])) };
  }

  return {
    /** The two-character terms of the owner's index that begin or end with each of `chars` (see termPairs). */
    pairsWith: (ownerId: string, chars: readonly string[], per: number) => termPairs(q, 'bm25_terms', ownerId, chars, per),

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
      o: {
        limit: number;
        filters: EpisodeFilters;
        params: Bm25Params;
        /** Other words to match, each with its weight (a query word counts once per time it is given). */
        also?: ReadonlyMap<string, number> | undefined;
      },
    ): Promise<{ hits: Bm25Hit[]; termStats: Bm25TermStats | null }> {
      if (terms.length === 0) return { hits: [], termStats: null };
      const qtf = queryWeights(terms, o.also);
      const { docCount: n, rows: matched } = await readTerms(ownerId, [...qtf.keys()]);
      const termStats = { docCount: n, df: new Map(matched.map((x) => [x.term, x.df])) };
      if (n <= 0 || matched.length === 0) return { hits: [], termStats };
      // Matched terms come back as a bit mask, so at most 63 distinct terms are scored.
      const found = matched.slice(0, 63);
      const weights = found.map((r) => qtf.get(r.term)! * Math.log(1 + (n - r.df + 0.5) / (r.df + 0.5)) * (o.params.k1 + 1));
      const p = new Params();
      const owner = p.add(ownerId);
      const bits = found.map((_, i) => (1n << BigInt(i)).toString());
      const termList = (which: readonly number[], alias: string) =>
        `unnest(${p.add(which.map((i) => found[i]!.id))}::int[], ${p.add(which.map((i) => weights[i]!))}::float8[], ${p.add(which.map((i) => bits[i]!))}::int8[]) AS ${alias}(term_id, w, bit)`;
      const filters = filterSql(o.filters, p, 'bySpan');
      // Terms whose postings were not all read. The best documents by what was read — the ties at the
      // cut come along, so the final order breaks them — get these terms' weight from their own entries
      // where they hold them unread: at 100k synthetic episodes the top 10 shared 56 % of their
      // episodes with exact BM25's, 82 % so (for 1–3 ms a query); without cut terms nothing changes.
      const cut = filters || o.params.rescoreDepth === 0 ? [] : found.flatMap((f, i) => (f.df > o.params.postingsPerTerm ? [i] : []));
      const depth = cut.length > 0 ? Math.max(o.limit, o.params.rescoreDepth) : o.limit;
      // The best documents by the postings read, as (doc_no, score, mask).
      let best: string;
      const scored = (per: number, depth: number) =>
        bestByPostingsRead(
          q,
          ownerId,
          found.map((f, i) => ({ id: f.id, weight: weights[i]! })),
          { per, depth },
        );
      const scoredRows = (read: ReadScores) =>
        `unnest(${p.add(int4Array(read.docs))}::int[], ${p.add(float8Array(read.scores))}::float8[], ${p.add(int8Array(read.masks))}::int8[])`;
      const allTerms = () =>
        termList(
          found.map((_, i) => i),
          'qt',
        );
      // The first `depth` documents of kept episodes, best first, each looked up on its own: the best
      // SORTED_FIRST by every posting of the terms, scored here and taken in their order (WITH
      // ORDINALITY); then, only when those hold too few, the others, scored and sorted by Postgres (an
      // Append runs its branches in turn, and the limit stops it before the second when it can).
      const keptBestFirst = async () => {
        const first = await scored(Infinity, SORTED_FIRST);
        const kept = `CROSS JOIN LATERAL (SELECT 1 FROM bm25_docs d JOIN episodes e ON e.id = d.episode_id AND e.owner_id = ${owner}${filters}
                                          WHERE d.owner_id = ${owner} AND d.doc_no = s.doc_no LIMIT 1) kept`;
        const score = 'sum(qt.w * u.impact ORDER BY qt.bit)';
        return `(SELECT * FROM (
            (SELECT s.doc_no, s.score, s.mask FROM ${scoredRows(first)} WITH ORDINALITY AS s(doc_no, score, mask, o) ${kept} ORDER BY s.o)
            UNION ALL
            (SELECT s.doc_no, s.score, s.mask
             FROM (SELECT u.doc_no, ${score} AS score, bit_or(qt.bit) AS mask
                   FROM ${allTerms()} JOIN bm25_posting_lists x ON x.owner_id = ${owner} AND x.term_id = qt.term_id
                   CROSS JOIN unnest(x.docs, x.impacts) AS u(doc_no, impact)
                   GROUP BY u.doc_no HAVING ${score} < ${p.add(first.scores.at(-1) ?? -Infinity)}::float8
                   ORDER BY score DESC, u.doc_no) s ${kept})
          ) b LIMIT ${p.add(depth)})`;
      };
      if (filters) {
        // A score adds its terms in the query's order, as the postings read do: summed in the order the
        // rows come, a score would depend on where the blocks lie in the table, and alike episodes could
        // swap by its last bit. Read whichever is fewer (up to FEW_KEPT): the episodes the filters keep, each
        // scored by its own document (its impacts are the very numbers its postings hold); or every
        // posting of the terms, then the documents best first until enough of them are of kept episodes
        // (keptBestFirst; joined to the episodes instead, the filters were planned as a scan of every
        // episode: a few days of 100k took ~70 ms for 43 episodes).
        const postings = found.reduce((n, f) => n + f.df, 0);
        best = (await keepsFew(q, ownerId, o.filters, Math.min(postings - 1, FEW_KEPT), n))
          ? `(SELECT d.doc_no, sum(qt.w * d.impacts[at] ORDER BY qt.bit) AS score, bit_or(qt.bit) AS mask
                FROM episodes e JOIN bm25_docs d ON d.episode_id = e.id AND d.owner_id = ${owner}
                CROSS JOIN ${allTerms()} CROSS JOIN LATERAL array_position(d.term_ids, qt.term_id) AS at
                WHERE e.owner_id = ${owner}${filters} AND at IS NOT NULL
                GROUP BY d.doc_no ORDER BY score DESC FETCH FIRST ${p.add(depth)} ROWS WITH TIES)`
          : await keptBestFirst();
      } else best = scoredRows(await scored(o.params.postingsPerTerm, depth));
      // Without cut terms the document rows are not read, only their index (which holds the episode id).
      const unread = cut.length
        ? `CROSS JOIN LATERAL (
             SELECT COALESCE(sum(c.w * d.impacts[at]), 0) AS score, COALESCE(bit_or(c.bit), 0) AS mask
             FROM ${termList(cut, 'c')} CROSS JOIN LATERAL array_position(d.term_ids, c.term_id) AS at
             WHERE s.mask & c.bit = 0 AND at IS NOT NULL) x`
        : `CROSS JOIN (SELECT 0::float8 AS score, 0::int8 AS mask) x`;
      // Equal scores come in the order their episodes were indexed, not by id (ids are random): the
      // same conversations give the same ranking in every store built from them.
      const r = await q.query<{ episode_id: string; score: number; mask: string }>(
        `SELECT d.episode_id, s.score + x.score AS score, (s.mask | x.mask)::text AS mask
         FROM ${best} AS s(doc_no, score, mask)
         JOIN bm25_docs d ON d.owner_id = ${owner} AND d.doc_no = s.doc_no
         ${unread}
         ORDER BY 2 DESC, d.doc_no LIMIT ${p.add(o.limit)}`,
        p.values,
        // A few thousand documents are read at worst on any plan: past them, a period's plan is its own.
        { planEachRun: filters !== '' && n > FEW_KEPT },
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
     * itself and with the episodes table (used by tests and `health`). `postings: false` leaves out
     * comparing every posting with its document's own copy and every block's shape (null then): at
     * 100k episodes that takes ~30 s, the rest ~1 s — and the database answers nothing else meanwhile.
     * `documents: false` leaves out the documents of missing episodes and the episodes without one
     * (null then), for a caller that counts those already (`health`, with core/store/integrity.ts).
     *
     * A term's postings are counted from its blocks' own counts (an index-only read) and its waiting
     * list, not by reading every block's arrays: at 100k episodes 0.3 s instead of 0.7–1.4. A block
     * whose count disagrees with its arrays is a wrong shape, which the postings comparison finds.
     */
    async verify(
      ownerId: string,
      o: { postings?: boolean; documents?: boolean } = {},
    ): Promise<{
      dfMismatches: number;
      postingMismatches: number | null;
      docsWithoutEpisode: number | null;
      episodesWithoutDoc: number | null;
      statsMismatch: boolean;
    }> {
      const postings = o.postings ?? true;
      const documents = o.documents ?? true;
      const r = await q.query<{ df: number; postings: number | null; orphan: number | null; missing: number | null; stats: boolean }>(
        `SELECT
           (SELECT count(*)::int FROM (SELECT id, df, cardinality(docs) AS waiting FROM bm25_terms WHERE owner_id = $1) t
            FULL JOIN (SELECT term_id, sum(n) AS n FROM bm25_postings WHERE owner_id = $1 GROUP BY term_id) b ON b.term_id = t.id
            WHERE t.id IS NULL OR t.waiting + COALESCE(b.n, 0) = 0 OR t.waiting + COALESCE(b.n, 0) <> t.df) AS df,
           -- Postings in the lists and not in their documents' own, or the other way round, and blocks
           -- whose counts, bounds or order are off.
           ${
             postings
               ? `(SELECT count(*)::int FROM (
              (SELECT b.term_id, u.doc_no, u.impact FROM bm25_posting_lists b, unnest(b.docs, b.impacts) AS u(doc_no, impact)
               WHERE b.owner_id = $1
               EXCEPT ALL
               SELECT u.term_id, d.doc_no, u.impact FROM bm25_docs d, unnest(d.term_ids, d.impacts) AS u(term_id, impact)
               WHERE d.owner_id = $1)
              UNION ALL
              (SELECT u.term_id, d.doc_no, u.impact FROM bm25_docs d, unnest(d.term_ids, d.impacts) AS u(term_id, impact)
               WHERE d.owner_id = $1
               EXCEPT ALL
               SELECT b.term_id, u.doc_no, u.impact FROM bm25_posting_lists b, unnest(b.docs, b.impacts) AS u(doc_no, impact)
               WHERE b.owner_id = $1)) x)
           + (SELECT count(*)::int FROM bm25_postings b WHERE b.owner_id = $1
                AND (b.n NOT BETWEEN 1 AND ${BLOCK} OR cardinality(b.docs) <> b.n OR cardinality(b.impacts) <> b.n
                     OR b.impacts[1] <> b.max_impact OR b.impacts[b.n] <> b.min_impact
                     OR b.impacts <> ARRAY(SELECT i FROM unnest(b.impacts) AS i ORDER BY i DESC)))`
               : 'NULL::int'
           } AS postings,
           ${
             documents
               ? `(SELECT count(*)::int FROM bm25_docs d WHERE d.owner_id = $1
              AND NOT EXISTS (SELECT 1 FROM episodes e WHERE e.id = d.episode_id AND e.owner_id = $1))`
               : 'NULL::int'
           } AS orphan,
           ${
             documents
               ? `(SELECT count(*)::int FROM episodes e WHERE e.owner_id = $1 AND e.tier <> 'trash'
              AND NOT EXISTS (SELECT 1 FROM bm25_docs d WHERE d.episode_id = e.id))`
               : 'NULL::int'
           } AS missing,
           (SELECT COALESCE((SELECT doc_count FROM bm25_stats WHERE owner_id = $1), 0)
                   <> (SELECT count(*) FROM bm25_docs WHERE owner_id = $1)
                OR COALESCE((SELECT len_content FROM bm25_stats WHERE owner_id = $1), 0)
                   <> COALESCE((SELECT sum(len_content) FROM bm25_docs WHERE owner_id = $1), 0)) AS stats`,
        [ownerId],
      );
      const row = r.rows[0]!;
      return {
        dfMismatches: row.df,
        postingMismatches: row.postings,
        docsWithoutEpisode: row.orphan,
        episodesWithoutDoc: row.missing,
        statsMismatch: row.stats,
      };
    },

    termStats: readTermStats,

    async docCount(ownerId: string): Promise<number> {
      return (await stats(q, ownerId)).docCount;
    },
  };
}

export function bm25Writes(q: Sql, track: WriteTracker) {
  /**
   * Removes documents from the live index and keeps document frequencies and corpus totals exact (their
   * postings leave their terms' rows and blocks through migration 008's trigger).
   */
  async function remove(ownerId: string, episodeIds: readonly string[]): Promise<void> {
    if (episodeIds.length === 0) return;
    const gone = await q.query<{
      n: number;
      postings: number;
      l1: number;
      l2: number;
      l3: number;
      l4: number;
      l5: number;
      emptied: number[] | null;
    }>(
      `WITH d AS (DELETE FROM bm25_docs WHERE owner_id = $1 AND episode_id = ANY($2::uuid[]) RETURNING *),
            c AS (SELECT u.id, count(*)::int AS n FROM d, unnest(d.term_ids) AS u(id) GROUP BY u.id),
            t AS (UPDATE bm25_terms t SET df = t.df - c.n FROM c WHERE t.owner_id = $1 AND t.id = c.id RETURNING t.id, t.df)
       SELECT count(*)::int AS n, COALESCE(sum(cardinality(term_ids)), 0)::int AS postings,
              COALESCE(sum(len_title), 0)::int AS l1, COALESCE(sum(len_summary), 0)::int AS l2,
              COALESCE(sum(len_entities), 0)::int AS l3, COALESCE(sum(len_topics), 0)::int AS l4,
              COALESCE(sum(len_content), 0)::int AS l5, (SELECT array_agg(id) FROM t WHERE df <= 0) AS emptied FROM d`,
      [ownerId, episodeIds],
    );
    const g = gone.rows[0]!;
    // Terms no document holds any more: only those these documents held can have become so.
    if (g.emptied)
      await q.query(`DELETE FROM bm25_terms WHERE owner_id = $1 AND id = ANY($2::int[]) AND df <= 0`, [ownerId, int4Array(g.emptied)]);
    if (g.n > 0) await adjustStats(q, ownerId, -1, g.n, g.postings, [g.l1, g.l2, g.l3, g.l4, g.l5]);
    track.postings(g.postings);
  }

  /**
   * Only the owner's episodes are indexed, and a trashed one stays out even when it is edited or
   * re-indexed: its entries are parked until it is restored (`park` / `unpark`).
   */
  async function indexable(ownerId: string, docs: readonly Bm25Doc[]): Promise<readonly Bm25Doc[]> {
    if (docs.length === 0) return docs;
    const r = await q.query<{ id: string }>(`SELECT id FROM episodes WHERE owner_id = $1 AND id = ANY($2::uuid[]) AND tier <> 'trash'`, [
      ownerId,
      docs.map((d) => d.episodeId),
    ]);
    if (r.rows.length === docs.length) return docs;
    const keep = new Set(r.rows.map((x) => x.id));
    return docs.filter((d) => keep.has(d.episodeId));
  }

  return {
    async add(ownerId: string, given: readonly Bm25Doc[], params: ImpactParams): Promise<void> {
      const docs = await indexable(ownerId, given);
      if (docs.length === 0) return;
      const totals: FieldVector = [0, 0, 0, 0, 0];
      for (const d of docs) d.lengths.forEach((l, i) => (totals[i] = totals[i]! + l));
      const postings = docs.reduce((n, d) => n + d.terms.size, 0);
      await adjustStats(q, ownerId, 1, docs.length, postings, totals);
      // Averages include this batch, so the first documents of a new owner normalise against themselves.
      const st = params.corpus ?? (await stats(q, ownerId));
      await insertEntries(
        q,
        ownerId,
        docs.map((d) => entryOf(d, st, params)),
      );
      track.postings(postings);
    },

    remove,

    /**
     * Replaces the owner's whole live index with the documents `add` is given, batch by batch, in
     * bulk: every document's row as it comes, and the terms' rows and blocks once at `finish`, from
     * them. Adding batch by batch to a live index in one transaction rewrote each term's row once a
     * batch, and no version of it could be cleaned away before the commit, so every lookup walked
     * longer chains of them: 20k episodes re-indexed in 69 s. Parked entries stay as they are. Runs
     * in the caller's transaction; `corpus` gives the averages every impact is normalised by.
     */
    async rebuild(ownerId: string, params: ImpactParams & { corpus: Bm25Corpus }) {
      // Terms first: removing the documents then has no postings left to take out (migration 013).
      for (const table of ['bm25_postings', 'bm25_terms', 'bm25_docs', 'bm25_stats'])
        await q.query(`DELETE FROM ${table} WHERE owner_id = $1`, [ownerId]);
      const ids = new Map<string, number>();
      const terms: string[] = [];
      const df: number[] = [];
      // A term's postings while it has fewer than a block's worth (null once it has more: they go into blocks).
      const waiting: ({ docs: number[]; impacts: number[] } | null)[] = [];
      let docCount = 0;
      let postings = 0;
      const lengths: FieldVector = [0, 0, 0, 0, 0];
      return {
        async add(given: readonly Bm25Doc[]): Promise<void> {
          const docs = await indexable(ownerId, given);
          if (docs.length === 0) return;
          const rows = docs.map((d, i) => {
            const e = entryOf(d, params.corpus, params);
            const termIds = e.terms.map((t, j) => {
              let id = ids.get(t);
              if (id === undefined) {
                ids.set(t, (id = terms.push(t)));
                df.push(0);
                waiting.push({ docs: [], impacts: [] });
              }
              df[id - 1]!++;
              const w = waiting[id - 1];
              if (w && w.docs.length + 1 >= BLOCK) waiting[id - 1] = null;
              else if (w) {
                w.docs.push(docCount + i + 1);
                w.impacts.push(e.impacts[j]!);
              }
              return id;
            });
            d.lengths.forEach((l, f) => (lengths[f] = lengths[f]! + l));
            return { ...e, termIds };
          });
          await insertDocs(q, ownerId, rows, docCount);
          docCount += docs.length;
          const added = rows.reduce((n, r) => n + r.termIds.length, 0);
          postings += added;
          track.postings(added);
        },

        async finish(): Promise<void> {
          // Postings in one sorted run have been merged: none is fresh. Waiting ones all are.
          await insertTerms(
            q,
            ownerId,
            terms.map((term, i) => ({
              term,
              id: i + 1,
              df: df[i]!,
              fresh: waiting[i] ? df[i]! : 0,
              ...(waiting[i] ?? { docs: [], impacts: [] }),
            })),
          );
          const blocked = terms.flatMap((_, i) => (waiting[i] === null ? [i + 1] : []));
          if (blocked.length > 0)
            await q.query(
              packBlocks(`SELECT u.term_id, d.doc_no, u.impact FROM bm25_docs d, unnest(d.term_ids, d.impacts) AS u(term_id, impact)
                          WHERE d.owner_id = $1 AND u.term_id = ANY($2::int[])`),
              [ownerId, int4Array(blocked)],
            );
          await q.query(
            `INSERT INTO bm25_stats (owner_id, doc_count, len_title, len_summary, len_entities, len_topics, len_content, postings, next_doc, next_term)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $2, $9)`,
            [ownerId, docCount, ...lengths, postings, terms.length],
          );
        },
      };
    },

    /**
     * Takes trashed episodes out of the live index, setting their entries aside (impacts and field
     * lengths included, terms as text: ids go with the terms no document holds any more) so a restore
     * puts back the very same postings: scores after a restore are the scores before the trash.
     * Document frequencies and corpus totals drop as with `remove`.
     */
    async park(ownerId: string, episodeIds: readonly string[], now: Date): Promise<void> {
      if (episodeIds.length === 0) return;
      await q.query(
        `INSERT INTO bm25_parked (episode_id, owner_id, lengths, terms, impacts, parked_at)
         SELECT d.episode_id, d.owner_id, ARRAY[d.len_title, d.len_summary, d.len_entities, d.len_topics, d.len_content],
                ARRAY(SELECT t.term FROM unnest(d.term_ids) WITH ORDINALITY AS u(id, i)
                      JOIN bm25_terms t ON t.owner_id = d.owner_id AND t.id = u.id ORDER BY u.i),
                d.impacts, $3
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
      const gone = await q.query<{ episode_id: string; lengths: number[]; terms: string[]; impacts: number[] }>(
        `DELETE FROM bm25_parked p WHERE p.owner_id = $1 AND p.episode_id = ANY($2::uuid[])
         RETURNING p.episode_id, p.lengths, p.terms, p.impacts`,
        [ownerId, episodeIds],
      );
      if (gone.rows.length === 0) return [];
      const entries = gone.rows.map((x) => ({
        episodeId: x.episode_id,
        lengths: x.lengths as FieldVector,
        terms: x.terms,
        impacts: x.impacts,
      }));
      await insertEntries(q, ownerId, entries);
      const lengths: FieldVector = [0, 0, 0, 0, 0];
      for (const e of entries) e.lengths.forEach((l, i) => (lengths[i] = lengths[i]! + l));
      const postings = entries.reduce((n, e) => n + e.terms.length, 0);
      await adjustStats(q, ownerId, 1, entries.length, postings, lengths);
      track.postings(postings);
      return entries.map((e) => e.episodeId);
    },

    /** Drops parked entries that went stale (the episode was edited while in the trash). */
    async dropParked(ownerId: string, episodeIds: readonly string[]): Promise<void> {
      if (episodeIds.length === 0) return;
      await q.query(`DELETE FROM bm25_parked WHERE owner_id = $1 AND episode_id = ANY($2::uuid[])`, [ownerId, episodeIds]);
    },
  };
}
