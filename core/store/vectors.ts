import { createHash } from 'node:crypto';
import { bm25Reads } from './bm25.js';
import { filterSql, hasFilters, keepsFew, type EpisodeFilters } from './episodes.js';
import {
  chunks,
  evaluatedOnce,
  flattened,
  float4Array,
  int4Array,
  Params,
  uuidArray,
  vectorParam,
  withReferencesChecked,
  type Sql,
} from './sql.js';

export interface VectorSpace {
  modelId: string;
  dimensions: number;
}

export interface VectorHit {
  episodeId: string;
  similarity: number;
}

/** Model ids go into index names and partial-index predicates, so they are quoted, never interpolated raw. */
export function quoteLiteral(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/** The tables whose vectors get a sign-bit index per model, and the prefix of that index's name. */
const indexedTables = { episode_embeddings: 'episode_hnsw', semantic_embeddings: 'fact_hnsw' } as const;
type IndexedTable = keyof typeof indexedTables;

function indexName(table: IndexedTable, space: VectorSpace): string {
  return `${indexedTables[table]}_${createHash('sha1').update(`${space.modelId}:${space.dimensions}:bits`).digest('hex').slice(0, 12)}`;
}

/**
 * Vectors are stored at half precision, and a model's nearest-neighbour index holds one sign bit per
 * dimension (48 bytes for 384 dimensions, compared by Hamming distance) instead of a second copy of the
 * whole vector: at 100k episodes the graph takes 35 MB instead of 195, and stays in the database's
 * buffers. A search reads more neighbours than it was asked for from the index and ranks them by exact
 * cosine similarity: OVERSAMPLE times the first HEAD, and the rest one for one. Measured with an English
 * sentence encoder whose vectors share a large common direction (the hard case for sign bits) on 6,408
 * windows of one to three LoCoMo turns, for 687 questions: reading 160 finds 0.968 of the exact 40
 * nearest (80: 0.875; 320: 0.995). Asked for 240, reading 360 finds 0.997 of the exact 40 nearest
 * and 0.963 of the 120 nearest, and reading 960 (4× all of them) 1.000 and 0.999 — at 100k episodes
 * 12 ms against 22. Hybrid search fuses by rank, where the 120th neighbour weighs about a third of the
 * first, so the reading goes where ranks weigh most. On 14,700 sentences of package documentation,
 * reading 160 found 0.889 of the exact 40 for 200 other sentences, 0.72 for 200 LoCoMo questions
 * (reading 360: 0.969, 0.864); a candidate list of 160 instead of 64 (`hnsw.ef_search`) was 0.3 ms
 * faster and found 0.887 and 0.69.
 */
const OVERSAMPLE = 4;
const HEAD = 40;

/**
 * Up to this many vectors of a model, an owner's are all compared exactly: the index's walk costs
 * more than it saves (146 LoCoMo episodes: 2.6 ms exact against 7.1 reading 360 by sign bits; 324
 * facts: 3.0 against 3.5), and the result is exact. Searches are told how many there are by
 * `countedVectors`, which stops counting past it.
 */
export const EXACT_UP_TO = 400;

/**
 * A filtered search compares every episode the filters keep exactly, up to this many of an owner's
 * `all`, and walks the sign-bit index past them: comparing costs each kept episode (~5.3 µs), the walk
 * the neighbours it passes to find enough kept ones (~13 µs each, ~160 × all / kept for 40) and ~17 ms
 * besides. At 100k episodes (test model, 40 nearest): a week's 69 walked in ~200 ms; a year's 4,487
 * compared in 25 ms, walked in 63; two years' 9,681 in 50 and 38. The two cross near √(560 × all),
 * 7,500 there, ~9,600 at a million messages.
 */
function exactKeptUpTo(all: number): number {
  return Math.max(2000, Math.round(Math.sqrt(560 * all)));
}

/** SQL: how many vectors of the model `table` holds for the owner, counted no further than EXACT_UP_TO + 1. */
export function countedVectors(table: IndexedTable, owner: string, model: string): string {
  return `(SELECT count(*)::int FROM (SELECT 1 FROM ${table} WHERE owner_id = ${owner} AND model_id = ${model} LIMIT ${EXACT_UP_TO + 1}) v)`;
}

/** How many neighbours by sign bits are read to return the `limit` nearest by exact similarity. */
export function signBitReads(limit: number): number {
  return limit + (OVERSAMPLE - 1) * Math.min(limit, HEAD);
}

/**
 * The embedding column has no fixed dimension (models differ), so each model gets a partial HNSW index
 * over `binary_quantize(embedding::halfvec(dim))`. Queries repeat the same expression and model
 * predicate literally, which is what lets the planner pick that index.
 */
export function signBits(column: string, dimensions: number): string {
  return `binary_quantize(${column}::halfvec(${dimensions}))::bit(${dimensions})`;
}

/**
 * Creates the model's sign-bit HNSW index over `table` if it is missing (DDL: a write). A candidate list
 * of 32 while building (pgvector's default is 64) halved the cost of inserting whole vectors at the
 * same recall; over sign bits, with the re-ranking above, it finds 0.97 of the exact 40 nearest.
 */
export async function ensureSignBitIndex(q: Sql, table: IndexedTable, space: VectorSpace): Promise<void> {
  if (!Number.isInteger(space.dimensions) || space.dimensions <= 0) throw new Error(`bad dimension ${space.dimensions}`);
  await q.exec(
    `CREATE INDEX IF NOT EXISTS ${indexName(table, space)} ON ${table}
     USING hnsw ((${signBits('embedding', space.dimensions)}) bit_hamming_ops) WITH (m = 16, ef_construction = 32)
     WHERE model_id = ${quoteLiteral(space.modelId)}`,
  );
}

/** The cosine distance of `ee`'s vector to `query` (a halfvec of the space's dimension). */
function distanceExpr(space: VectorSpace, query: string): string {
  return `ee.embedding::halfvec(${space.dimensions}) <=> ${query}`;
}

/** A real[] query vector as the halfvec it is compared as. */
function asHalfvec(space: VectorSpace, realArray: string): string {
  return `${realArray}::halfvec(${space.dimensions})`;
}

export function vectorReads(q: Sql) {
  return {
    /** Active episodes whose vector is missing or from another model: the re-embedding work list. */
    async stale(ownerId: string, modelId: string, limit: number): Promise<string[]> {
      const r = await q.query<{ id: string }>(
        `SELECT e.id FROM episodes e LEFT JOIN episode_embeddings ee ON ee.episode_id = e.id
         WHERE e.owner_id = $1 AND e.tier = 'active' AND (ee.model_id IS NULL OR ee.model_id <> $2) ORDER BY e.start_at LIMIT $3`,
        [ownerId, modelId, limit],
      );
      return r.rows.map((x) => x.id);
    },

    /**
     * The `limit` nearest episodes. `vectors`: how many the owner has, as `vectors` counted them: up to
     * EXACT_UP_TO every one is compared exactly, and so is every one of the episodes the filters keep
     * when they keep few (exactKeptUpTo); beyond, the sign-bit index's `signBitReads(limit)` nearest are
     * ranked by exact similarity (approximate).
     */
    async search(
      ownerId: string,
      space: VectorSpace,
      vector: Float32Array,
      o: { limit: number; filters: EpisodeFilters; vectors: number },
    ): Promise<VectorHit[]> {
      const p = new Params();
      const owner = p.add(ownerId);
      const qv = `${p.add(vectorParam(vector))}::real[]`;
      const filtered = hasFilters(o.filters);
      const keptFew = async () => {
        const all = await bm25Reads(q).docCount(ownerId);
        return keepsFew(q, ownerId, o.filters, exactKeptUpTo(all), all);
      };
      const exact = o.vectors <= EXACT_UP_TO || (filtered && (await keptFew()));
      // Walking the index, the period is compared only: with the spans' overlap too, Postgres took the
      // conditions for independent, guessed a year of 100k episodes at 256, and read them by their spans
      // rather than walk (61 ms for two years' 9,681 where the walk takes 38).
      const filters = filterSql(o.filters, p, exact ? 'bySpan' : 'compared');
      const joinEpisodes = filters ? ` JOIN episodes e ON e.id = ee.episode_id AND e.owner_id = ${owner}${filters}` : '';
      const from = `episode_embeddings ee${joinEpisodes} WHERE ee.model_id = ${quoteLiteral(space.modelId)} AND ee.owner_id = ${owner}`;
      const sql = exact
        ? `SELECT ee.episode_id, ${distanceExpr(space, evaluatedOnce(asHalfvec(space, qv)))} AS distance FROM ${from}
             ORDER BY distance, ee.episode_id LIMIT ${p.add(o.limit)}`
        : `SELECT episode_id, distance FROM (SELECT ee.episode_id, ${distanceExpr(space, asHalfvec(space, qv))} AS distance FROM ${from}
             ORDER BY ${signBits('ee.embedding', space.dimensions)} <~> ${signBits(qv, space.dimensions)} LIMIT ${p.add(signBitReads(o.limit))}) c
             ORDER BY distance LIMIT ${p.add(o.limit)}`;
      // An owner's few vectors are all read on any plan: past them, a period's plan is its own.
      const r = await q.query<{ episode_id: string; distance: number }>(sql, p.values, {
        planEachRun: filtered && o.vectors > EXACT_UP_TO,
      });
      return r.rows.map((x) => ({ episodeId: x.episode_id, similarity: 1 - x.distance }));
    },

    /** The exact similarity of each of these episodes that has a vector of the model (unfiltered: callers pass episodes they found). */
    async similarities(ownerId: string, space: VectorSpace, vector: Float32Array, episodeIds: readonly string[]): Promise<VectorHit[]> {
      const r = await q.query<{ episode_id: string; distance: number }>(
        `SELECT ee.episode_id, ${distanceExpr(space, asHalfvec(space, '$2::real[]'))} AS distance FROM episode_embeddings ee
         WHERE ee.owner_id = $1 AND ee.model_id = $3 AND ee.episode_id = ANY($4::uuid[])`,
        [ownerId, vectorParam(vector), space.modelId, episodeIds],
      );
      return r.rows.map((x) => ({ episodeId: x.episode_id, similarity: 1 - x.distance }));
    },

    /** Whether the model's nearest-neighbour index exists (a big import builds it at its end). */
    async indexed(space: VectorSpace): Promise<boolean> {
      const r = await q.query(`SELECT 1 FROM pg_indexes WHERE indexname = $1`, [indexName('episode_embeddings', space)]);
      return r.rows.length > 0;
    },

    /** How many vectors of this model the owner's episodes have, counted as far as `search` needs to know (countedVectors). */
    async vectors(ownerId: string, modelId: string): Promise<number> {
      const r = await q.query<{ n: number }>(`SELECT ${countedVectors('episode_embeddings', '$1', '$2')} AS n`, [ownerId, modelId]);
      return r.rows[0]!.n;
    },

    async count(ownerId: string, modelId: string): Promise<number> {
      const r = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM episode_embeddings WHERE owner_id = $1 AND model_id = $2`, [
        ownerId,
        modelId,
      ]);
      return r.rows[0]!.n;
    },
  };
}

export function vectorWrites(q: Sql) {
  return {
    /** Creates the model's episode index the first time the model is used (DDL: a write). */
    async ensureIndex(space: VectorSpace): Promise<void> {
      await ensureSignBitIndex(q, 'episode_embeddings', space);
    },

    /**
     * Drops the model's index (DDL: a write): a big import writes its vectors without it and creates it
     * again at its end (core/episodes/vector-index.ts). Searches meanwhile read every vector of the model.
     */
    async dropIndex(space: VectorSpace): Promise<void> {
      await q.exec(`DROP INDEX IF EXISTS ${indexName('episode_embeddings', space)}`);
    },

    /**
     * Only active episodes carry vectors: archived and trashed ones are out of vector search. The
     * vectors go as one binary real[] (core/store/sql.ts), each row its slice: the server reads the very
     * same floats it would parse from their text, without parsing hundreds of numbers a vector.
     */
    async upsert(ownerId: string, modelId: string, rows: readonly { episodeId: string; vector: Float32Array }[]): Promise<void> {
      for (const batch of chunks(rows, 500)) {
        const { items: floats, from, to } = flattened(batch.map((r) => r.vector));
        // Rows selected with their active episode: no foreign-key lookup per vector.
        await withReferencesChecked(q, () =>
          q.query(
            `INSERT INTO episode_embeddings (episode_id, owner_id, model_id, embedding)
             SELECT u.id, $1, $2, ($4::real[])[u.a:u.b]::halfvec FROM unnest($3::uuid[], $5::int[], $6::int[]) AS u(id, a, b)
             JOIN episodes e ON e.id = u.id AND e.owner_id = $1 AND e.tier = 'active'
             ON CONFLICT (episode_id) DO UPDATE SET model_id = EXCLUDED.model_id, embedding = EXCLUDED.embedding`,
            [ownerId, modelId, uuidArray(batch.map((r) => r.episodeId)), float4Array(floats), int4Array(from), int4Array(to)],
          ),
        );
      }
    },

    async remove(ownerId: string, episodeIds: readonly string[]): Promise<void> {
      if (episodeIds.length === 0) return;
      await q.query(`DELETE FROM episode_embeddings WHERE owner_id = $1 AND episode_id = ANY($2::uuid[])`, [ownerId, episodeIds]);
    },
  };
}
