import { randomUUID } from 'node:crypto';
import type { Sql } from './sql.js';

/**
 * The knowledge graph in tables retrieval can walk: entities with stable ids per owner,
 * the names (aliases) they are known by, which episodes mention them, and relationship triples tied
 * to the episode that told them. Deleting an episode removes its links and triples (foreign keys) and
 * any entity left without an episode (trigger in 003_llm.sql).
 */

/** What the builder extracted from one episode; keys are `entityKey()` of the names. */
export interface GraphInput {
  entities: { name: string; key: string; type: string; role: string | null; aliases: { alias: string; key: string }[] }[];
  relationships: { subjectKey: string; predicate: string; objectKey: string }[];
}

export interface EntityRef {
  id: string;
  name: string;
  type: string;
}

export interface EpisodeGraph {
  entities: (EntityRef & { role: string | null; aliases: string[] })[];
  relationships: { subject: EntityRef; predicate: string; object: EntityRef }[];
}

export interface EntitySummary extends EntityRef {
  aliases: string[];
  episodes: number;
}

export function graphReads(q: Sql) {
  return {
    async episodeGraph(ownerId: string, episodeId: string): Promise<EpisodeGraph> {
      const ents = await q.query<{ id: string; name: string; entity_type: string; role: string | null; aliases: string[] | null }>(
        `SELECT e.id, e.name, e.entity_type, ee.role,
                (SELECT array_agg(a.alias ORDER BY a.alias) FROM entity_aliases a WHERE a.owner_id = e.owner_id AND a.entity_id = e.id) AS aliases
         FROM episode_entities ee JOIN entities e ON e.id = ee.entity_id AND e.owner_id = ee.owner_id
         WHERE ee.owner_id = $1 AND ee.episode_id = $2 ORDER BY e.name`,
        [ownerId, episodeId],
      );
      const rels = await q.query<{
        s_id: string;
        s_name: string;
        s_type: string;
        predicate: string;
        o_id: string;
        o_name: string;
        o_type: string;
      }>(
        `SELECT s.id AS s_id, s.name AS s_name, s.entity_type AS s_type, r.predicate, o.id AS o_id, o.name AS o_name, o.entity_type AS o_type
         FROM entity_relationships r
         JOIN entities s ON s.id = r.subject_id AND s.owner_id = r.owner_id
         JOIN entities o ON o.id = r.object_id AND o.owner_id = r.owner_id
         WHERE r.owner_id = $1 AND r.episode_id = $2 ORDER BY r.created_at, r.predicate`,
        [ownerId, episodeId],
      );
      return {
        entities: ents.rows.map((r) => ({
          id: r.id,
          name: r.name,
          type: r.entity_type,
          role: r.role,
          aliases: (r.aliases ?? []).filter((a) => a !== r.name),
        })),
        relationships: rels.rows.map((r) => ({
          subject: { id: r.s_id, name: r.s_name, type: r.s_type },
          predicate: r.predicate,
          object: { id: r.o_id, name: r.o_name, type: r.o_type },
        })),
      };
    },

    /** The owner's entities, most mentioned first; `keyPrefix` filters on any name or alias key. */
    async entities(ownerId: string, o: { keyPrefix?: string | undefined; limit: number }): Promise<EntitySummary[]> {
      const r = await q.query<{ id: string; name: string; entity_type: string; aliases: string[] | null; episodes: number }>(
        `SELECT e.id, e.name, e.entity_type,
                (SELECT array_agg(a.alias ORDER BY a.alias) FROM entity_aliases a WHERE a.owner_id = e.owner_id AND a.entity_id = e.id) AS aliases,
                (SELECT count(*)::int FROM episode_entities ee WHERE ee.owner_id = e.owner_id AND ee.entity_id = e.id) AS episodes
         FROM entities e
         WHERE e.owner_id = $1
           AND ($2::text IS NULL OR EXISTS (SELECT 1 FROM entity_aliases a WHERE a.owner_id = $1 AND a.entity_id = e.id AND a.alias_key LIKE $2 || '%'))
         ORDER BY episodes DESC, e.name LIMIT $3`,
        [ownerId, o.keyPrefix ?? null, o.limit],
      );
      return r.rows.map((x) => ({
        id: x.id,
        name: x.name,
        type: x.entity_type,
        aliases: (x.aliases ?? []).filter((a) => a !== x.name),
        episodes: x.episodes,
      }));
    },

    /** Episodes that mention any of the entities: the first step of a graph walk. */
    async episodesOf(ownerId: string, entityIds: readonly string[]): Promise<{ entityId: string; episodeId: string }[]> {
      if (entityIds.length === 0) return [];
      const r = await q.query<{ entity_id: string; episode_id: string }>(
        `SELECT entity_id, episode_id FROM episode_entities WHERE owner_id = $1 AND entity_id = ANY($2::uuid[])`,
        [ownerId, entityIds],
      );
      return r.rows.map((x) => ({ entityId: x.entity_id, episodeId: x.episode_id }));
    },

    /** Triples touching any of the entities, in either direction: one hop of the graph. */
    async neighbours(
      ownerId: string,
      entityIds: readonly string[],
    ): Promise<{ subjectId: string; predicate: string; objectId: string; episodeId: string }[]> {
      if (entityIds.length === 0) return [];
      const r = await q.query<{ subject_id: string; predicate: string; object_id: string; episode_id: string }>(
        `SELECT subject_id, predicate, object_id, episode_id FROM entity_relationships
         WHERE owner_id = $1 AND (subject_id = ANY($2::uuid[]) OR object_id = ANY($2::uuid[]))`,
        [ownerId, entityIds],
      );
      return r.rows.map((x) => ({ subjectId: x.subject_id, predicate: x.predicate, objectId: x.object_id, episodeId: x.episode_id }));
    },

    /** Episodes linked to an entity known under this name key, whatever name their text uses. */
    async episodesOfEntityKey(ownerId: string, aliasKey: string): Promise<string[]> {
      const r = await q.query<{ episode_id: string }>(
        `SELECT DISTINCT x.episode_id FROM entity_aliases a
         JOIN episode_entities x ON x.entity_id = a.entity_id AND x.owner_id = $1
         WHERE a.owner_id = $1 AND a.alias_key = $2`,
        [ownerId, aliasKey],
      );
      return r.rows.map((x) => x.episode_id);
    },
  };
}

