import { sendRows, sentRows } from './bm25-postings.js';
import { float4Array, int4Array, LITTLE_ENDIAN, type Sql } from './sql.js';

/**
 * Writing the keyword index's blocks: a term's postings, strongest first, BLOCK to a row. Reading the
 * strongest of them is core/store/bm25-postings.ts.
 */

/** Postings per block: a block row (two arrays of this many 4-byte values) stays well under a page. */
export const BLOCK = 128;

/**
 * Packs (term_id, doc_no, impact) rows — `entries` is a SELECT yielding them — into blocks of the
 * owner ($1): per term, strongest first, BLOCK at a time. What a bulk rebuild writes; the live index
 * cuts the same blocks from the same postings in JS (`intoBlocks`).
 */
export const packBlocks = (entries: string) =>
  `INSERT INTO bm25_postings (owner_id, term_id, n, min_impact, max_impact, docs, impacts)
   SELECT $1, term_id, count(*)::int, min(impact), max(impact),
          array_agg(doc_no ORDER BY impact DESC, doc_no), array_agg(impact ORDER BY impact DESC, doc_no)
   FROM (SELECT e.term_id, e.doc_no, e.impact,
                (row_number() OVER (PARTITION BY e.term_id ORDER BY e.impact DESC, e.doc_no) - 1) / ${BLOCK} AS block
         FROM (${entries}) AS e(term_id, doc_no, impact)) b
   GROUP BY term_id, block`;

type PostingList = { docs: Int32Array; impacts: Float32Array };

/** A term whose postings waiting on its row are a block's worth or more, and how many. */
export interface Waiting {
  id: number;
  waiting: number;
}

/**
 * Postings one statement moves at most, either way (128 KB a column). PGlite's protocol buffers live in
 * its WebAssembly memory, which grows to the largest message and never shrinks: a merge of a long
 * chat's commonest words moved in one piece grew it by 26 MB.
 */
const PIECE = 16_384;

/**
 * Moves the waiting postings of these terms into blocks of BLOCK, strongest first (by impact, then
 * document number); for those also in `merge`, together with all their blocks (one sorted run again).
 * The postings come to JS in binary, a piece at a time, are sorted and cut here and go back a piece at
 * a time. Sorting and cutting them in SQL (unnest, a sort for the ranks, another for the aggregates)
 * took 95 ms a window at 100k episodes: 29 s of SQL in that import, ~10 s now.
 */
export async function intoBlocks(q: Sql, ownerId: string, terms: readonly Waiting[], merge: ReadonlySet<number>): Promise<void> {
  const lists = new Map<number, PostingList[]>();
  const gather = (blob: string | null): number => {
    const rows = sentRows(blob);
    for (const { key, docs, impacts } of rows) {
      const parts = lists.get(key);
      if (parts) parts.push({ docs, impacts });
      else lists.set(key, [{ docs, impacts }]);
    }
    return rows.length;
  };
  const piece: number[] = [];
  let held = 0;
  const takeWaiting = async () => {
    const r = await q.query<{ blob: string | null }>(
      `WITH waiting AS (SELECT id, docs, impacts FROM bm25_terms WHERE owner_id = $1 AND id = ANY($2::int[])),
            emptied AS (UPDATE bm25_terms SET docs = '{}', impacts = '{}', fresh = CASE WHEN id = ANY($3::int[]) THEN 0 ELSE fresh END
                        WHERE owner_id = $1 AND id = ANY($2::int[]))
       SELECT ${sendRows('id')} FROM waiting`,
      [ownerId, int4Array(piece), int4Array(piece.filter((id) => merge.has(id)))],
    );
    gather(r.rows[0]?.blob ?? null);
    piece.length = 0;
    held = 0;
  };
  for (const t of terms) {
    if (held > 0 && held + t.waiting > PIECE) await takeWaiting();
    piece.push(t.id);
    held += t.waiting;
  }
  if (piece.length > 0) await takeWaiting();
  // The merged terms' blocks, a piece at a time, until none is left.
  const merging = int4Array([...merge]);
  for (let got = merge.size > 0 ? PIECE / BLOCK : 0; got === PIECE / BLOCK;) {
    const r = await q.query<{ blob: string | null }>(
      `WITH gone AS (DELETE FROM bm25_postings WHERE ctid = ANY(ARRAY(
                       SELECT ctid FROM bm25_postings WHERE owner_id = $1 AND term_id = ANY($2::int[]) LIMIT ${PIECE / BLOCK}))
                     RETURNING term_id, docs, impacts)
       SELECT ${sendRows('term_id')} FROM gone`,
      [ownerId, merging],
    );
    got = gather(r.rows[0]?.blob ?? null);
  }

  await writeRuns(q, ownerId, lists);
}

