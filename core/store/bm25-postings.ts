import { int4Array, type Sql } from './sql.js';

/** A query term as the postings read sees it: its id and its weight (idf × the query's count × (k1 + 1)). */
export interface QueryTerm {
  id: number;
  weight: number;
}

/** The best documents by the postings read: document numbers, scores and which query terms matched (bit i: the i-th term). */
export interface ReadScores {
  docs: number[];
  scores: number[];
  masks: bigint[];
}

/**
 * The best `depth` documents (and those tied with the last) by Σ weight × impact over the postings
 * read — each term's strongest `per` (Infinity: all of them) — best first, equal scores by number, as
 * a search ranks them. The postings come to JS in binary and are summed here: summing thousands of
 * them in SQL (unnest, a sort per term, a hash aggregate) cost more than reading them (at 100k
 * synthetic episodes a keyword search's SQL took 8.4 ms a query, 5.0 so), and PGlite parses array text
 * element by element, slower still.
 */
export async function bestByPostingsRead(
  q: Sql,
  ownerId: string,
  terms: readonly QueryTerm[],
  o: { per: number; depth: number },
): Promise<ReadScores> {
  const lists = await readPostings(q, ownerId, terms, o.per);
  // Documents by number in an open-addressing table (numbers start at 1: 0 marks a free slot).
  const total = lists.reduce((n, l) => n + Math.min(l.docs.length, o.per), 0);
  const size = 2 ** Math.ceil(Math.log2(2 * total + 2));
  const keys = new Int32Array(size);
  const scores = new Float64Array(size);
  // Match masks in two halves: terms 0–31 and 32–62.
  const low = new Uint32Array(size);
  const high = new Uint32Array(size);
  terms.forEach((term, k) => {
    const { docs, impacts } = lists[k]!;
    for (const i of strongest(docs, impacts, o.per)) {
      const doc = docs[i]!;
      let s = Math.imul(doc, 0x9e3779b1) & (size - 1);
      while (keys[s] !== 0 && keys[s] !== doc) s = (s + 1) & (size - 1);
      keys[s] = doc;
      // A document's score adds its terms in the query's order, whatever order the postings came in.
      scores[s] = scores[s]! + term.weight * impacts[i]!;
      if (k < 32) low[s] = low[s]! | (1 << k);
      else high[s] = high[s]! | (1 << (k - 32));
    }
  });
  // The depth-th best score; every document at or above it (ties at the cut come along).
  const held = new Float64Array(total);
  let n = 0;
  for (let s = 0; s < size; s++) if (keys[s] !== 0) held[n++] = scores[s]!;
  const floor = n > o.depth ? nthLargest(held.subarray(0, n), o.depth) : -Infinity;
  const kept: number[] = [];
  for (let s = 0; s < size; s++) if (keys[s] !== 0 && scores[s]! >= floor) kept.push(s);
  kept.sort((a, b) => scores[b]! - scores[a]! || keys[a]! - keys[b]!);
  return {
    docs: kept.map((s) => keys[s]!),
    scores: kept.map((s) => scores[s]!),
    masks: kept.map((s) => (BigInt(high[s]!) << 32n) | BigInt(low[s]!)),
  };
}

/**
 * The places of a term's `per` strongest postings (by impact, then document number), or of all of them
 * when there are no more: more are read when the blocks at the floor hold some below it.
 */
function strongest(docs: Int32Array, impacts: Float32Array, per: number): Iterable<number> {
  const n = docs.length;
  if (n <= per) return Array.from({ length: n }, (_, i) => i);
  const cut = nthLargest(Float64Array.from(impacts), per);
  const above: number[] = [];
  const at: number[] = [];
  for (let i = 0; i < n; i++) {
    if (impacts[i]! > cut) above.push(i);
    else if (impacts[i] === cut) at.push(i);
  }
  return [...above, ...at.sort((x, y) => docs[x]! - docs[y]!).slice(0, per - above.length)];
}

/**
 * The n-th largest of `values` (1: the largest), which it reorders: a quickselect, since a query
 * reads thousands of postings and scores and only wants where the best ones end.
 */
