import type { Attachment } from '../domain/conversation.js';
import type { Fact } from '../domain/fact.js';
import { saidKey } from './conversations.js';
import { textArray, uuidArray, type Sql } from './sql.js';

/** What the privacy filter reads of a stored message. */
export interface MessageWords {
  id: string;
  text: string;
  attachments: Attachment[];
  metadata: Record<string, unknown>;
}

/** What a fact says, apart from its versions: what the privacy filter writes again. */
export type FactWords = Pick<Fact, 'key' | 'label' | 'value' | 'context' | 'keywords' | 'tags'>;

/** The names of an owner's entity graph, as the privacy filter reads and writes them again. */
export interface GraphNames {
  entities: { id: string; name: string }[];
  aliases: { key: string; entityId: string; alias: string }[];
  predicates: { id: string; predicate: string }[];
}

/** Graph names filtered again; an alias says the key it `was` under. */
type Renamed = Omit<GraphNames, 'aliases'> & { aliases: (GraphNames['aliases'][number] & { was: string })[] };

/** Reading what is stored again with today's privacy rules (core/forgetting/secrets.ts). */
export function privacyReads(q: Sql) {
  return {
    /** An owner's messages after `after` (all from the first without), `limit` of them, in id order. */
    async messagePage(ownerId: string, after: string | null, limit: number): Promise<MessageWords[]> {
      const r = await q.query<{ id: string; content: string; attachments: Attachment[]; metadata: Record<string, unknown> }>(
        `SELECT id, content, attachments, metadata FROM messages
         WHERE owner_id = $1 AND ($2::uuid IS NULL OR id > $2::uuid) ORDER BY id LIMIT $3`,
        [ownerId, after, limit],
      );
      return r.rows.map((x) => ({ id: x.id, text: x.content, attachments: x.attachments, metadata: x.metadata }));
    },

    async conversationTitles(ownerId: string): Promise<{ id: string; title: string }[]> {
      const r = await q.query<{ id: string; title: string }>(
        `SELECT id, title FROM conversations WHERE owner_id = $1 AND title IS NOT NULL ORDER BY id`,
        [ownerId],
      );
      return r.rows;
    },

    /** The names an owner's entity graph holds: its entities', their aliases' and its relationships' predicates. */
    async graphNames(ownerId: string): Promise<GraphNames> {
      const entities = await q.query<{ id: string; name: string }>(`SELECT id, name FROM entities WHERE owner_id = $1 ORDER BY id`, [
        ownerId,
      ]);
      const aliases = await q.query<{ key: string; entityId: string; alias: string }>(
        `SELECT alias_key AS key, entity_id AS "entityId", alias FROM entity_aliases WHERE owner_id = $1 ORDER BY alias_key`,
        [ownerId],
      );
      const predicates = await q.query<{ id: string; predicate: string }>(
        `SELECT id, predicate FROM entity_relationships WHERE owner_id = $1 ORDER BY id`,
        [ownerId],
      );
      return { entities: entities.rows, aliases: aliases.rows, predicates: predicates.rows };
    },

    /** Every episode of an owner, in the trash too (which has no live index entries). */
    async episodeIds(ownerId: string): Promise<{ id: string; trashed: boolean }[]> {
      const r = await q.query<{ id: string; trashed: boolean }>(
        `SELECT id, tier = 'trash' AS trashed FROM episodes WHERE owner_id = $1 ORDER BY id`,
        [ownerId],
      );
      return r.rows;
    },
  };
}

