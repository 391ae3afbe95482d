import { parseReason, serializeReason, type ForgettingReason } from '../domain/forgetting-reason.js';
import { chunks, type Sql } from './sql.js';

/**
 * SQL of episode forgetting: episode tiers, the person's mark, dynamic importance, purge with
 * tombstoned source messages, "forget everything about X", and the row counts that prove a purge
 * leaves nothing behind. Every statement is scoped by owner. Index maintenance has its own home:
 * callers take a trashed episode out of BM25 with `bm25.park` (back with `bm25.unpark`), out of the
 * vector index with `vectors.remove`, inside the same transaction.
 */

export type StoredTier = 'active' | 'archived' | 'trash';

/** How many of an owner's episodes or facts are in each tier. */
export async function tierCounts(q: Sql, table: 'episodes' | 'semantic_nodes', ownerId: string): Promise<Record<StoredTier, number>> {
  const r = await q.query<{ tier: StoredTier; n: number }>(
    `SELECT tier, count(*)::int AS n FROM ${table} WHERE owner_id = $1 GROUP BY tier`,
    [ownerId],
  );
  const out: Record<StoredTier, number> = { active: 0, archived: 0, trash: 0 };
  for (const x of r.rows) out[x.tier] = x.n;
  return out;
}

/** What the decay of an episode depends on (see core/forgetting/decay.ts). */
export interface EpisodeDecayRow {
  id: string;
  tier: StoredTier;
  importance: number;
  baseImportance: number;
  recallCount: number;
  lastAccessed: Date | null;
  createdAt: Date;
  updatedAt: Date;
  tierChangedAt: Date | null;
  marked: boolean | null;
}

/** Where a memory stands, as the archive or trash view shows it: what the rows of every kind say (a fact's too). */
export interface TierStanding {
  id: string;
  tier: StoredTier;
  tierChangedAt: Date | null;
  tierReason: ForgettingReason | null;
  importance: number;
  recallCount: number;
  lastAccessed: Date | null;
  marked: boolean | null;
}

/** One line of the archive or trash view. */
export interface TierListRow extends TierStanding {
  title: string;
  summary: string;
  startAt: Date;
}

/** Text of an episode a "forget about X" request is matched against. */
export interface EpisodeTextRow {
  id: string;
  tier: StoredTier;
  title: string;
  summary: string;
  content: string;
  /** entities, topics, participants, key points, keywords: joined, one per line */
  labels: string;
}

export interface MessageTextRow {
  id: string;
  episodeId: string | null;
  speaker: string;
  content: string;
}

export interface ConversationTextRow {
  id: string;
  title: string | null;
  participants: string[];
}

/** The tables memory lives in, each with an owner_id: `rowCounts` counts an owner's rows in each. */
const OWNER_TABLES = [
  'conversations',
  'messages',
  'episodes',
  'bm25_postings',
  'bm25_docs',
  'bm25_terms',
  'bm25_parked',
  'episode_embeddings',
  'forgetting_runs',
  'entities',
  'entity_aliases',
  'episode_entities',
  'entity_relationships',
] as const;
type OwnerTable = (typeof OWNER_TABLES)[number];
const TABLE_COUNTS = OWNER_TABLES.map((t) => `(SELECT count(*)::int FROM ${t} WHERE owner_id = $1) AS ${t}`).join(',\n           ');

/** Rows one owner has in every table memory lives in, and the cross-checks that must be zero. */
export interface OwnerRowCounts {
  tables: Record<OwnerTable, number>;
  /** bm25_stats.doc_count (a row per owner, so its count says little). */
  bm25StatsDocs: number;
  episodesByTier: Record<StoredTier, number>;
  /** Messages kept only as import keys (their memory was purged or forgotten). */
  tombstones: number;
  /** Each must be 0 when the store is consistent. */
  orphans: {
    /** processed messages with text but no episode: the text of a memory that no longer exists */
    messageTextWithoutEpisode: number;
    postingsWithoutDoc: number;
    termsWithoutPostings: number;
    /** a trashed episode must be in no search index */
    trashInIndex: number;
    /** only active episodes carry vectors */
    vectorsNotActive: number;
    /** only trashed episodes have parked entries */
    parkedNotTrash: number;
    /** index rows pointing at no episode (should be impossible with the foreign keys) */
    indexRowsWithoutEpisode: number;
    /** knowledge-graph entities no episode mentions any more */
    entitiesWithoutEpisode: number;
  };
}