export function graphWrites(q: Sql) {
  return {
    /**
     * Links an episode to its entities, creating the ones the owner has never mentioned and reusing
     * the others by any shared key, then replaces the episode's triples. Safe to call again for the
     * same episode (a rebuild): new links are written before stale ones go, so an entity that is still
     * mentioned keeps its id instead of being dropped as an orphan and recreated.
     */
    async setEpisodeGraph(ownerId: string, episodeId: string, g: GraphInput, now: Date): Promise<Map<string, string>> {
      const allKeys = [...new Set(g.entities.flatMap((e) => [e.key, ...e.aliases.map((a) => a.key)]))];
      const known = new Map<string, string>();
      if (allKeys.length) {
        const r = await q.query<{ alias_key: string; entity_id: string }>(
          `SELECT alias_key, entity_id FROM entity_aliases WHERE owner_id = $1 AND alias_key = ANY($2::text[])`,
          [ownerId, allKeys],
        );
        for (const row of r.rows) known.set(row.alias_key, row.entity_id);
      }
      const idByKey = new Map<string, string>();
      const created: { id: string; name: string; type: string }[] = [];
      const typed: { id: string; type: string }[] = [];
      const aliases: { key: string; id: string; alias: string }[] = [];
      const links = new Map<string, string | null>();
      for (const e of g.entities) {
        const keys = [e.key, ...e.aliases.map((a) => a.key)];
        // The entity's own name decides first; an alias only links when the name is new.
        let id = known.get(e.key) ?? keys.map((k) => known.get(k) ?? idByKey.get(k)).find(Boolean);
        if (!id) {
          id = randomUUID();
          created.push({ id, name: e.name, type: e.type });
        } else if (e.type !== 'OTHER') {
          typed.push({ id, type: e.type });
        }
        for (const k of keys) if (!idByKey.has(k)) idByKey.set(k, id);
        aliases.push({ key: e.key, id, alias: e.name }, ...e.aliases.map((a) => ({ key: a.key, id, alias: a.alias })));
        if (!links.has(id) || (links.get(id) === null && e.role)) links.set(id, e.role);
      }
      if (created.length) {
        await q.query(
          `INSERT INTO entities (id, owner_id, name, entity_type, created_at, updated_at)
           SELECT u.id, $1, u.name, u.type, $2, $2 FROM unnest($3::uuid[], $4::text[], $5::text[]) AS u(id, name, type)`,
          [ownerId, now, created.map((c) => c.id), created.map((c) => c.name), created.map((c) => c.type)],
        );
      }
      if (typed.length) {
        // A later, more specific type replaces OTHER; a conflicting specific type keeps the first one seen.
        await q.query(
          `UPDATE entities e SET entity_type = u.type, updated_at = $2
           FROM unnest($3::uuid[], $4::text[]) AS u(id, type)
           WHERE e.owner_id = $1 AND e.id = u.id AND e.entity_type = 'OTHER'`,
          [ownerId, now, typed.map((t) => t.id), typed.map((t) => t.type)],
        );
      }
      if (aliases.length) {
        // A key already taken by another entity stays with it: ids never move between entities silently.
        await q.query(
          `INSERT INTO entity_aliases (owner_id, alias_key, entity_id, alias)
           SELECT $1, u.k, u.id, u.alias FROM unnest($2::text[], $3::uuid[], $4::text[]) AS u(k, id, alias)
           ON CONFLICT (owner_id, alias_key) DO NOTHING`,
          [ownerId, aliases.map((a) => a.key), aliases.map((a) => a.id), aliases.map((a) => a.alias)],
        );
      }
      const ids = [...links.keys()];
      if (ids.length) {
        await q.query(
          `INSERT INTO episode_entities (episode_id, entity_id, owner_id, role)
           SELECT $2, u.id, $1, u.role FROM unnest($3::uuid[], $4::text[]) AS u(id, role)
           ON CONFLICT (episode_id, entity_id) DO UPDATE SET role = EXCLUDED.role`,
          [ownerId, episodeId, ids, ids.map((id) => links.get(id) ?? null)],
        );
      }
      await q.query(`DELETE FROM episode_entities WHERE owner_id = $1 AND episode_id = $2 AND NOT (entity_id = ANY($3::uuid[]))`, [
        ownerId,
        episodeId,
        ids,
      ]);
      await q.query(`DELETE FROM entity_relationships WHERE owner_id = $1 AND episode_id = $2`, [ownerId, episodeId]);
      const triples = g.relationships.flatMap((t) => {
        const s = idByKey.get(t.subjectKey);
        const o = idByKey.get(t.objectKey);
        return s && o ? [{ s, p: t.predicate, o }] : [];
      });
      if (triples.length) {
        await q.query(
          `INSERT INTO entity_relationships (id, owner_id, episode_id, subject_id, predicate, object_id, created_at)
           SELECT u.id, $1, $2, u.s, u.p, u.o, $3 FROM unnest($4::uuid[], $5::uuid[], $6::text[], $7::uuid[]) AS u(id, s, p, o)`,
          [
            ownerId,
            episodeId,
            now,
            triples.map(() => randomUUID()),
            triples.map((t) => t.s),
            triples.map((t) => t.p),
            triples.map((t) => t.o),
          ],
        );
      }
      return idByKey;
    },
  };
}