/** Where a 64-bit key's low and high 32-bit words sit in a Uint32Array over it. */
const [LOW, HIGH] = LITTLE_ENDIAN ? [0, 1] : [1, 0];

/**
 * Writes each term's postings as one run of blocks, strongest first, a piece at a time. A posting is
 * sorted as one 64-bit key — its impact's bits inverted above its document number — by the typed
 * array's own numeric sort: impacts are never negative, so their bits grow with them, and the key
 * orders by impact descending, then document ascending, as the blocks are read.
 */
async function writeRuns(q: Sql, ownerId: string, lists: ReadonlyMap<number, readonly PostingList[]>): Promise<void> {
  const blocks = { term: [] as number[], from: [] as number[], to: [] as number[], min: [] as number[], max: [] as number[] };
  const docs = new Int32Array(PIECE);
  const impacts = new Float32Array(PIECE);
  const impactBits = new Uint32Array(impacts.buffer);
  let used = 0;
  const write = async () => {
    if (blocks.term.length === 0) return;
    await q.query(
      `INSERT INTO bm25_postings (owner_id, term_id, n, min_impact, max_impact, docs, impacts)
       SELECT $1, u.term_id, u.b - u.a + 1, u.lo, u.hi, ($7::int[])[u.a:u.b], ($8::real[])[u.a:u.b]
       FROM unnest($2::int[], $3::int[], $4::int[], $5::real[], $6::real[]) AS u(term_id, a, b, lo, hi)`,
      [
        ownerId,
        int4Array(blocks.term),
        int4Array(blocks.from),
        int4Array(blocks.to),
        float4Array(blocks.min),
        float4Array(blocks.max),
        int4Array(docs.subarray(0, used)),
        float4Array(impacts.subarray(0, used)),
      ],
    );
    for (const column of Object.values(blocks)) column.length = 0;
    used = 0;
  };
  for (const [term, parts] of lists) {
    const keys = new BigUint64Array(parts.reduce((n, p) => n + p.docs.length, 0));
    const words = new Uint32Array(keys.buffer);
    let k = 0;
    for (const p of parts) {
      const bits = new Uint32Array(p.impacts.buffer, p.impacts.byteOffset, p.impacts.length);
      for (let j = 0; j < p.docs.length; j++, k++) {
        words[2 * k + LOW] = p.docs[j]!;
        words[2 * k + HIGH] = 0xffffffff - bits[j]!;
      }
    }
    keys.sort();
    for (let start = 0; start < keys.length; start += BLOCK) {
      if (used + BLOCK > PIECE) await write();
      const end = Math.min(start + BLOCK, keys.length);
      const first = used;
      blocks.term.push(term);
      blocks.from.push(first + 1);
      for (let j = start; j < end; j++, used++) {
        docs[used] = words[2 * j + LOW]!;
        impactBits[used] = 0xffffffff - words[2 * j + HIGH]!;
      }
      blocks.to.push(used);
      blocks.max.push(impacts[first]!);
      blocks.min.push(impacts[used - 1]!);
    }
  }
  await write();
}