interface DecayDbRow {
  id: string;
  tier: StoredTier;
  importance: number;
  base: number;
  recall_count: number;
  last_accessed: Date | null;
  created_at: Date;
  updated_at: Date;
  tier_changed_at: Date | null;
  marked_important: boolean | null;
}

const toDecayRow = (r: DecayDbRow): EpisodeDecayRow => ({
  id: r.id,
  tier: r.tier,
  importance: r.importance,
  baseImportance: r.base,
  recallCount: r.recall_count,
  lastAccessed: r.last_accessed,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  tierChangedAt: r.tier_changed_at,
  marked: r.marked_important,
});

const decayColumns = `e.id, e.tier, e.importance, COALESCE(e.base_importance, e.importance) AS base,
  COALESCE(r.recall_count, 0) AS recall_count, r.last_accessed, e.created_at, e.updated_at, e.tier_changed_at, e.marked_important`;
/** Episodes with how often and when they were last recalled (most never are). */
const withRecalls = 'episodes e LEFT JOIN episode_recalls r ON r.episode_id = e.id';

/** LIKE pattern for "contains s", with LIKE's own wildcards taken literally. */
export function containsPattern(s: string): string {
  return `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export function forgettingReads(q: Sql) {
  return {
    async episodeDecayRows(ownerId: string, ids?: readonly string[]): Promise<EpisodeDecayRow[]> {
      const r = ids
        ? await q.query<DecayDbRow>(`SELECT ${decayColumns} FROM ${withRecalls} WHERE e.owner_id = $1 AND e.id = ANY($2::uuid[])`, [
            ownerId,
            ids,
          ])
        : await q.query<DecayDbRow>(`SELECT ${decayColumns} FROM ${withRecalls} WHERE e.owner_id = $1`, [ownerId]);
      return r.rows.map(toDecayRow);
    },

    async episodeTitles(ownerId: string, ids: readonly string[]): Promise<Map<string, string>> {
      if (ids.length === 0) return new Map();
      const r = await q.query<{ id: string; title: string }>(
        `SELECT id, title FROM episodes WHERE owner_id = $1 AND id = ANY($2::uuid[])`,
        [ownerId, ids],
      );
      return new Map(r.rows.map((x) => [x.id, x.title]));
    },

    tierCounts: (ownerId: string) => tierCounts(q, 'episodes', ownerId),

    /** The archive or trash view, most recently moved first; keyset-paged on (tier_changed_at, id). */
    async listEpisodesInTier(
      ownerId: string,
      tier: StoredTier,
      o: { limit: number; before?: { at: Date; id: string } | undefined },
    ): Promise<TierListRow[]> {
      const params: unknown[] = [ownerId, tier, o.limit];
      let cursor = '';
      if (o.before) {
        params.push(o.before.at, o.before.id);
        cursor = ` AND (COALESCE(e.tier_changed_at, e.created_at), e.id) < ($4, $5::uuid)`;
      }
      const r = await q.query<{
        id: string;
        title: string;
        summary: string;
        start_at: Date;
        tier: StoredTier;
        tier_changed_at: Date | null;
        tier_reason: string | null;
        importance: number;
        recall_count: number;
        last_accessed: Date | null;
        marked_important: boolean | null;
      }>(
        `SELECT e.id, e.title, e.summary, e.start_at, e.tier, e.tier_changed_at, e.tier_reason, e.importance,
                COALESCE(r.recall_count, 0) AS recall_count, r.last_accessed, e.marked_important
         FROM ${withRecalls} WHERE e.owner_id = $1 AND e.tier = $2${cursor}
         ORDER BY COALESCE(e.tier_changed_at, e.created_at) DESC, e.id DESC LIMIT $3`,
        params,
      );
      return r.rows.map((x) => ({
        id: x.id,
        title: x.title,
        summary: x.summary,
        startAt: x.start_at,
        tier: x.tier,
        tierChangedAt: x.tier_changed_at,
        tierReason: parseReason(x.tier_reason),
        importance: x.importance,
        recallCount: x.recall_count,
        lastAccessed: x.last_accessed,
        marked: x.marked_important,
      }));
    },

    /** Episodes (any tier) whose text or labels contain `needle`, case-insensitively: candidates to confirm. */
    async episodesContaining(ownerId: string, needle: string): Promise<EpisodeTextRow[]> {
      const r = await q.query<{ id: string; tier: StoredTier; title: string; summary: string; content: string; labels: string }>(
        `SELECT id, tier, title, summary, content,
                concat_ws(E'\\n',
                  (SELECT string_agg(v, E'\\n') FROM jsonb_array_elements_text(COALESCE(metadata->'entities', '[]')) v),
                  (SELECT string_agg(v, E'\\n') FROM jsonb_array_elements_text(COALESCE(metadata->'topics', '[]')) v),
                  (SELECT string_agg(v, E'\\n') FROM jsonb_array_elements_text(COALESCE(metadata->'participants', '[]')) v),
                  (SELECT string_agg(v, E'\\n') FROM jsonb_array_elements_text(COALESCE(metadata->'keyPoints', '[]')) v),
                  array_to_string(keywords, E'\\n')) AS labels
         FROM episodes
         WHERE owner_id = $1 AND (title ILIKE $2 OR summary ILIKE $2 OR content ILIKE $2 OR metadata::text ILIKE $2
                                  OR array_to_string(keywords, ' ') ILIKE $2)`,
        [ownerId, containsPattern(needle)],
      );
      return r.rows;
    },

    async messagesContaining(ownerId: string, needle: string): Promise<MessageTextRow[]> {
      const r = await q.query<{ id: string; episode_id: string | null; speaker: string; content: string }>(
        `SELECT id, episode_id, speaker, content FROM messages WHERE owner_id = $1 AND (content ILIKE $2 OR speaker ILIKE $2)`,
        [ownerId, containsPattern(needle)],
      );
      return r.rows.map((x) => ({ id: x.id, episodeId: x.episode_id, speaker: x.speaker, content: x.content }));
    },

    async messageCountOfEpisodes(ownerId: string, ids: readonly string[]): Promise<number> {
      if (ids.length === 0) return 0;
      const r = await q.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM messages WHERE owner_id = $1 AND episode_id = ANY($2::uuid[])`,
        [ownerId, ids],
      );
      return r.rows[0]?.n ?? 0;
    },

    async conversationsContaining(ownerId: string, needle: string): Promise<ConversationTextRow[]> {
      const r = await q.query<{ id: string; title: string | null; participants: string[] }>(
        `SELECT id, title, participants FROM conversations WHERE owner_id = $1 AND (title ILIKE $2 OR participants::text ILIKE $2)`,
        [ownerId, containsPattern(needle)],
      );
      return r.rows;
    },

    async lastRun(ownerId: string): Promise<Date | null> {
      const r = await q.query<{ at: Date | null }>(`SELECT max(ran_at) AS at FROM forgetting_runs WHERE owner_id = $1`, [ownerId]);
      return r.rows[0]?.at ?? null;
    },

    /** Row counts for one owner in every table, plus the cross-checks a purge must leave at zero. */
    async rowCounts(ownerId: string): Promise<OwnerRowCounts> {
      const r = await q.query<Record<string, number>>(
        `SELECT
           ${TABLE_COUNTS},
           (SELECT count(*)::int FROM entities n WHERE n.owner_id = $1
              AND NOT EXISTS (SELECT 1 FROM episode_entities x WHERE x.entity_id = n.id)) AS o_entities,
           (SELECT COALESCE(max(doc_count), 0)::int FROM bm25_stats WHERE owner_id = $1) AS stats_docs,
           (SELECT count(*)::int FROM episodes WHERE owner_id = $1 AND tier = 'active') AS t_active,
           (SELECT count(*)::int FROM episodes WHERE owner_id = $1 AND tier = 'archived') AS t_archived,
           (SELECT count(*)::int FROM episodes WHERE owner_id = $1 AND tier = 'trash') AS t_trash,
           (SELECT count(*)::int FROM messages WHERE owner_id = $1 AND metadata @> '{"forgotten": true}') AS tombstones,
           (SELECT count(*)::int FROM messages WHERE owner_id = $1 AND processed AND episode_id IS NULL AND content <> '') AS o_text,
           (SELECT count(*)::int FROM bm25_posting_lists x, unnest(x.docs) AS u(doc_no) WHERE x.owner_id = $1
              AND NOT EXISTS (SELECT 1 FROM bm25_docs d WHERE d.owner_id = $1 AND d.doc_no = u.doc_no)) AS o_postings,
           (SELECT count(*)::int FROM bm25_terms t WHERE t.owner_id = $1 AND (t.df <= 0
              OR NOT EXISTS (SELECT 1 FROM bm25_posting_lists x WHERE x.owner_id = $1 AND x.term_id = t.id AND x.docs <> '{}'))) AS o_terms,
           (SELECT count(*)::int FROM episodes e WHERE e.owner_id = $1 AND e.tier = 'trash'
              AND (EXISTS (SELECT 1 FROM bm25_docs d WHERE d.episode_id = e.id)
                   OR EXISTS (SELECT 1 FROM episode_embeddings v WHERE v.episode_id = e.id))) AS o_trash,
           (SELECT count(*)::int FROM episode_embeddings v JOIN episodes e ON e.id = v.episode_id
              WHERE v.owner_id = $1 AND e.tier <> 'active') AS o_vectors,
           (SELECT count(*)::int FROM bm25_parked p JOIN episodes e ON e.id = p.episode_id
              WHERE p.owner_id = $1 AND e.tier <> 'trash') AS o_parked,
           (SELECT count(*)::int FROM (
              SELECT episode_id FROM bm25_docs WHERE owner_id = $1
              UNION ALL SELECT episode_id FROM episode_embeddings WHERE owner_id = $1
              UNION ALL SELECT episode_id FROM bm25_parked WHERE owner_id = $1) i
            WHERE NOT EXISTS (SELECT 1 FROM episodes e WHERE e.id = i.episode_id AND e.owner_id = $1)) AS o_missing`,
        [ownerId],
      );
      const x = r.rows[0]!;
      const n = (k: string) => x[k] ?? 0;
      return {
        tables: Object.fromEntries(OWNER_TABLES.map((t) => [t, n(t)])) as Record<OwnerTable, number>,
        bm25StatsDocs: n('stats_docs'),
        episodesByTier: { active: n('t_active'), archived: n('t_archived'), trash: n('t_trash') },
        tombstones: n('tombstones'),
        orphans: {
          messageTextWithoutEpisode: n('o_text'),
          postingsWithoutDoc: n('o_postings'),
          termsWithoutPostings: n('o_terms'),
          trashInIndex: n('o_trash'),
          vectorsNotActive: n('o_vectors'),
          parkedNotTrash: n('o_parked'),
          indexRowsWithoutEpisode: n('o_missing'),
          entitiesWithoutEpisode: n('o_entities'),
        },
      };
    },
  };
}

