import { randomUUID } from 'node:crypto';
import { parseReason, serializeReason, type ForgettingReason } from '../domain/forgetting-reason.js';
import type { Fact } from '../domain/fact.js';
import { Params, type Sql, type WriteTracker } from './sql.js';

/**
 * Facts (table `semantic_nodes`): one private fact per key and owner, with its current value, its
 * metadata, its access record and its forgetting tier. Versions, episode links, relationships, keyword
 * entries and vectors are repositories of their own (fact-versions.ts, fact-links.ts, relationships.ts,
 * fact-terms.ts, fact-vectors.ts); deleting a fact deletes them all (foreign-key cascades).
 */

export type FactTier = Fact['tier'];

/** A fact as it comes out of JSON: its times are strings, its tier reason the stored text. */
type FactJson = Omit<Fact, 'lastAccessed' | 'tierChangedAt' | 'tierReason' | 'createdAt' | 'updatedAt'> & {
  lastAccessed: string | null;
  tierChangedAt: string | null;
  tierReason: string | null;
  createdAt: string;
  updatedAt: string;
};

/**
 * Each field of a fact and the column it is read from, in the order `factJson` gives them: one JSON
 * array a row, which PGlite turns into JS at a fraction of the cost of one value a column, and without
 * the names in every row (a page of 83 facts: 1.6 ms, 2.2 as JSON objects, 3.5 as columns).
 */
const factColumns = [
  ['id', 'id'],
  ['ownerId', 'owner_id'],
  ['key', 'key'],
  ['entityType', 'entity_type'],
  ['label', 'label'],
  ['value', 'value'],
  ['context', 'context'],
  ['confidence', 'confidence'],
  ['version', 'version'],
  ['discoveryEpisodeId', 'discovery_episode_id'],
  ['discoveryMethod', 'discovery_method'],
  ['keywords', 'keywords'],
  ['tags', 'tags'],
  ['source', 'source'],
  ['accessCount', 'access_count'],
  ['lastAccessed', 'last_accessed'],
  ['relevance', 'relevance'],
  ['importance', 'importance'],
  ['baseImportance', 'base_importance'],
  ['tokens', 'tokens'],
  ['tier', 'tier'],
  ['tierChangedAt', 'tier_changed_at'],
  ['tierReason', 'tier_reason'],
  ['markedImportant', 'marked_important'],
  ['createdAt', 'created_at'],
  ['updatedAt', 'updated_at'],
] as const satisfies readonly (readonly [keyof Fact, string])[];

// Every field of a fact is read: a field added to Fact but not above fails to compile here.
const _everyField: Exclude<keyof Fact, (typeof factColumns)[number][0]> extends never ? true : never = true;

const factJson = `json_build_array(${factColumns.map(([, column]) => `n.${column}`).join(', ')}) AS fact`;

function toFact({ fact }: { fact: unknown[] }): Fact {
  const fields: Record<string, unknown> = {};
  factColumns.forEach(([field], i) => (fields[field] = fact[i]));
  const f = fields as FactJson;
  return {
    ...f,
    lastAccessed: f.lastAccessed === null ? null : new Date(f.lastAccessed),
    tierChangedAt: f.tierChangedAt === null ? null : new Date(f.tierChangedAt),
    tierReason: parseReason(f.tierReason),
    createdAt: new Date(f.createdAt),
    updatedAt: new Date(f.updatedAt),
  };
}

/** Which facts to read: conditions on `semantic_nodes n`, and optionally their order and how many. */
export interface FactSelection {
  where: string;
  order?: string;
  limit?: string;
}

/**
 * Reads whole facts: the one mapping from the table to the domain type, shared by every fact
 * repository. The rows are ordered and cut first and made JSON after: made before, every fact of
 * the owner would be (1,333 facts, a page of 83: 8.4 ms against 1.5).
 */
export async function queryFacts(q: Sql, s: FactSelection, params: unknown[]): Promise<Fact[]> {
  const order = s.order ? ` ORDER BY ${s.order}` : '';
  const limit = s.limit ? ` LIMIT ${s.limit}` : '';
  const r = await q.query<{ fact: unknown[] }>(
    `SELECT ${factJson} FROM (SELECT * FROM semantic_nodes n WHERE ${s.where}${order}${limit}) n${order}`,
    params,
  );
  return r.rows.map(toFact);
}

/** What a new fact is stored with: the store gives it its id, version 1 and times; the rest starts at the table's defaults. */
export interface NewFact extends Pick<
  Fact,
  'key' | 'entityType' | 'label' | 'value' | 'context' | 'confidence' | 'discoveryEpisodeId' | 'discoveryMethod' | 'source' | 'importance'