function nthLargest(values: Float64Array, n: number): number {
  const k = values.length - n;
  let lo = 0;
  let hi = values.length - 1;
  while (lo < hi) {
    const pivot = values[(lo + hi) >>> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const t = values[i]!;
        values[i++] = values[j]!;
        values[j--] = t;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return values[k]!;
}

/**
 * Each term's postings a query reads, in the terms' order: those waiting on its row and those in the
 * blocks whose strongest posting reaches the floor of the first blocks (by floor) that together hold
 * `per` — at least `per` postings are at or above that floor, so none below it is among the strongest
 * `per`. As one value (`sentRows`), each row keyed by its term's place.
 */
async function readPostings(
  q: Sql,
  ownerId: string,
  terms: readonly QueryTerm[],
  per: number,
): Promise<{ docs: Int32Array; impacts: Float32Array }[]> {
  const r = await q.query<{ blob: string | null }>(
    `SELECT ${sendRows('qt.k::int', 'l.docs', 'l.impacts')}
     FROM unnest($2::int[]) WITH ORDINALITY AS qt(term_id, k)
     CROSS JOIN LATERAL (
       SELECT t.docs, t.impacts FROM bm25_terms t WHERE t.owner_id = $1 AND t.id = qt.term_id AND cardinality(t.docs) > 0
       UNION ALL
       SELECT b.docs, b.impacts FROM bm25_postings b
       WHERE b.owner_id = $1 AND b.term_id = qt.term_id AND b.max_impact >= (
         SELECT COALESCE(max(c.min_impact) FILTER (WHERE c.held >= $3), '-Infinity')
         FROM (SELECT min_impact, sum(n) OVER (ORDER BY min_impact DESC ROWS UNBOUNDED PRECEDING) AS held
               FROM bm25_postings WHERE owner_id = $1 AND term_id = qt.term_id) c)) l`,
    // No floor (every block) when all are wanted: nothing compares as holding null.
    [ownerId, int4Array(terms.map((t) => t.id)), Number.isFinite(per) ? per : null],
  );
  const rows = sentRows(r.rows[0]?.blob ?? null);
  const count = terms.map(() => 0);
  for (const row of rows) count[row.key - 1] = count[row.key - 1]! + row.docs.length;
  const lists = count.map((n) => ({ docs: new Int32Array(n), impacts: new Float32Array(n) }));
  const filled = terms.map(() => 0);
  for (const { key, docs, impacts } of rows) {
    const k = key - 1;
    lists[k]!.docs.set(docs, filled[k]);
    lists[k]!.impacts.set(impacts, filled[k]);
    filled[k] = filled[k]! + docs.length;
  }
  return lists;
}

/** A row of postings as it comes in binary: a key (a term's id or place) and its two arrays. */
export interface SentRow {
  key: number;
  docs: Int32Array;
  impacts: Float32Array;
}

/**
 * The SQL aggregate that sends rows of postings as one value (`blob`), each row a key and its two
 * arrays, for `sentRows` to read: postings come to JS in binary, since PGlite parses rows field by
 * field and array text element by element (and bytea hex digit pair by pair).
 */
export const sendRows = (key: string, docs = 'docs', impacts = 'impacts') =>
  `encode(string_agg(int4send(${key}) || array_send(${docs}) || array_send(${impacts}), ''), 'base64') AS blob`;

/** The rows `sendRows` sent. */
export function sentRows(blob: string | null): SentRow[] {
  const buf = Buffer.from(blob ?? '', 'base64');
  const v = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const rows: SentRow[] = [];
  let at = 0;
  while (at < buf.length) {
    const key = v.getInt32(at);
    const d = sentArray(v, at + 4);
    const f = sentArray(v, d.end);
    if (d.n !== f.n) throw new Error(`a BM25 posting row holds ${d.n} documents and ${f.n} impacts`);
    const row = { key, docs: new Int32Array(d.n), impacts: new Float32Array(d.n) };
    // Each element is its length (4) and its value.
    for (let j = 0; j < d.n; j++) {
      row.docs[j] = v.getInt32(d.first + 8 * j + 4);
      row.impacts[j] = v.getFloat32(f.first + 8 * j + 4);
    }
    rows.push(row);
    at = f.end;
  }
  return rows;
}

/** Where the elements of a one-dimensional array of 4-byte values that `array_send` wrote at `at` begin, how many, and where it ends. */
function sentArray(v: DataView, at: number): { first: number; n: number; end: number } {
  // Dimensions, has-nulls flag, element type; then, for one dimension, its length and lower bound.
  const dims = v.getInt32(at);
  if (dims === 0) return { first: at + 12, n: 0, end: at + 12 };
  const n = v.getInt32(at + 12);
  return { first: at + 20, n, end: at + 20 + 8 * n };
}