export function forgettingWrites(q: Sql) {
  /**
   * Turns messages into tombstones: the row and its import key stay (so re-importing the same export
   * does not bring a forgotten memory back), the text, speaker, attachments and metadata go, and so
   * does the link to the episode.
   */
  async function redactMessages(
    ownerId: string,
    where: { episodeIds?: readonly string[]; messageIds?: readonly string[] },
  ): Promise<number> {
    let n = 0;
    const set = `SET content = '', speaker = '', attachments = '[]', metadata = '{"forgotten": true}', episode_id = NULL, processed = true`;
    if (where.episodeIds?.length) {
      const r = await q.query(`UPDATE messages ${set} WHERE owner_id = $1 AND episode_id = ANY($2::uuid[])`, [ownerId, where.episodeIds]);
      n += r.affectedRows ?? 0;
    }
    if (where.messageIds?.length) {
      const r = await q.query(`UPDATE messages ${set} WHERE owner_id = $1 AND id = ANY($2::uuid[])`, [ownerId, where.messageIds]);
      n += r.affectedRows ?? 0;
    }
    return n;
  }

  return {
    /**
     * Moves episodes to a tier, each with its reason; the retention clock of the trash starts at `now`.
     * A move counts as a write (`updated_at`): the episode builder then leaves the episode as it is
     * instead of merging newly arrived messages into it, which would bring it back as a new episode.
     */
    async setEpisodeTier(
      ownerId: string,
      tier: StoredTier,
      moves: readonly { id: string; reason: ForgettingReason }[],
      now: Date,
    ): Promise<void> {
      for (const batch of chunks(moves, 1000)) {
        await q.query(
          `UPDATE episodes e SET tier = $2, tier_changed_at = $3, tier_reason = u.reason, updated_at = $3
           FROM unnest($4::uuid[], $5::text[]) AS u(id, reason) WHERE e.owner_id = $1 AND e.id = u.id`,
          [ownerId, tier, now, batch.map((m) => m.id), batch.map((m) => serializeReason(m.reason))],
        );
      }
    },

    /**
     * Writes dynamic importance. The first write keeps the value it replaces as the base, so the
     * builder's (or person's) importance is never lost. `updated_at` is left alone: this is not an edit.
     */
    async setEpisodeImportance(ownerId: string, rows: readonly { id: string; importance: number }[]): Promise<void> {
      for (const batch of chunks(rows, 1000)) {
        await q.query(
          `UPDATE episodes e SET base_importance = COALESCE(e.base_importance, e.importance), importance = u.v
           FROM unnest($2::uuid[], $3::real[]) AS u(id, v) WHERE e.owner_id = $1 AND e.id = u.id`,
          [ownerId, batch.map((x) => x.id), batch.map((x) => x.importance)],
        );
      }
    },

    /** The person's mark; like an edit, it keeps the episode builder from rebuilding the episode. */
    async markEpisode(ownerId: string, id: string, marked: boolean | null, importance: number, now: Date): Promise<boolean> {
      const r = await q.query(
        `UPDATE episodes SET marked_important = $3, base_importance = COALESCE(base_importance, importance), importance = $4,
           updated_at = $5
         WHERE owner_id = $1 AND id = $2`,
        [ownerId, id, marked, importance, now],
      );
      return (r.affectedRows ?? 0) > 0;
    },

    redactMessages,

    /**
     * Deletes episodes for good. Their vectors, BM25 rows and parked entries go with them (foreign
     * keys); the caller runs `bm25.remove` first so frequencies and totals stay exact. The source
     * messages lose their link (and, with `redact`, their text).
     */
    async purgeEpisodes(ownerId: string, ids: readonly string[], redact: boolean): Promise<string[]> {
      if (ids.length === 0) return [];
      if (redact) await redactMessages(ownerId, { episodeIds: ids });
      else await q.query(`UPDATE messages SET episode_id = NULL WHERE owner_id = $1 AND episode_id = ANY($2::uuid[])`, [ownerId, ids]);
      const r = await q.query<{ id: string }>(`DELETE FROM episodes WHERE owner_id = $1 AND id = ANY($2::uuid[]) RETURNING id`, [
        ownerId,
        ids,
      ]);
      return r.rows.map((x) => x.id);
    },

    async redactConversation(ownerId: string, id: string, title: string | null, participants: readonly string[]): Promise<void> {
      await q.query(`UPDATE conversations SET title = $3, participants = $4 WHERE owner_id = $1 AND id = $2`, [
        ownerId,
        id,
        title,
        JSON.stringify(participants),
      ]);
    },

    async recordRun(ownerId: string, ranAt: Date, summary: unknown): Promise<void> {
      await q.query(`INSERT INTO forgetting_runs (owner_id, ran_at, summary) VALUES ($1, $2, $3)`, [
        ownerId,
        ranAt,
        JSON.stringify(summary),
      ]);
    },
  };
}