> {
  keywords: readonly string[];
  tags: readonly string[];
}

/** Fields an evolution, reinforcement or upsert may change on a fact. */
export interface FactPatch {
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

/**
 * What fact search may be narrowed to: the metadata a fact is stored with (entity type, tags, source,
 * confidence, importance). Trashed facts are never searched.
 */
export interface FactFilters {
  entityTypes?: readonly string[] | undefined;
  tags?: readonly string[] | undefined;
  source?: string | undefined;
  minConfidence?: number | undefined;
  minImportance?: number | undefined;
}

/** The filters as SQL conditions on the `semantic_nodes` alias `alias`, each starting with AND. */
export function factFilterSql(f: FactFilters, p: Params, alias: string): string {
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

/** Facts in some tiers, of an entity type or under a key prefix (`scope`) when one is given. */
interface FactScope {
  tiers: readonly FactTier[];
  scope?: string | undefined;
}

function scopeSql(ownerId: string, o: FactScope, p: Params): string {
  let where = `owner_id = ${p.add(ownerId)} AND tier = ANY(${p.add(o.tiers)}::text[])`;
  if (o.scope) {
    const scope = p.add(o.scope);
    where += ` AND (entity_type = ${scope} OR starts_with(key, ${scope}))`;
  }
  return where;
}

export function factReads(q: Sql) {
  return {
    async byKey(ownerId: string, key: string): Promise<Fact | null> {
      const [fact] = await queryFacts(q, { where: 'owner_id = $1 AND key = $2' }, [ownerId, key]);
      return fact ?? null;
    },

    async byIds(ownerId: string, ids: readonly string[]): Promise<Fact[]> {
      if (ids.length === 0) return [];
      return queryFacts(q, { where: 'owner_id = $1 AND id = ANY($2::uuid[])' }, [ownerId, ids]);
    },

    /** Facts page by page, newest change first; trashed ones only when asked for. */
    async list(
      ownerId: string,
      o: { entityType?: string | undefined; tiers: readonly FactTier[]; limit: number; before?: { at: Date; id: string } | undefined },
    ): Promise<Fact[]> {
      const p = new Params();
      let where = scopeSql(ownerId, { tiers: o.tiers }, p);
      if (o.entityType) where += ` AND entity_type = ${p.add(o.entityType)}`;
      if (o.before) where += ` AND (updated_at, id) < (${p.add(o.before.at)}, ${p.add(o.before.id)}::uuid)`;
      return queryFacts(q, { where, order: 'updated_at DESC, id DESC', limit: p.add(o.limit) }, p.values);
    },

    /**
     * Facts most important first, then most certain, then latest changed, a page at a time after `after`
     * (the last fact of the page before): a summary reads as many as its budget holds, not every fact
     * the person has. `scope`: an entity type, or the start of a key.
     */
    async byImportance(ownerId: string, o: FactScope & { limit: number; after?: Fact | undefined }): Promise<Fact[]> {
      const p = new Params();
      let where = scopeSql(ownerId, o, p);
      const a = o.after;
      if (a)
        where += ` AND (importance, confidence, updated_at, id) < (${p.add(a.importance)}::real, ${p.add(a.confidence)}::real, ${p.add(a.updatedAt)}, ${p.add(a.id)}::uuid)`;
      return queryFacts(q, { where, order: 'importance DESC, confidence DESC, updated_at DESC, id DESC', limit: p.add(o.limit) }, p.values);
    },

    /** How many facts the owner has outside the trash: kept in fact_stats (migration 016), not counted. */
    async outsideTrash(ownerId: string): Promise<number> {
      const r = await q.query<{ n: number }>(`SELECT COALESCE((SELECT facts FROM fact_stats WHERE owner_id = $1), 0) AS n`, [ownerId]);
      return r.rows[0]!.n;
    },

    /** How many facts there are in these tiers and scope. */
    async count(ownerId: string, o: FactScope): Promise<number> {
      const p = new Params();
      const r = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM semantic_nodes WHERE ${scopeSql(ownerId, o, p)}`, p.values);
      return r.rows[0]!.n;
    },

    /** Entity types with how many live facts each has: the knowledge view's sections. */
    async entityTypes(ownerId: string): Promise<{ entityType: string; count: number }[]> {
      const r = await q.query<{ entity_type: string; n: number }>(
        `SELECT entity_type, count(*)::int AS n FROM semantic_nodes WHERE owner_id = $1 AND tier <> 'trash' GROUP BY entity_type ORDER BY n DESC, entity_type`,
        [ownerId],
      );
      return r.rows.map((x) => ({ entityType: x.entity_type, count: x.n }));
    },

    /**
     * What a search result shows, in one lean query (search is the hot path): the fact, the messages of
     * every kept version, and the episodes linked to it.
     */
    async searchResults(ownerId: string, ids: readonly string[]): Promise<FactResultRow[]> {
      if (ids.length === 0) return [];
      const r = await q.query<
        Omit<FactResultRow, 'sources'> & { sources: { id: string; externalId: string | null; speaker: string; sentAt: string }[] }
      >(
        `SELECT n.id, n.key, n.entity_type AS "entityType", n.label, n.value, n.context, n.version, n.confidence, n.updated_at AS "updatedAt",
                COALESCE((SELECT json_agg(json_build_object('id', m.id, 'externalId', m.external_id, 'speaker', m.speaker, 'sentAt', m.sent_at) ORDER BY m.sent_at, m.seq)
                          FROM (SELECT DISTINCT unnest(v.source_message_ids) AS mid FROM semantic_versions v WHERE v.node_id = n.id) s
                          CROSS JOIN LATERAL (SELECT * FROM messages m WHERE m.id = s.mid AND m.owner_id = $1) m), '[]'::json) AS sources,
                COALESCE((SELECT array_agg(DISTINCT l.episode_id) FROM semantic_episode_links l WHERE l.node_id = n.id), '{}') AS "episodeIds"
         FROM semantic_nodes n WHERE n.owner_id = $1 AND n.id = ANY($2::uuid[])`,
        [ownerId, ids],
      );
      return r.rows.map((x) => ({ ...x, sources: x.sources.map((m) => ({ ...m, sentAt: new Date(m.sentAt) })) }));
    },
  };
}

export function factWrites(q: Sql, track: WriteTracker) {
  return {
    async insert(ownerId: string, n: NewFact, now: Date): Promise<string> {
      const id = randomUUID();
      await q.query(
        `INSERT INTO semantic_nodes (id, owner_id, key, entity_type, label, value, context, confidence, version,
           discovery_episode_id, discovery_method, keywords, tags, source, importance, base_importance, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, $9, $10, $11, $12, $13, $14, $14, $15, $15)`,
        [
          id,
          ownerId,
          n.key,
          n.entityType,
          n.label,
          n.value,
          n.context,
          n.confidence,
          n.discoveryEpisodeId,
          n.discoveryMethod,
          n.keywords,
          n.tags,
          n.source,
          n.importance,
          now,
        ],
      );
      return id;
    },

    async update(ownerId: string, id: string, patch: FactPatch, now: Date): Promise<void> {
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

    /**
     * Access tracking for least-recently-used eviction: a recall counts, and remembers how relevant
     * the fact was to it.
     */
    async recordAccess(ownerId: string, hits: readonly { id: string; relevance: number }[], now: Date): Promise<void> {
      if (hits.length === 0) return;
      await q.query(
        `UPDATE semantic_nodes n SET access_count = n.access_count + 1, last_accessed = $2, relevance = u.rel
         FROM unnest($3::uuid[], $4::real[]) AS u(id, rel) WHERE n.owner_id = $1 AND n.id = u.id`,
        [ownerId, now, hits.map((h) => h.id), hits.map((h) => h.relevance)],
      );
    },

    /** Moves facts to a tier with one reason; their vectors are the caller's (fact-vectors.ts), in the same transaction. */
    async setTier(ownerId: string, ids: readonly string[], tier: FactTier, reason: ForgettingReason | null, now: Date): Promise<string[]> {
      if (ids.length === 0) return [];
      const r = await q.query<{ id: string }>(
        `UPDATE semantic_nodes SET tier = $3, tier_reason = $4, tier_changed_at = $5 WHERE owner_id = $1 AND id = ANY($2::uuid[]) RETURNING id`,
        [ownerId, ids, tier, reason && serializeReason(reason), now],
      );
      track.facts(r.rows.length);
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
      const r = await q.query(`UPDATE semantic_nodes SET marked_important = $3, importance = $4 WHERE owner_id = $1 AND id = $2`, [
        ownerId,
        id,
        marked,
        importance,
      ]);
      return (r.affectedRows ?? 0) > 0;
    },

    /** Deletes facts with every version, link, relationship, keyword entry and vector (cascades). */
    async delete(ownerId: string, ids: readonly string[]): Promise<string[]> {
      if (ids.length === 0) return [];
      const r = await q.query<{ id: string }>(`DELETE FROM semantic_nodes WHERE owner_id = $1 AND id = ANY($2::uuid[]) RETURNING id`, [
        ownerId,
        ids,
      ]);
      track.facts(r.rows.length);
      return r.rows.map((x) => x.id);
    },
  };
}
