import { randomUUID } from 'node:crypto';
import { parseReason, serializeReason, type ForgettingReason } from '../domain/forgetting-reason.js';
import type {
  DiscoveryMethod,
  LinkRole,
  RelationshipType,
  SemanticLink,
  SemanticNode,
  SemanticRelationship,
  SemanticVersion,
  VersionLink,
} from '../domain/semantic.js';
import { Params, vectorLiteral, type Sql, type WriteTracker } from './sql.js';

interface NodeRow {
  id: string;
  owner_id: string;
  key: string;
  entity_type: string;
  label: string;
  value: string;
  context: string;
  confidence: number;
  version: number;
  discovery_episode_id: string | null;
  discovery_method: DiscoveryMethod;
  keywords: string[];
  tags: string[];
  source: string | null;
  access_count: number;
  last_accessed: Date | null;
  relevance: number;
  importance: number;
  base_importance: number | null;
  tokens: number;
  tier: SemanticNode['tier'];
  tier_changed_at: Date | null;
  tier_reason: string | null;
  marked_important: boolean | null;
  created_at: Date;
  updated_at: Date;
}

function toNode(r: NodeRow): SemanticNode {
  return {
    id: r.id,
    ownerId: r.owner_id,
    key: r.key,
    entityType: r.entity_type,
    label: r.label,
    value: r.value,
    context: r.context,
    confidence: r.confidence,
    version: r.version,
    discoveryEpisodeId: r.discovery_episode_id,
    discoveryMethod: r.discovery_method,
    keywords: r.keywords,
    tags: r.tags,
    source: r.source,
    accessCount: r.access_count,
    lastAccessed: r.last_accessed,
    relevance: r.relevance,
    importance: r.importance,
    baseImportance: r.base_importance,
    tokens: r.tokens,
    tier: r.tier,
    tierChangedAt: r.tier_changed_at,
    tierReason: parseReason(r.tier_reason),
    markedImportant: r.marked_important,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

interface VersionRow {
  node_id: string;
  version: number;
  value: string;
  context: string;
  confidence: number;
  link: VersionLink | null;
  corrected: boolean;
  method: DiscoveryMethod;
  episode_id: string | null;
  source_message_ids: string[];
  created_at: Date;
}

function toVersion(r: VersionRow): SemanticVersion {
  return {
    nodeId: r.node_id,
    version: r.version,
    value: r.value,
    context: r.context,
    confidence: r.confidence,
    link: r.link,
    corrected: r.corrected,
    method: r.method,
    episodeId: r.episode_id,
    sourceMessageIds: r.source_message_ids,
    createdAt: r.created_at,
  };
}

interface RelationshipRow {
  id: string;
  source_id: string;
  target_id: string;
  type: RelationshipType;
  strength: number;
  description: string;
  discovery_episode_id: string | null;
  created_at: Date;
  last_reinforced: Date;
}

function toRelationship(r: RelationshipRow): SemanticRelationship {
  return {
    id: r.id,
    sourceId: r.source_id,
    targetId: r.target_id,
    type: r.type,
    strength: r.strength,
    description: r.description,
    discoveryEpisodeId: r.discovery_episode_id,
    createdAt: r.created_at,
    lastReinforced: r.last_reinforced,
  };
}

export interface NewNode {
  key: string;
  entityType: string;
  label: string;
  value: string;
  context: string;
  confidence: number;
  discoveryEpisodeId: string | null;
  discoveryMethod: DiscoveryMethod;
  keywords: readonly string[];
  tags: readonly string[];
  source: string | null;
  importance: number;
}

/** Fields an evolution, reinforcement or upsert may change on a node. */
export interface NodePatch {
  value?: string;
  context?: string;
  confidence?: number;
  version?: number;
  keywords?: readonly string[];
  tags?: readonly string[];
  source?: string | null;
  importance?: number;
  baseImportance?: number;
  accessed?: Date;
}

export interface NewVersion {
  version: number;
  value: string;
  context: string;
  confidence: number;
  link: VersionLink | null;
  method: DiscoveryMethod;
  episodeId: string | null;
  sourceMessageIds: readonly string[];
}

/** What search may be narrowed to (seed 003 metadata filters). Trashed facts are never searched. */
export interface SemanticFilters {
  entityTypes?: readonly string[] | undefined;
  tags?: readonly string[] | undefined;
  source?: string | undefined;
  minConfidence?: number | undefined;
  minImportance?: number | undefined;
}

function filterSql(f: SemanticFilters, p: Params, alias: string): string {
  let s = '';
  if (f.entityTypes?.length) s += ` AND ${alias}.entity_type = ANY(${p.add(f.entityTypes)}::text[])`;
  if (f.tags?.length) s += ` AND ${alias}.tags && ${p.add(f.tags)}::text[]`;
  if (f.source !== undefined) s += ` AND ${alias}.source = ${p.add(f.source)}`;
  if (f.minConfidence !== undefined) s += ` AND ${alias}.confidence >= ${p.add(f.minConfidence)}`;
  if (f.minImportance !== undefined) s += ` AND ${alias}.importance >= ${p.add(f.minImportance)}`;
  return s;
}

export interface FactResultRow {
  id: string;
  key: string;
  entityType: string;
  label: string;
  value: string;
  context: string;
  version: number;
  confidence: number;
  updatedAt: Date;
  sources: { id: string; externalId: string | null; speaker: string; sentAt: Date }[];
  episodeIds: string[];
}

export interface KeywordHit {
  id: string;
  score: number;
  matchedTerms: string[];
}

export function semanticRepo(q: Sql, track: WriteTracker = () => {}) {
  const nodeSelect = `SELECT * FROM semantic_nodes`;
  return {
    async insert(ownerId: string, n: NewNode, now: Date): Promise<string> {
      const id = randomUUID();
      await q.query(
        `INSERT INTO semantic_nodes (id, owner_id, key, entity_type, label, value, context, confidence, version,
           discovery_episode_id, discovery_method, keywords, tags, source, importance, base_importance, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, $9, $10, $11, $12, $13, $14, $14, $15, $15)`,
        [id, ownerId, n.key, n.entityType, n.label, n.value, n.context, n.confidence, n.discoveryEpisodeId, n.discoveryMethod, n.keywords, n.tags, n.source, n.importance, now],
      );
      return id;
    },

    async byKey(ownerId: string, key: string): Promise<SemanticNode | null> {
      const r = await q.query<NodeRow>(`${nodeSelect} WHERE owner_id = $1 AND key = $2`, [ownerId, key]);
      return r.rows[0] ? toNode(r.rows[0]) : null;
    },

    async byIds(ownerId: string, ids: readonly string[]): Promise<SemanticNode[]> {
      if (ids.length === 0) return [];
      const r = await q.query<NodeRow>(`${nodeSelect} WHERE owner_id = $1 AND id = ANY($2::uuid[])`, [ownerId, ids]);
      return r.rows.map(toNode);
    },

    /** Facts page by page, newest change first; trashed ones only when asked for. */
    async list(
      ownerId: string,
      o: { entityType?: string | undefined; tiers: readonly SemanticNode['tier'][]; limit: number; before?: { at: Date; id: string } | undefined },
    ): Promise<SemanticNode[]> {
      const p = new Params();
      let where = `owner_id = ${p.add(ownerId)} AND tier = ANY(${p.add(o.tiers)}::text[])`;
      if (o.entityType) where += ` AND entity_type = ${p.add(o.entityType)}`;
      if (o.before) where += ` AND (updated_at, id) < (${p.add(o.before.at)}, ${p.add(o.before.id)}::uuid)`;
      const r = await q.query<NodeRow>(`${nodeSelect} WHERE ${where} ORDER BY updated_at DESC, id DESC LIMIT ${p.add(o.limit)}`, p.values);
      return r.rows.map(toNode);
    },

    /** Entity types with how many live facts each has: the knowledge view's sections. */
    async entityTypes(ownerId: string): Promise<{ entityType: string; count: number }[]> {
      const r = await q.query<{ entity_type: string; n: number }>(
        `SELECT entity_type, count(*)::int AS n FROM semantic_nodes WHERE owner_id = $1 AND tier <> 'trash' GROUP BY entity_type ORDER BY n DESC, entity_type`,
        [ownerId],
      );
      return r.rows.map((x) => ({ entityType: x.entity_type, count: x.n }));
    },

    async update(ownerId: string, id: string, patch: NodePatch, now: Date): Promise<void> {
      const p = new Params();
      const sets: string[] = [`updated_at = ${p.add(now)}`];
      const col = (c: string, v: unknown) => sets.push(`${c} = ${p.add(v)}`);
      if (patch.value !== undefined) col('value', patch.value);
      if (patch.context !== undefined) col('context', patch.context);
      if (patch.confidence !== undefined) col('confidence', patch.confidence);
      if (patch.version !== undefined) col('version', patch.version);
      if (patch.keywords !== undefined) col('keywords', patch.keywords);
      if (patch.tags !== undefined) col('tags', patch.tags);
      if (patch.source !== undefined) col('source', patch.source);
      if (patch.importance !== undefined) col('importance', patch.importance);
      if (patch.baseImportance !== undefined) col('base_importance', patch.baseImportance);
      if (patch.accessed !== undefined) {
        col('last_accessed', patch.accessed);
        sets.push('access_count = access_count + 1');
      }
      await q.query(`UPDATE semantic_nodes SET ${sets.join(', ')} WHERE owner_id = ${p.add(ownerId)} AND id = ${p.add(id)}`, p.values);
    },

    /** Access tracking (seed 003 LRU): a recall counts, and remembers how relevant the fact was. */
    async recordAccess(ownerId: string, hits: readonly { id: string; relevance: number }[], now: Date): Promise<void> {
      if (hits.length === 0) return;
      await q.query(
        `UPDATE semantic_nodes n SET access_count = n.access_count + 1, last_accessed = $2, relevance = u.rel
         FROM unnest($3::uuid[], $4::real[]) AS u(id, rel) WHERE n.owner_id = $1 AND n.id = u.id`,
        [ownerId, now, hits.map((h) => h.id), hits.map((h) => h.relevance)],
      );
    },

    async setTier(ownerId: string, ids: readonly string[], tier: SemanticNode['tier'], reason: ForgettingReason | null, now: Date): Promise<string[]> {
      if (ids.length === 0) return [];
      const r = await q.query<{ id: string }>(
        `UPDATE semantic_nodes SET tier = $3, tier_reason = $4, tier_changed_at = $5 WHERE owner_id = $1 AND id = ANY($2::uuid[]) RETURNING id`,
        [ownerId, ids, tier, reason && serializeReason(reason), now],
      );
      return r.rows.map((x) => x.id);
    },

    async setImportance(ownerId: string, rows: readonly { id: string; importance: number }[]): Promise<void> {
      if (rows.length === 0) return;
      await q.query(
        `UPDATE semantic_nodes n SET importance = u.imp FROM unnest($2::uuid[], $3::real[]) AS u(id, imp) WHERE n.owner_id = $1 AND n.id = u.id`,
        [ownerId, rows.map((r) => r.id), rows.map((r) => r.importance)],
      );
    },

    async mark(ownerId: string, id: string, marked: boolean | null, importance: number): Promise<boolean> {
      const r = await q.query(`UPDATE semantic_nodes SET marked_important = $3, importance = $4 WHERE owner_id = $1 AND id = $2`, [ownerId, id, marked, importance]);
      return (r.affectedRows ?? 0) > 0;
    },

    /** Deletes facts with every version, link, relationship, keyword entry and vector (cascades). */
    async delete(ownerId: string, ids: readonly string[]): Promise<string[]> {
      if (ids.length === 0) return [];
      const r = await q.query<{ id: string }>(`DELETE FROM semantic_nodes WHERE owner_id = $1 AND id = ANY($2::uuid[]) RETURNING id`, [ownerId, ids]);
      return r.rows.map((x) => x.id);
    },

    // ── versions ──

    async addVersion(ownerId: string, nodeId: string, v: NewVersion, now: Date): Promise<void> {
      await q.query(
        `INSERT INTO semantic_versions (node_id, owner_id, version, value, context, confidence, link, method, episode_id, source_message_ids, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::uuid[], $11)`,
        [nodeId, ownerId, v.version, v.value, v.context, v.confidence, v.link, v.method, v.episodeId, v.sourceMessageIds, now],
      );
    },

    async versions(ownerId: string, nodeId: string): Promise<SemanticVersion[]> {
      const r = await q.query<VersionRow>(`SELECT * FROM semantic_versions WHERE owner_id = $1 AND node_id = $2 ORDER BY version`, [ownerId, nodeId]);
      return r.rows.map(toVersion);
    },

    /** A correction leaves the wrong value in the history, with its confidence lowered to at most `confidence`. */
    async markCorrected(ownerId: string, nodeId: string, version: number, confidence: number): Promise<void> {
      await q.query(
        `UPDATE semantic_versions SET corrected = true, confidence = LEAST(confidence, $4) WHERE owner_id = $1 AND node_id = $2 AND version = $3`,
        [ownerId, nodeId, version, confidence],
      );
    },

    /** Keeps the newest `keep` versions (seed 000 version limit); returns how many older ones went. */
    async pruneVersions(ownerId: string, nodeId: string, keep: number): Promise<number> {
      const r = await q.query(
        `DELETE FROM semantic_versions WHERE owner_id = $1 AND node_id = $2
           AND version <= (SELECT max(version) FROM semantic_versions WHERE owner_id = $1 AND node_id = $2) - $3`,
        [ownerId, nodeId, keep],
      );
      return r.affectedRows ?? 0;
    },

    /** Source messages of every kept version, oldest version first (provenance of a fact). */
    async sourceMessages(ownerId: string, nodeIds: readonly string[]): Promise<Map<string, string[]>> {
      const out = new Map<string, string[]>();
      if (nodeIds.length === 0) return out;
      const r = await q.query<{ node_id: string; ids: string[] }>(
        `SELECT node_id, array_agg(DISTINCT m) AS ids FROM semantic_versions, unnest(source_message_ids) AS m
         WHERE owner_id = $1 AND node_id = ANY($2::uuid[]) GROUP BY node_id`,
        [ownerId, nodeIds],
      );
      for (const row of r.rows) out.set(row.node_id, row.ids);
      return out;
    },

    // ── links to episodes (both directions from one table) ──

    async link(ownerId: string, nodeId: string, episodeId: string, role: LinkRole, now: Date): Promise<void> {
      await q.query(
        `INSERT INTO semantic_episode_links (node_id, episode_id, owner_id, role, created_at)
         SELECT $2, e.id, $1, $4, $5 FROM episodes e WHERE e.owner_id = $1 AND e.id = $3
         ON CONFLICT DO NOTHING`,
        [ownerId, nodeId, episodeId, role, now],
      );
    },

    async linksOf(ownerId: string, nodeIds: readonly string[]): Promise<SemanticLink[]> {
      if (nodeIds.length === 0) return [];
      const r = await q.query<{ node_id: string; episode_id: string; role: LinkRole; created_at: Date }>(
        `SELECT node_id, episode_id, role, created_at FROM semantic_episode_links WHERE owner_id = $1 AND node_id = ANY($2::uuid[]) ORDER BY created_at`,
        [ownerId, nodeIds],
      );
      return r.rows.map((x) => ({ nodeId: x.node_id, episodeId: x.episode_id, role: x.role, createdAt: x.created_at }));
    },

    async linksOfEpisodes(ownerId: string, episodeIds: readonly string[]): Promise<SemanticLink[]> {
      if (episodeIds.length === 0) return [];
      const r = await q.query<{ node_id: string; episode_id: string; role: LinkRole; created_at: Date }>(
        `SELECT l.node_id, l.episode_id, l.role, l.created_at FROM semantic_episode_links l
         JOIN semantic_nodes n ON n.id = l.node_id AND n.tier <> 'trash'
         WHERE l.owner_id = $1 AND l.episode_id = ANY($2::uuid[]) ORDER BY l.created_at`,
        [ownerId, episodeIds],
      );
      return r.rows.map((x) => ({ nodeId: x.node_id, episodeId: x.episode_id, role: x.role, createdAt: x.created_at }));
    },

    // ── relationships ──

    /** Inserts, or reinforces an existing one (keeps the stronger strength, refreshes last_reinforced). */
    async relate(
      ownerId: string,
      rel: { sourceId: string; targetId: string; type: RelationshipType; strength: number; description: string; discoveryEpisodeId: string | null },
      now: Date,
    ): Promise<void> {
      if (rel.sourceId === rel.targetId) return;
      await q.query(
        `INSERT INTO semantic_relationships (id, owner_id, source_id, target_id, type, strength, description, discovery_episode_id, created_at, last_reinforced)
         SELECT $1, $2, $3, $4, $5, $6, $7, e.id, $9, $9 FROM (SELECT 1) one LEFT JOIN episodes e ON e.owner_id = $2 AND e.id = $8::uuid
         ON CONFLICT (source_id, target_id, type) DO UPDATE SET
           strength = GREATEST(semantic_relationships.strength, EXCLUDED.strength), last_reinforced = EXCLUDED.last_reinforced,
           description = CASE WHEN EXCLUDED.description <> '' THEN EXCLUDED.description ELSE semantic_relationships.description END`,
        [randomUUID(), ownerId, rel.sourceId, rel.targetId, rel.type, rel.strength, rel.description, rel.discoveryEpisodeId, now],
      );
    },

    /** Relationships touching any of the nodes, in either direction, between facts not in the trash. */
    async relationshipsOf(ownerId: string, nodeIds: readonly string[]): Promise<SemanticRelationship[]> {
      if (nodeIds.length === 0) return [];
      const r = await q.query<RelationshipRow>(
        `SELECT r.* FROM semantic_relationships r
         JOIN semantic_nodes s ON s.id = r.source_id AND s.tier <> 'trash'
         JOIN semantic_nodes t ON t.id = r.target_id AND t.tier <> 'trash'
         WHERE r.owner_id = $1 AND (r.source_id = ANY($2::uuid[]) OR r.target_id = ANY($2::uuid[]))
         ORDER BY r.strength DESC, r.created_at`,
        [ownerId, nodeIds],
      );
      return r.rows.map(toRelationship);
    },

    // ── keyword index ──

    async setTerms(ownerId: string, nodeId: string, terms: ReadonlyMap<string, number>, length: number, tokens: number): Promise<void> {
      await q.query(`DELETE FROM semantic_terms WHERE owner_id = $1 AND node_id = $2`, [ownerId, nodeId]);
      if (terms.size > 0) {
        await q.query(
          `INSERT INTO semantic_terms (node_id, owner_id, term, tf) SELECT $2, $1, u.term, u.tf FROM unnest($3::text[], $4::real[]) AS u(term, tf)`,
          [ownerId, nodeId, [...terms.keys()], [...terms.values()]],
        );
      }
      await q.query(`UPDATE semantic_nodes SET term_len = $3, tokens = $4 WHERE owner_id = $1 AND id = $2`, [ownerId, nodeId, length, tokens]);
      track(terms.size);
    },

    /**
     * BM25 over the owner's facts outside the trash, idf and average length computed live (facts are
     * few, so there is nothing to precompute). Filters narrow the results, not the statistics.
     */
    async keywordSearch(
      ownerId: string,
      terms: readonly string[],
      o: { limit: number; filters: SemanticFilters; k1: number; b: number },
    ): Promise<KeywordHit[]> {
      if (terms.length === 0) return [];
      const qtf = new Map<string, number>();
      for (const t of terms) qtf.set(t, (qtf.get(t) ?? 0) + 1);
      const p = new Params();
      const owner = p.add(ownerId);
      const k1 = `${p.add(o.k1)}::float8`;
      const b = `${p.add(o.b)}::float8`;
      // One round trip. Postings are read by term first, then their facts by primary key: the order that
      // stays cheap whatever the planner believes about these small, often fresh tables.
      const filters = filterSql(o.filters, p, 'n');
      const r = await q.query<{ node_id: string; score: number; terms: string[] }>(
        `WITH q AS (SELECT * FROM unnest(${p.add([...qtf.keys()])}::text[], ${p.add([...qtf.values()])}::float8[]) AS q(term, qtf)),
              t AS MATERIALIZED (
                SELECT s.node_id, s.term, s.tf, n.term_len FROM semantic_terms s
                JOIN semantic_nodes n ON n.id = s.node_id AND n.tier <> 'trash'
                WHERE s.owner_id = ${owner} AND s.term = ANY(${p.add([...qtf.keys()])}::text[])),
              st AS (SELECT count(*)::float8 AS n, GREATEST(avg(term_len), 1)::float8 AS avgdl FROM semantic_nodes WHERE owner_id = ${owner} AND tier <> 'trash'),
              w AS (SELECT t.term, q.qtf * ln(1 + (st.n - count(*) + 0.5) / (count(*) + 0.5)) * (${k1} + 1) AS w
                    FROM t JOIN q USING (term) CROSS JOIN st GROUP BY t.term, q.qtf, st.n)
         SELECT t.node_id, sum(w.w * t.tf / (t.tf + ${k1} * (1 - ${b} + ${b} * t.term_len / st.avgdl)))::float8 AS score,
                array_agg(t.term ORDER BY t.term) AS terms
         FROM t JOIN w USING (term) CROSS JOIN st
         ${filters ? `JOIN semantic_nodes n ON n.id = t.node_id${filters}` : ''}
         GROUP BY t.node_id ORDER BY score DESC, t.node_id LIMIT ${p.add(o.limit)}`,
        p.values,
      );
      return r.rows.map((x) => ({ id: x.node_id, score: x.score, matchedTerms: x.terms }));
    },

    /**
     * What a search result shows, in one lean query (search is the hot path): the fact, the messages of
     * every kept version, and the episodes linked to it.
     */
    async searchResults(ownerId: string, ids: readonly string[]): Promise<FactResultRow[]> {
      if (ids.length === 0) return [];
      const r = await q.query<{
        id: string; key: string; entity_type: string; label: string; value: string; context: string; version: number; confidence: number; updated_at: Date;
        sources: { id: string; externalId: string | null; speaker: string; sentAt: string }[]; episode_ids: string[] | null;
      }>(
        `SELECT n.id, n.key, n.entity_type, n.label, n.value, n.context, n.version, n.confidence, n.updated_at,
                COALESCE((SELECT json_agg(json_build_object('id', m.id, 'externalId', m.external_id, 'speaker', m.speaker, 'sentAt', m.sent_at) ORDER BY m.sent_at, m.seq)
                          FROM (SELECT DISTINCT unnest(v.source_message_ids) AS mid FROM semantic_versions v WHERE v.node_id = n.id) s
                          CROSS JOIN LATERAL (SELECT * FROM messages m WHERE m.id = s.mid AND m.owner_id = $1) m), '[]'::json) AS sources,
                (SELECT array_agg(DISTINCT l.episode_id) FROM semantic_episode_links l WHERE l.node_id = n.id) AS episode_ids
         FROM semantic_nodes n WHERE n.owner_id = $1 AND n.id = ANY($2::uuid[])`,
        [ownerId, ids],
      );
      return r.rows.map((x) => ({
        id: x.id,
        key: x.key,
        entityType: x.entity_type,
        label: x.label,
        value: x.value,
        context: x.context,
        version: x.version,
        confidence: x.confidence,
        updatedAt: x.updated_at,
        sources: x.sources.map((m) => ({ ...m, sentAt: new Date(m.sentAt) })),
        episodeIds: x.episode_ids ?? [],
      }));
    },

    // ── vectors ──

    async setVector(ownerId: string, nodeId: string, modelId: string, vector: Float32Array): Promise<void> {
      await q.query(
        `INSERT INTO semantic_embeddings (node_id, owner_id, model_id, embedding)
         SELECT n.id, $1, $3, $4::vector FROM semantic_nodes n WHERE n.owner_id = $1 AND n.id = $2 AND n.tier = 'active'
         ON CONFLICT (node_id) DO UPDATE SET model_id = EXCLUDED.model_id, embedding = EXCLUDED.embedding`,
        [ownerId, nodeId, modelId, vectorLiteral(vector)],
      );
    },

    async removeVectors(ownerId: string, nodeIds: readonly string[]): Promise<void> {
      if (nodeIds.length === 0) return;
      await q.query(`DELETE FROM semantic_embeddings WHERE owner_id = $1 AND node_id = ANY($2::uuid[])`, [ownerId, nodeIds]);
    },

    async anyVector(ownerId: string, modelId: string): Promise<boolean> {
      const r = await q.query(`SELECT 1 FROM semantic_embeddings WHERE owner_id = $1 AND model_id = $2 LIMIT 1`, [ownerId, modelId]);
      return r.rows.length > 0;
    },

    /** Exact cosine search over the owner's active facts embedded with this model. */
    async vectorSearch(
      ownerId: string,
      space: { modelId: string; dimensions: number },
      vector: Float32Array,
      o: { limit: number; filters: SemanticFilters; within?: readonly string[] | undefined },
    ): Promise<{ id: string; similarity: number }[]> {
      const p = new Params();
      const owner = p.add(ownerId);
      const d = space.dimensions;
      const dist = `se.embedding::vector(${d}) <=> ${p.add(vectorLiteral(vector))}::vector(${d})`;
      const within = o.within ? ` AND se.node_id = ANY(${p.add(o.within)}::uuid[])` : '';
      const r = await q.query<{ node_id: string; distance: number }>(
        `SELECT se.node_id, ${dist} AS distance FROM semantic_embeddings se
         JOIN semantic_nodes n ON n.id = se.node_id AND n.owner_id = ${owner} AND n.tier = 'active'${filterSql(o.filters, p, 'n')}
         WHERE se.owner_id = ${owner} AND se.model_id = ${p.add(space.modelId)}${within}
         ORDER BY distance LIMIT ${p.add(o.limit)}`,
        p.values,
      );
      return r.rows.map((x) => ({ id: x.node_id, similarity: 1 - x.distance }));
    },

    /** Active facts whose vector is missing or from another model: the re-embedding work list. */
    async staleVectors(ownerId: string, modelId: string, limit: number): Promise<SemanticNode[]> {
      const r = await q.query<NodeRow>(
        `SELECT n.* FROM semantic_nodes n LEFT JOIN semantic_embeddings se ON se.node_id = n.id
         WHERE n.owner_id = $1 AND n.tier = 'active' AND (se.model_id IS NULL OR se.model_id <> $2) ORDER BY n.created_at LIMIT $3`,
        [ownerId, modelId, limit],
      );
      return r.rows.map(toNode);
    },

    // ── capacity (seed 003) ──

    async usage(ownerId: string, high: number, low: number): Promise<{ items: number; tokens: number; protected: number; lowImportance: number; versions: number; trashed: number }> {
      const r = await q.query<{ items: number; tokens: number; protected: number; low: number; versions: number; trashed: number }>(
        `SELECT count(*) FILTER (WHERE tier <> 'trash')::int AS items,
                COALESCE(sum(tokens) FILTER (WHERE tier <> 'trash'), 0)::int AS tokens,
                count(*) FILTER (WHERE tier <> 'trash' AND (importance >= $2 OR marked_important IS TRUE))::int AS protected,
                count(*) FILTER (WHERE tier <> 'trash' AND importance < $3 AND marked_important IS NOT TRUE)::int AS low,
                COALESCE(sum(version) FILTER (WHERE tier <> 'trash'), 0)::int AS versions,
                count(*) FILTER (WHERE tier = 'trash')::int AS trashed
         FROM semantic_nodes WHERE owner_id = $1`,
        [ownerId, high, low],
      );
      const x = r.rows[0]!;
      return { items: x.items, tokens: x.tokens, protected: x.protected, lowImportance: x.low, versions: x.versions, trashed: x.trashed };
    },

    /**
     * Eviction order: unprotected facts (importance below `high`, not marked important), those below
     * `low` first, then least recently used, then least important. `exclude` keeps the fact being written.
     */
    async evictionOrder(ownerId: string, high: number, low: number, limit: number, exclude: readonly string[]): Promise<SemanticNode[]> {
      const r = await q.query<NodeRow>(
        `${nodeSelect} WHERE owner_id = $1 AND tier <> 'trash' AND importance < $2 AND marked_important IS NOT TRUE AND NOT (id = ANY($5::uuid[]))
         ORDER BY (importance < $3) DESC, COALESCE(last_accessed, updated_at), importance, id LIMIT $4`,
        [ownerId, high, low, limit, exclude],
      );
      return r.rows.map(toNode);
    },

    /** Seed 003 forget instructions `oldest` / `least important` / `before:` pick from facts outside the trash. */
    async pick(ownerId: string, o: { order: 'lru' | 'importance'; limit: number } | { createdBefore: Date }): Promise<SemanticNode[]> {
      if ('createdBefore' in o) {
        const r = await q.query<NodeRow>(`${nodeSelect} WHERE owner_id = $1 AND tier <> 'trash' AND created_at < $2 ORDER BY created_at, id`, [ownerId, o.createdBefore]);
        return r.rows.map(toNode);
      }
      const order = o.order === 'lru' ? 'COALESCE(last_accessed, updated_at), id' : 'importance, COALESCE(last_accessed, updated_at), id';
      const r = await q.query<NodeRow>(`${nodeSelect} WHERE owner_id = $1 AND tier <> 'trash' ORDER BY ${order} LIMIT $2`, [ownerId, o.limit]);
      return r.rows.map(toNode);
    },

    // ── discovery queue ──

    async enqueue(ownerId: string, episodeIds: readonly string[], now: Date): Promise<void> {
      if (episodeIds.length === 0) return;
      await q.query(
        `INSERT INTO semantic_discovery_queue (episode_id, owner_id, queued_at)
         SELECT e.id, $1, $3 FROM episodes e WHERE e.owner_id = $1 AND e.id = ANY($2::uuid[])
         ON CONFLICT (episode_id) DO UPDATE SET queued_at = EXCLUDED.queued_at, attempts = 0, last_error = NULL`,
        [ownerId, episodeIds, now],
      );
    },

    /**
     * Queued episodes in time order (so facts evolve in the order they were said). Stand-ins built while
     * the LLM failed wait until `rebuild --llm` replaces them: reading them now would spend calls on text
     * about to change.
     */
    async queued(ownerId: string, limit: number, maxAttempts: number): Promise<string[]> {
      const r = await q.query<{ episode_id: string }>(
        `SELECT qd.episode_id FROM semantic_discovery_queue qd JOIN episodes e ON e.id = qd.episode_id
         WHERE qd.owner_id = $1 AND qd.attempts < $3 AND e.tier <> 'trash' AND e.processing_status = 'ready'
         ORDER BY e.start_at, e.id LIMIT $2`,
        [ownerId, limit, maxAttempts],
      );
      return r.rows.map((x) => x.episode_id);
    },

    async ownersWaiting(): Promise<string[]> {
      const r = await q.query<{ owner_id: string }>(`SELECT DISTINCT owner_id FROM semantic_discovery_queue WHERE last_error IS NULL`);
      return r.rows.map((x) => x.owner_id);
    },

    async queueSize(ownerId: string): Promise<{ waiting: number; failed: number }> {
      const r = await q.query<{ waiting: number; failed: number }>(
        `SELECT count(*) FILTER (WHERE last_error IS NULL)::int AS waiting, count(*) FILTER (WHERE last_error IS NOT NULL)::int AS failed
         FROM semantic_discovery_queue WHERE owner_id = $1`,
        [ownerId],
      );
      return r.rows[0]!;
    },

    async dequeue(ownerId: string, episodeId: string): Promise<void> {
      await q.query(`DELETE FROM semantic_discovery_queue WHERE owner_id = $1 AND episode_id = $2`, [ownerId, episodeId]);
    },

    async queueFailed(ownerId: string, episodeId: string, error: string): Promise<void> {
      await q.query(
        `UPDATE semantic_discovery_queue SET attempts = attempts + 1, last_error = $3 WHERE owner_id = $1 AND episode_id = $2`,
        [ownerId, episodeId, error],
      );
    },

    /** Every fact of the owner mentioning `needle` in its key, value, context or any version (forget-about). */
    async mentioning(ownerId: string, needle: string): Promise<SemanticNode[]> {
      const r = await q.query<NodeRow>(
        `${nodeSelect} n WHERE n.owner_id = $1 AND (
           strpos(lower(n.label || ' ' || n.value || ' ' || n.context), lower($2)) > 0
           OR EXISTS (SELECT 1 FROM semantic_versions v WHERE v.node_id = n.id AND strpos(lower(v.value || ' ' || v.context), lower($2)) > 0))`,
        [ownerId, needle],
      );
      return r.rows.map(toNode);
    },

    /** Facts drawn from these episodes (discovery or evolution), for forget-about. */
    async derivedFrom(ownerId: string, episodeIds: readonly string[]): Promise<SemanticNode[]> {
      if (episodeIds.length === 0) return [];
      const r = await q.query<NodeRow>(
        `${nodeSelect} n WHERE n.owner_id = $1 AND EXISTS (SELECT 1 FROM semantic_versions v WHERE v.node_id = n.id AND v.episode_id = ANY($2::uuid[]))`,
        [ownerId, episodeIds],
      );
      return r.rows.map(toNode);
    },
  };
}
export type SemanticRepo = ReturnType<typeof semanticRepo>;
