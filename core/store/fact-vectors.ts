import type { Fact } from '../domain/fact.js';
import { factFilterSql, queryFacts, type FactFilters } from './facts.js';
import { evaluatedOnce, Params, vectorParam, type Sql } from './sql.js';
import { countedVectors, ensureSignBitIndex, EXACT_UP_TO, quoteLiteral, signBitReads, signBits, type VectorSpace } from './vectors.js';

/**
 * Fact vectors (table `semantic_embeddings`): one per active fact. Archived and trashed facts have
 * none; moving a fact out of the active tier drops its vector in the same transaction, and coming back
 * writes it again.
 *
 * A person with at most EXACT_UP_TO facts has every one compared exactly. Beyond, they are searched
 * as episodes are (core/store/vectors.ts): neighbours read by sign bits from the model's index, ranked
 * by exact similarity. At the 10,000 facts the capacity allows, comparing every vector took 31 ms (a
 * third of a companion's `loadContext`), reading 160 by sign bits ~5 and finds 0.99 of the exact 5
 * nearest (0.85 of the 40 nearest; 300 read: 1.0 and 0.94).
 */

export function factVectorReads(q: Sql) {
  const vectorsSql = countedVectors('semantic_embeddings', '$1', '$2');
  return {
    /** How many of the owner's facts have a vector of this model (counted up to a few hundred: what `search` needs). */
    async vectors(ownerId: string, modelId: string): Promise<number> {
      const r = await q.query<{ n: number }>(`SELECT ${vectorsSql} AS n`, [ownerId, modelId]);
      return r.rows[0]!.n;
    },

    /**
     * What a fact search can find, in one round trip: whether the owner has any fact outside the trash,
     * and how many have a vector of this model, as `vectors` counts them (null: no model, so none).
     */
    async presence(ownerId: string, modelId: string | null): Promise<{ facts: boolean; vectors: number }> {
      const r = await q.query<{ facts: boolean; vectors: number }>(
        `SELECT EXISTS (SELECT 1 FROM semantic_nodes WHERE owner_id = $1 AND tier <> 'trash') AS facts,
                CASE WHEN $2::text IS NULL THEN 0 ELSE ${vectorsSql} END AS vectors`,
        [ownerId, modelId],
      );
      return r.rows[0]!;
    },

    /**
     * The `limit` nearest of the owner's active facts embedded with this model. `vectors`: how many
     * they are, as `vectors` or `presence` counted them, which chooses how they are compared.
     */
    async search(
      ownerId: string,
      space: VectorSpace,
      vector: Float32Array,
      o: { limit: number; filters: FactFilters; vectors: number },
    ): Promise<{ id: string; similarity: number }[]> {
      const p = new Params();
      const owner = p.add(ownerId);
      const d = space.dimensions;
      const query = `${p.add(vectorParam(vector))}::real[]`;
      const distance = (column: string) => `${column}::halfvec(${d}) <=> ${evaluatedOnce(`${query}::halfvec(${d})`)}`;
      // Facts are joined only to filter by their metadata. Joined for every vector (to keep out one a move
      // to archive or trash left behind), they doubled the statement: 1,333 facts, 12.7 against 6.9 ms.
      // The few facts outside the active tier are excluded instead, by the index that holds them.
      const filters = factFilterSql(o.filters, p, 'n');
      const from = `semantic_embeddings se${filters ? ` JOIN semantic_nodes n ON n.id = se.node_id AND n.owner_id = ${owner}${filters}` : ''}
         WHERE se.owner_id = ${owner} AND se.model_id = ${quoteLiteral(space.modelId)}
           AND se.node_id NOT IN (SELECT x.id FROM semantic_nodes x WHERE x.owner_id = ${owner} AND x.tier <> 'active')`;
      // The model is a literal, as in the partial index's predicate, so the planner can use the index. By
      // sign bits, the exact distance is computed above the cut, so no plan computes it for every fact,
      // and the query's bits are made once, not for every fact a plan without the index sorts.
      const nearest =
        o.vectors <= EXACT_UP_TO
          ? `SELECT se.node_id, ${distance('se.embedding')} AS distance FROM ${from}`
          : `SELECT node_id, ${distance('embedding')} AS distance FROM (SELECT se.node_id, se.embedding FROM ${from}
             ORDER BY ${signBits('se.embedding', d)} <~> ${evaluatedOnce(signBits(query, d))} LIMIT ${p.add(signBitReads(o.limit))}) c`;
      const r = await q.query<{ node_id: string; distance: number }>(
        `SELECT node_id, distance FROM (${nearest}) c ORDER BY distance, node_id LIMIT ${p.add(o.limit)}`,
        p.values,
      );
      return r.rows.map((x) => ({ id: x.node_id, similarity: 1 - x.distance }));
    },

    /** The similarity of each of these facts that has a vector of the model (only active facts have one). */
    async similarities(
      ownerId: string,
      space: VectorSpace,
      vector: Float32Array,
      factIds: readonly string[],
    ): Promise<{ id: string; similarity: number }[]> {
      const d = space.dimensions;
      const r = await q.query<{ node_id: string; distance: number }>(
        `SELECT node_id, embedding::halfvec(${d}) <=> ${evaluatedOnce(`$2::real[]::halfvec(${d})`)} AS distance FROM semantic_embeddings
         WHERE owner_id = $1 AND model_id = $3 AND node_id = ANY($4::uuid[])`,
        [ownerId, vectorParam(vector), space.modelId, factIds],
      );
      return r.rows.map((x) => ({ id: x.node_id, similarity: 1 - x.distance }));
    },

    /** Active facts whose vector is missing or from another model: the re-embedding work list. */
    async stale(ownerId: string, modelId: string, limit: number): Promise<Fact[]> {
      return queryFacts(
        q,
        {
          // A fact has at most one vector (node_id is its key): stale when it has none of this model.
          where: `n.owner_id = $1 AND n.tier = 'active' AND NOT EXISTS (SELECT 1 FROM semantic_embeddings se WHERE se.node_id = n.id AND se.model_id = $2)`,
          order: 'created_at',
          limit: '$3',
        },
        [ownerId, modelId, limit],
      );
    },
  };
}

export function factVectorWrites(q: Sql) {
  return {
    /** Creates the model's fact index if it is missing (DDL: a write). */
    async ensureIndex(space: VectorSpace): Promise<void> {
      await ensureSignBitIndex(q, 'semantic_embeddings', space);
    },

    /** Writes (or replaces) the vector of one of the owner's facts, only while it is active. */
    async set(ownerId: string, factId: string, modelId: string, vector: Float32Array): Promise<void> {
      await q.query(
        `INSERT INTO semantic_embeddings (node_id, owner_id, model_id, embedding)
         SELECT n.id, $1, $3, $4::real[]::halfvec FROM semantic_nodes n WHERE n.owner_id = $1 AND n.id = $2 AND n.tier = 'active'
         ON CONFLICT (node_id) DO UPDATE SET model_id = EXCLUDED.model_id, embedding = EXCLUDED.embedding`,
        [ownerId, factId, modelId, vectorParam(vector)],
      );
    },

    async remove(ownerId: string, factIds: readonly string[]): Promise<void> {
      if (factIds.length === 0) return;
      await q.query(`DELETE FROM semantic_embeddings WHERE owner_id = $1 AND node_id = ANY($2::uuid[])`, [ownerId, factIds]);
    },
  };
}