export function privacyWrites(q: Sql) {
  return {
    /**
     * Messages with their words filtered again. A message without an id of its own is found on a
     * re-import by a key of its text: it gets the key of its new text (the one a re-import of the same
     * export now makes), numbered on where another message of its conversation holds that key already,
     * so the export is found again instead of stored twice.
     */
    async rewriteMessages(ownerId: string, rows: readonly MessageWords[]): Promise<void> {
      if (rows.length === 0) return;
      const now = await q.query<{
        id: string;
        conversation_id: string;
        external_id: string | null;
        dedupe_key: string;
        speaker: string;
        sent_at: Date;
      }>(
        `SELECT id, conversation_id, external_id, dedupe_key, speaker, sent_at FROM messages WHERE owner_id = $1 AND id = ANY($2::uuid[])`,
        [ownerId, uuidArray(rows.map((x) => x.id))],
      );
      const byId = new Map(now.rows.map((x) => [x.id, x]));
      const keyed = rows.flatMap((x) => {
        const m = byId.get(x.id);
        return m ? [{ ...x, m, base: m.external_id ?? saidKey(m.speaker, m.sent_at, x.text) }] : [];
      });
      const hashed = keyed.filter((x) => x.m.external_id === null);
      const taken = hashed.length
        ? await q.query<{ conversation_id: string; dedupe_key: string }>(
            `SELECT conversation_id, dedupe_key FROM messages
             WHERE owner_id = $1 AND conversation_id = ANY($2::uuid[]) AND dedupe_key LIKE ANY($3::text[]) AND NOT id = ANY($4::uuid[])`,
            [
              ownerId,
              uuidArray([...new Set(hashed.map((x) => x.m.conversation_id))]),
              textArray(hashed.map((x) => `${x.base}%`)),
              uuidArray(keyed.map((x) => x.m.id)),
            ],
          )
        : { rows: [] };
      const used = new Set(taken.rows.map((x) => `${x.conversation_id} ${x.dedupe_key}`));
      const keys = keyed.map(({ m, base }) => {
        if (m.external_id !== null) return m.dedupe_key;
        // The occurrence a message was among equal ones stays its number.
        let n = Number(/#(\d+)$/.exec(m.dedupe_key)?.[1] ?? 0);
        let key = n === 0 ? base : `${base}#${n}`;
        while (used.has(`${m.conversation_id} ${key}`)) key = `${base}#${++n}`;
        used.add(`${m.conversation_id} ${key}`);
        return key;
      });
      await q.query(
        `UPDATE messages m SET content = u.content, attachments = u.attachments::jsonb, metadata = u.metadata::jsonb, dedupe_key = u.dedupe
         FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[]) AS u(id, content, attachments, metadata, dedupe)
         WHERE m.owner_id = $1 AND m.id = u.id`,
        [
          ownerId,
          uuidArray(keyed.map((x) => x.id)),
          textArray(keyed.map((x) => x.text)),
          textArray(keyed.map((x) => JSON.stringify(x.attachments))),
          textArray(keyed.map((x) => JSON.stringify(x.metadata))),
          textArray(keys),
        ],
      );
    },

    /** A fact's words filtered again; when it was last changed stays. */
    async rewriteFact(ownerId: string, id: string, f: FactWords): Promise<void> {
      await q.query(
        `UPDATE semantic_nodes SET key = $3, label = $4, value = $5, context = $6, keywords = $7, tags = $8 WHERE owner_id = $1 AND id = $2`,
        [ownerId, id, f.key, f.label, f.value, f.context, f.keywords, f.tags],
      );
    },

    async rewriteFactVersion(ownerId: string, factId: string, version: number, v: { value: string; context: string }): Promise<void> {
      await q.query(`UPDATE semantic_versions SET value = $4, context = $5 WHERE owner_id = $1 AND node_id = $2 AND version = $3`, [
        ownerId,
        factId,
        version,
        v.value,
        v.context,
      ]);
    },

    /**
     * Names of the entity graph filtered again. An alias moves to its new key unless another entity
     * holds that key already: then it stays with that one, as when the graph is built.
     */
    async renameGraph(ownerId: string, changed: Renamed): Promise<void> {
      const { entities, aliases, predicates } = changed;
      await q.query(
        `UPDATE entities e SET name = u.name FROM unnest($2::uuid[], $3::text[]) AS u(id, name) WHERE e.owner_id = $1 AND e.id = u.id`,
        [ownerId, uuidArray(entities.map((x) => x.id)), textArray(entities.map((x) => x.name))],
      );
      await q.query(`DELETE FROM entity_aliases WHERE owner_id = $1 AND alias_key = ANY($2::text[])`, [
        ownerId,
        textArray(aliases.map((x) => x.was)),
      ]);
      await q.query(
        `INSERT INTO entity_aliases (owner_id, alias_key, entity_id, alias)
         SELECT $1, u.k, u.id, u.alias FROM unnest($2::text[], $3::uuid[], $4::text[]) AS u(k, id, alias)
         ON CONFLICT (owner_id, alias_key) DO NOTHING`,
        [ownerId, textArray(aliases.map((x) => x.key)), uuidArray(aliases.map((x) => x.entityId)), textArray(aliases.map((x) => x.alias))],
      );
      await q.query(
        `UPDATE entity_relationships r SET predicate = u.p FROM unnest($2::uuid[], $3::text[]) AS u(id, p) WHERE r.owner_id = $1 AND r.id = u.id`,
        [ownerId, uuidArray(predicates.map((x) => x.id)), textArray(predicates.map((x) => x.predicate))],
      );
    },

    async retitleConversation(ownerId: string, id: string, title: string): Promise<void> {
      await q.query(`UPDATE conversations SET title = $3 WHERE owner_id = $1 AND id = $2`, [ownerId, id, title]);
    },
  };
}
