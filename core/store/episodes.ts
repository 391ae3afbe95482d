import { randomUUID } from 'node:crypto';
import type { StoredMessage } from '../domain/conversation.js';
import { messageColumns, messageFromJson, type MessageJson } from './conversations.js';
import type { Episode, EpisodeDraft, EpisodeMetadata, EpisodePatch, TimeReference } from '../domain/episode.js';
import {
  chunks,
  float4Array,
  int4Array,
  Params,
  requireConversation,
  textArray,
  timestamptzArray,
  uuidArray,
  withReferencesChecked,
  type Sql,
} from './sql.js';

/** An episode as `episodeSelect` gives it: one JSON array per row (see resultsReader). */
type EpisodeJson = [
  id: string,
  ownerId: string,
  conversationId: string | null,
  episodeType: Episode['episodeType'],
  level: number,
  title: string,
  content: string,
  summary: string,
  start: string,
  end: string,
  utcOffsetMin: number,
  metadata: EpisodeMetadata,
  structuredData: Record<string, unknown>,
  keywords: string[],
  importance: number,
  recallCount: number,
  lastAccessed: string | null,
  builder: Episode['builder'],
  processingStatus: Episode['processingStatus'],
  processingVersion: string,
  createdAt: string,
  updatedAt: string,
  embeddingModel: string | null,
  messageIds: string[] | null,
  semanticNodeIds: string[] | null,
];

const episodeSelect = `
  SELECT json_build_array(e.id, e.owner_id, e.conversation_id, e.episode_type, e.level, e.title, e.content, e.summary,
           e.start_at, e.end_at, e.utc_offset_min, e.metadata, e.structured_data, e.keywords, e.importance, COALESCE(r.recall_count, 0),
           r.last_accessed, e.builder, e.processing_status, e.processing_version, e.created_at, e.updated_at, ee.model_id,
           (SELECT json_agg(m.id ORDER BY m.sent_at, m.seq) FROM messages m WHERE m.episode_id = e.id),
           (SELECT json_agg(DISTINCT l.node_id) FROM semantic_episode_links l JOIN semantic_nodes n ON n.id = l.node_id AND n.tier <> 'trash'
            WHERE l.owner_id = e.owner_id AND l.episode_id = e.id)) AS episode
  FROM episodes e LEFT JOIN episode_embeddings ee ON ee.episode_id = e.id LEFT JOIN episode_recalls r ON r.episode_id = e.id`;

function toEpisode({ episode }: { episode: EpisodeJson }): Episode {
  const [
    id,
    ownerId,
    conversationId,
    episodeType,
    level,
    title,
    content,
    summary,
    start,
    end,
    utcOffsetMin,
    metadata,
    structuredData,
    keywords,
    importance,
    recallCount,
    lastAccessed,
    builder,
    processingStatus,
    processingVersion,
    createdAt,
    updatedAt,
    embeddingModel,
    messageIds,
    semanticNodeIds,
  ] = episode;
  return {
    id,
    ownerId,
    conversationId,
    episodeType,
    level: level as Episode['level'],
    title,
    content,
    summary,
    temporal: { start: new Date(start), end: new Date(end), utcOffsetMin },
    metadata,
    structuredData,
    keywords,
    importance,
    recallCount,
    lastAccessed: lastAccessed === null ? null : new Date(lastAccessed),
    builder,
    processingStatus,
    processingVersion,
    embeddingModel,
    messageIds: messageIds ?? [],
    semanticNodeIds: semanticNodeIds ?? [],
    createdAt: new Date(createdAt),
    updatedAt: new Date(updatedAt),
  };
}

/** What episode search and listing may be narrowed to, applied to the `e` alias wherever episodes are searched or listed. */
/** What an episode says, apart from when and of which messages: what retelling and the privacy filter write again. */
export type EpisodeWords = Pick<EpisodeDraft, 'title' | 'summary' | 'content' | 'keywords' | 'metadata' | 'structuredData'>;

export interface EpisodeFilters {
  episodeTypes?: readonly string[] | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
  minImportance?: number | undefined;
  conversationId?: string | undefined;
  /** Where the conversations came from: importer formats (`whatsapp`, `telegram`, …) or `api`. */
  importSources?: readonly string[] | undefined;
}

export function hasFilters(f: EpisodeFilters): boolean {
  return Boolean(
    f.episodeTypes?.length || f.since || f.until || f.minImportance !== undefined || f.conversationId || f.importSources?.length,
  );
}

/** An episode's span as the index of spans holds it (migration 021): from the earlier of its times to the later. */
const EPISODE_SPAN = `tstzrange(least(e.start_at, e.end_at), greatest(e.start_at, e.end_at), '[]')`;

/**
 * How a filter's period is written:
 * - `compared`, by its start and end: a list in time order of a period that holds more than its page,
 *   read backwards along the index of starts, stops at its page (a journal's page of 50 over twenty
 *   years took 346 ms through the spans, 5 ms so);
 * - `bySpan`, also as the overlap the index of episodes' spans answers, for a query that looks for the
 *   few episodes a period holds;
 * - `spanOnly`, as that overlap alone, the same for every episode whose end is not before its start:
 *   for a count that only chooses how to read (with both, Postgres took the conditions for independent,
 *   guessed a year of 100k episodes at 256, and counted its first 2,001 in 7.2 ms instead of 2.0).
 */
export type PeriodAs = 'compared' | 'bySpan' | 'spanOnly';

/** The filters as SQL conditions on `e` (episodes), the period written `as` says. */
export function filterSql(f: EpisodeFilters, p: Params, as: PeriodAs): string {
  const parts: string[] = [];
  if (f.episodeTypes?.length) parts.push(`e.episode_type = ANY(${p.add(f.episodeTypes)}::text[])`);
  // An episode overlapping the range matches: a chat that ran past midnight belongs to both days.
  const since = f.since ? p.add(f.since) : null;
  const until = f.until ? p.add(f.until) : null;
  // The same overlap as the index of episodes' spans answers it (migration 021). A range that ends
  // where it starts, or before, is no range to write so: the comparisons decide alone then.
  const span = as !== 'compared' && Boolean(since || until) && !(f.since && f.until && f.since >= f.until);
  if (as !== 'spanOnly' || !span) {
    if (since) parts.push(`e.end_at >= ${since}`);
    if (until) parts.push(`e.start_at < ${until}`);
  }
  if (span) parts.push(`${EPISODE_SPAN} && tstzrange(${since ?? 'NULL'}::timestamptz, ${until ?? 'NULL'}::timestamptz, '[)')`);
  if (f.minImportance !== undefined) parts.push(`e.importance >= ${p.add(f.minImportance)}`);
  if (f.conversationId) parts.push(`e.conversation_id = ${p.add(f.conversationId)}`);
  if (f.importSources?.length) {
    parts.push(
      `e.conversation_id IN (SELECT c.id FROM conversations c WHERE c.owner_id = e.owner_id AND c.source = ANY(${p.add(f.importSources)}::text[]))`,
    );
  }
  return parts.map((x) => ` AND ${x}`).join('');
}

/**
 * Whether the filters keep no more than `upTo` of the owner's episodes, a period's counted by the
 * episodes' spans. Counting is reading them, so it stops past `upTo`: a search whose filters keep few
 * reads those episodes one by one, however many the owner has, where the indexes, walked best first,
 * would meet mostly what the filters leave out.
 *
 * A period that Postgres, from the spans' statistics, takes for many times more than `upTo` is not
 * counted at all. Counting it stopped early only in theory: it read the owner's episodes in the order
 * they lie in the table, as if the period's were spread among them, but they lie together (written in
 * time order): at 100k episodes, 51 of the last five years were found past 70,000 older ones (72 ms).
 */
export async function keepsFew(
  q: Sql,
  ownerId: string,
  filters: EpisodeFilters,
  upTo: number,
  /**
   * The owner's episodes, when the caller knows. No more than MANY_TIMES the bound, they are counted
   * without an estimate, on whatever plan: the count reads no more than them.
   */
  all = Infinity,
): Promise<boolean> {
  const p = new Params();
  const owner = p.add(ownerId);
  const kept = `SELECT 1 FROM episodes e WHERE e.owner_id = ${owner}${filterSql(filters, p, 'spanOnly')}`;
  const many = all > MANY_TIMES * upTo;
  if (many) {
    const estimate = await q.query<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(`EXPLAIN (FORMAT JSON) ${kept}`, [...p.values], {
      planEachRun: true,
    });
    if (estimate.rows[0]!['QUERY PLAN'][0].Plan['Plan Rows'] > MANY_TIMES * upTo) return false;
  }
  const r = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${kept} LIMIT ${p.add(upTo + 1)}) k`, p.values, {
    byIndex: many,
  });
  return r.rows[0]!.n <= upTo;
}

/** How far past a bound Postgres's estimate must be for it to be believed (at 100k episodes its estimates of periods were within 20 %). */
const MANY_TIMES = 4;

export interface SearchResultRow extends Pick<Episode, 'id' | 'title' | 'summary' | 'content' | 'temporal'> {
  sources: { id: string; externalId: string | null; speaker: string; sentAt: Date }[];
}

/** One episode of a conversation that has something to rebuild, in time order. */
export interface RebuildRow {
  id: string;
  conversationId: string;
  status: string;
  builder: string;
  /** Forgetting tier: trashed episodes are never rebuilt. */
  tier: string;
  messageCount: number;
}

export interface EpisodeHeader extends Pick<Episode, 'id' | 'conversationId' | 'title' | 'summary' | 'temporal' | 'keywords'> {
  entities: string[];
  participants: string[];
}

export interface ListOptions extends EpisodeFilters {
  limit: number;
  /** Keyset cursor: episodes strictly older than this (start, id) pair. */
  before?: { start: Date; id: string } | undefined;
  /** Forgetting tiers to list; by default active and archived (the trash has its own view). */
  tiers?: readonly ('active' | 'archived' | 'trash')[] | undefined;
}

/** A source message as a search result names it: id, external id, speaker, time sent. */
type SourceJson = [id: string, externalId: string | null, speaker: string, sentAt: string];

/**
 * A search result as `json_build_array` gives it: the episode's fields, with its messages (sources, or
 * in full with the header scoring needs).
 */
type ResultJson = [
  id: string,
  title: string,
  summary: string,
  content: string,
  start: string,
  end: string,
  utcOffsetMin: number,
  messages: (SourceJson | MessageJson)[],
  conversationId?: string | null,
  keywords?: string[],
  entities?: string[],
  participants?: string[],
];

/** What an episode header names beyond its title and time, as JSON: topics, named people and things, participants. */
const headerFacets = `e.keywords, COALESCE(e.metadata->'entities', '[]'), COALESCE(e.metadata->'participants', '[]')`;

type HeaderJson = [string, string | null, string, string, string, string, number, string[], string[], string[]];

/** What a header is built from: a page of headers sorts these, not whole rows with their content. */
const headerColumns = 'e.id, e.conversation_id, e.title, e.summary, e.start_at, e.end_at, e.utc_offset_min, e.keywords, e.metadata';

/** An episode's header as one JSON array (HeaderJson), read back by toHeader. */
const headerFields = `json_build_array(e.id, e.conversation_id, e.title, e.summary, e.start_at, e.end_at, e.utc_offset_min, ${headerFacets})`;

function toHeader([
  id,
  conversationId,
  title,
  summary,
  start,
  end,
  utcOffsetMin,
  keywords,
  entities,
  participants,
]: HeaderJson): EpisodeHeader {
  return {
    id,
    conversationId,
    title,
    summary,
    temporal: { start: new Date(start), end: new Date(end), utcOffsetMin },
    keywords,
    entities,
    participants,
  };
}

/**
 * A page of episodes as `list` reads it: the filters, the tiers (active and archived unless told), the
 * cursor, latest first. Read backwards along the index of starts from the period's end, a page stops
 * as soon as it is full, unless a period with a start holds less than a page: then it went on past that
 * start to the first episode the owner has (a day a year ago, of 100k episodes: ~100 ms). Those few are
 * read through their spans, planned for their period. Without a start, all it reads is kept.
 */
async function listed(q: Sql, ownerId: string, o: ListOptions): Promise<{ sql: string; values: unknown[]; planEachRun: boolean }> {
  const p = new Params();
  const owner = p.add(ownerId);
  const cursor = o.before ? ` AND (e.start_at, e.id) < (${p.add(o.before.start)}, ${p.add(o.before.id)}::uuid)` : '';
  const few = Boolean(o.since) && (await keepsFew(q, ownerId, o, o.limit));
  const where = filterSql(o, p, few ? 'bySpan' : 'compared');
  const tiers = o.tiers ? ` AND e.tier = ANY(${p.add(o.tiers)}::text[])` : ` AND e.tier <> 'trash'`;
  return {
    sql: `WHERE e.owner_id = ${owner}${where}${tiers}${cursor} ORDER BY e.start_at DESC, e.id DESC LIMIT ${p.add(o.limit)}`,
    values: p.values,
    planEachRun: few,
  };
}

/**
 * Search results in one JSON value: PGlite turns each field of a row into a JS value on its own, which
 * for a page of results with their messages cost more than Postgres took to find them.
 */
function resultsReader(q: Sql) {
  return async (ownerId: string, ids: readonly string[], full: boolean) => {
    if (ids.length === 0) return [];
    // Unqualified, messageColumns name the subquery's own table (the innermost FROM answers first).
    const message = full ? `json_build_array(${messageColumns})` : 'json_build_array(m.id, m.external_id, m.speaker, m.sent_at)';
    const header = full ? `, e.conversation_id, ${headerFacets}` : '';
    const r = await q.query<{ results: ResultJson[] }>(
      `SELECT COALESCE(json_agg(json_build_array(e.id, e.title, e.summary, e.content, e.start_at, e.end_at, e.utc_offset_min,
                (SELECT COALESCE(json_agg(${message} ORDER BY m.sent_at, m.seq), '[]') FROM messages m WHERE m.episode_id = e.id)${header})), '[]') AS results
       FROM episodes e WHERE e.owner_id = $1 AND e.id = ANY($2::uuid[])`,
      [ownerId, ids],
    );
    return r.rows[0]!.results.map(
      ([id, title, summary, content, start, end, utcOffsetMin, listed, conversationId, keywords, entities, participants]) => {
        const temporal = { start: new Date(start), end: new Date(end), utcOffsetMin };
        const messages = full ? (listed as MessageJson[]).map(messageFromJson) : null;
        const sources = messages
          ? messages.map((m) => ({ id: m.id, externalId: m.externalId, speaker: m.speaker, sentAt: m.sentAt }))
          : (listed as SourceJson[]).map(([id, externalId, speaker, sentAt]) => ({ id, externalId, speaker, sentAt: new Date(sentAt) }));
        return {
          id,
          title,
          summary,
          content,
          temporal,
          sources,
          header: full
            ? {
                id,
                conversationId: conversationId ?? null,
                title,
                summary,
                temporal,
                keywords: keywords ?? [],
                entities: entities ?? [],
                participants: participants ?? [],
              }
            : null,
          messages,
        };
      },
    );
  };
}

export function episodeReads(q: Sql) {
  const readResults = resultsReader(q);
  return {
    async get(ownerId: string, id: string): Promise<Episode | null> {
      const r = await q.query<{ episode: EpisodeJson }>(`${episodeSelect} WHERE e.owner_id = $1 AND e.id = $2`, [ownerId, id]);
      return r.rows[0] ? toEpisode(r.rows[0]) : null;
    },

    /** Episodes by id, in the order asked for; unknown ids are skipped. */
    async getMany(ownerId: string, ids: readonly string[]): Promise<Episode[]> {
      if (ids.length === 0) return [];
      const r = await q.query<{ episode: EpisodeJson }>(`${episodeSelect} WHERE e.owner_id = $1 AND e.id = ANY($2::uuid[])`, [
        ownerId,
        ids,
      ]);
      const byId = new Map(r.rows.map((row) => [row.episode[0], toEpisode(row)]));
      return ids.flatMap((id) => byId.get(id) ?? []);
    },

    /**
     * What a search result shows, with its source messages, in one lean query: search is the hot path,
     * and results need neither vectors nor full metadata.
     */
    async searchResults(ownerId: string, ids: readonly string[]): Promise<SearchResultRow[]> {
      return (await readResults(ownerId, ids, false)).map(({ header: _, messages: __, ...row }) => row);
    },

    /**
     * Search results with what scoring their messages needs, in the same one query: each episode's
     * header (topics, people) and its messages in full. Re-ranking results by their messages then costs
     * no extra round trip.
     */
    async searchResultsWithMessages(
      ownerId: string,
      ids: readonly string[],
    ): Promise<(SearchResultRow & { header: EpisodeHeader; messages: StoredMessage[] })[]> {
      return (await readResults(ownerId, ids, true)).map((x) => ({ ...x, header: x.header!, messages: x.messages! }));
    },

    /**
     * What a packed block of evidence names about its episode (no content, no vectors): title, summary,
     * time, people, topics. In one JSON value, as the packer reads them with the episodes' messages: a
     * result of one field parses in a fraction of the time of sixty rows of ten.
     */
    async headers(ownerId: string, ids: readonly string[]): Promise<EpisodeHeader[]> {
      if (ids.length === 0) return [];
      const r = await q.query<{ headers: HeaderJson[] }>(
        `SELECT COALESCE(json_agg(${headerFields}), '[]') AS headers FROM episodes e WHERE e.owner_id = $1 AND e.id = ANY($2::uuid[])`,
        [ownerId, ids],
      );
      return r.rows[0]!.headers.map(toHeader);
    },

    /**
     * Episodes told between `said.since` and `said.until` whose time words name a day from `days.from` to
     * `days.to` (YYYY-MM-DD; a weekend, a week or another span touching them counts, of the
     * `granularities` given), latest first, each with all the days its time words name.
     */
    async namingDays(
      ownerId: string,
      said: { since: Date; until: Date },
      days: { from: string; to: string; granularities: readonly string[] },
      limit: number,
    ): Promise<{ id: string; references: TimeReference[] }[]> {
      const r = await q.query<{ id: string; refs: TimeReference[] }>(
        `SELECT e.id, e.metadata->'timeReferences' AS refs FROM episodes e
         WHERE e.owner_id = $1 AND e.tier <> 'trash' AND e.start_at >= $2 AND e.start_at <= $3
           AND jsonb_typeof(e.metadata->'timeReferences') = 'array'
           AND EXISTS (SELECT 1 FROM jsonb_array_elements(e.metadata->'timeReferences') t
                       WHERE t->>'granularity' = ANY($6::text[]) AND t->>'start' <= $5 AND COALESCE(t->>'end', t->>'start') >= $4)
         ORDER BY e.start_at DESC, e.id DESC LIMIT $7`,
        [ownerId, said.since, said.until, days.from, days.to, days.granularities, limit],
      );
      return r.rows.map((x) => ({ id: x.id, references: x.refs }));
    },

    /**
     * Episodes said up to `until` that keep a day coming round every year (a birthday) on one of
     * `monthDays` (MM-DD), the latest said first: through their own partial index, however long ago.
     */
    async namingYearly(
      ownerId: string,
      until: Date,
      monthDays: readonly string[],
      limit: number,
    ): Promise<{ id: string; references: TimeReference[] }[]> {
      const r = await q.query<{ id: string; refs: TimeReference[] }>(
        `SELECT e.id, e.metadata->'timeReferences' AS refs FROM episodes e
         WHERE e.owner_id = $1 AND e.metadata->'timeReferences' @> '[{"yearly": true}]' AND e.tier <> 'trash' AND e.start_at <= $2
           AND EXISTS (SELECT 1 FROM jsonb_array_elements(e.metadata->'timeReferences') t
                       WHERE t->>'yearly' = 'true' AND substr(t->>'start', 6, 5) = ANY($3::text[]))
         ORDER BY e.start_at DESC, e.id DESC LIMIT $4`,
        [ownerId, until, monthDays, limit],
      );
      return r.rows.map((x) => ({ id: x.id, references: x.refs }));
    },

    async list(ownerId: string, o: ListOptions): Promise<Episode[]> {
      const { sql, values, planEachRun } = await listed(q, ownerId, o);
      const r = await q.query<{ episode: EpisodeJson }>(`${episodeSelect} ${sql}`, values, { planEachRun });
      return r.rows.map(toEpisode);
    },

    /**
     * The page `list` gives, as headers: what a line naming an episode shows (a companion's "Recently"),
     * without its content, messages and facts.
     */
    async listHeaders(ownerId: string, o: ListOptions): Promise<EpisodeHeader[]> {
      const { sql, values, planEachRun } = await listed(q, ownerId, o);
      const r = await q.query<{ headers: HeaderJson[] }>(
        `SELECT COALESCE(json_agg(${headerFields} ORDER BY e.start_at DESC, e.id DESC), '[]') AS headers FROM (SELECT ${headerColumns} FROM episodes e ${sql}) e`,
        values,
        { planEachRun },
      );
      return r.rows[0]!.headers.map(toHeader);
    },

    /** The conversation's most recent episode: where newly arrived messages may continue. */
    async latestInConversation(ownerId: string, conversationId: string): Promise<Episode | null> {
      const r = await q.query<{ episode: EpisodeJson }>(
        `${episodeSelect} WHERE e.owner_id = $1 AND e.conversation_id = $2 ORDER BY e.end_at DESC, e.id DESC LIMIT 1`,
        [ownerId, conversationId],
      );
      return r.rows[0] ? toEpisode(r.rows[0]) : null;
    },

    /** The `open` (provisional) episodes of a live conversation's tail, oldest first: normally one. */
    async openInConversation(ownerId: string, conversationId: string): Promise<string[]> {
      const r = await q.query<{ id: string }>(
        `SELECT id FROM episodes WHERE owner_id = $1 AND conversation_id = $2 AND processing_status = 'open' ORDER BY start_at, id`,
        [ownerId, conversationId],
      );
      return r.rows.map((x) => x.id);
    },

    /** Every indexable episode: trashed ones stay out of the indexes (their entries are parked). */
    async ids(ownerId: string): Promise<string[]> {
      const r = await q.query<{ id: string }>(`SELECT id FROM episodes WHERE owner_id = $1 AND tier <> 'trash' ORDER BY start_at`, [
        ownerId,
      ]);
      return r.rows.map((x) => x.id);
    },

    async counts(ownerId: string): Promise<{ episodes: number; conversations: number; messages: number; lastWrite: Date | null }> {
      const r = await q.query<{ episodes: number; conversations: number; messages: number; last_write: Date | null }>(
        `SELECT (SELECT count(*)::int FROM episodes WHERE owner_id = $1) AS episodes,
                (SELECT count(*)::int FROM conversations WHERE owner_id = $1) AS conversations,
                (SELECT count(*)::int FROM messages WHERE owner_id = $1) AS messages,
                (SELECT max(updated_at) FROM episodes WHERE owner_id = $1) AS last_write`,
        [ownerId],
      );
      const row = r.rows[0]!;
      return { episodes: row.episodes, conversations: row.conversations, messages: row.messages, lastWrite: row.last_write };
    },

    async sources(ownerId: string): Promise<{ source: string; conversations: number }[]> {
      const r = await q.query<{ source: string; n: number }>(
        `SELECT source, count(*)::int AS n FROM conversations WHERE owner_id = $1 GROUP BY source ORDER BY n DESC, source`,
        [ownerId],
      );
      return r.rows.map((x) => ({ source: x.source, conversations: x.n }));
    },

    async owners(): Promise<string[]> {
      // The one cross-owner query: listing which owners exist, for `stats` and `health`. Each table's
      // owners are walked one to the next down an index that starts with the owner (a few reads per
      // owner), not found by reading every row (at 100k episodes 60–240 ms).
      const walk = (table: string, alias: string) =>
        `${alias} AS (SELECT min(owner_id) AS o FROM ${table}
           UNION ALL SELECT (SELECT min(owner_id) FROM ${table} WHERE owner_id > ${alias}.o) FROM ${alias} WHERE ${alias}.o IS NOT NULL)`;
      const r = await q.query<{ owner_id: string }>(
        `WITH RECURSIVE ${walk('conversations', 'c')}, ${walk('episodes', 'e')}
         SELECT o AS owner_id FROM c WHERE o IS NOT NULL UNION SELECT o FROM e WHERE o IS NOT NULL ORDER BY 1`,
      );
      return r.rows.map((x) => x.owner_id);
    },

    /**
     * The episodes `builder` told by rules older than `generation` (its version is `<builder>-<n>`),
     * that nobody edited since (updated when created) and that are neither a live tail still growing
     * nor in the trash: the latest first.
     */
    async toldBefore(ownerId: string, builder: string, generation: number): Promise<string[]> {
      // Versions other than this generation's are two ranges of episodes_by_version: none, mostly.
      const r = await q.query<{ id: string }>(
        `SELECT id FROM episodes
         WHERE owner_id = $1 AND builder = $2 AND (processing_version < $5 OR processing_version > $5)
           AND updated_at = created_at AND processing_status <> 'open' AND tier <> 'trash'
           AND coalesce(substring(processing_version FROM $3)::int, 0) < $4
         ORDER BY start_at DESC, id`,
        [ownerId, builder, `^${builder}-([0-9]+)$`, generation, `${builder}-${generation}`],
      );
      return r.rows.map((x) => x.id);
    },

    /**
     * Every episode (in time order) of the conversations that have something to rebuild: episodes
     * marked `needs_rebuild`, or with `heuristic` every heuristic episode. The caller groups the
     * marked ones into runs of neighbours.
     */
    async rebuildCandidates(ownerId: string, scope: 'needs_rebuild' | 'heuristic'): Promise<RebuildRow[]> {
      const marked = scope === 'heuristic' ? `x.builder = 'heuristic'` : `x.processing_status = 'needs_rebuild'`;
      const r = await q.query<RebuildRow>(
        `SELECT e.id, e.conversation_id AS "conversationId", e.processing_status AS status, e.builder, e.tier,
                (SELECT count(*)::int FROM messages m WHERE m.owner_id = e.owner_id AND m.episode_id = e.id) AS "messageCount"
         FROM episodes e
         WHERE e.owner_id = $1 AND e.conversation_id IN (
           SELECT x.conversation_id FROM episodes x WHERE x.owner_id = $1 AND x.conversation_id IS NOT NULL AND ${marked})
         ORDER BY e.conversation_id, e.start_at, e.id`,
        [ownerId],
      );
      return r.rows;
    },
  };
}

/** Inserts episodes in one statement per 500 (an import's group is hundreds); returns their ids in order. */
async function insertEpisodes(
  q: Sql,
  ownerId: string,
  conversationId: string | null,
  drafts: readonly EpisodeDraft[],
  now: Date,
): Promise<string[]> {
  const ids = drafts.map(() => randomUUID());
  if (drafts.length === 0) return ids;
  // The conversation is checked once here, not by the foreign key for every episode.
  if (conversationId !== null) await requireConversation(q, ownerId, conversationId);
  await withReferencesChecked(q, () => insertBatches(q, ownerId, conversationId, drafts, ids, now));
  return ids;
}

async function insertBatches(
  q: Sql,
  ownerId: string,
  conversationId: string | null,
  drafts: readonly EpisodeDraft[],
  ids: readonly string[],
  now: Date,
): Promise<void> {
  for (const [i, batch] of chunks(drafts, 500).entries()) {
    const text = (f: (d: EpisodeDraft) => string) => textArray(batch.map(f));
    // Arrays in binary form (core/store/sql.ts): the server takes each text as it is, unparsed.
    await q.query(
      `INSERT INTO episodes (id, owner_id, conversation_id, episode_type, level, title, content, summary, start_at, end_at,
           utc_offset_min, metadata, structured_data, keywords, importance, builder, processing_status, processing_version,
           created_at, updated_at)
         SELECT u.id, $1, $2, u.episode_type, u.level, u.title, u.content, u.summary, u.start_at, u.end_at, u.off,
                u.metadata::jsonb, u.structured_data::jsonb, ARRAY(SELECT jsonb_array_elements_text(u.keywords::jsonb)),
                u.importance, u.builder, u.status, u.version, $3, $3
         FROM unnest($4::uuid[], $5::text[], $6::int[], $7::text[], $8::text[], $9::text[], $10::timestamptz[],
                     $11::timestamptz[], $12::int[], $13::text[], $14::text[], $15::text[], $16::real[], $17::text[],
                     $18::text[], $19::text[])
           AS u(id, episode_type, level, title, content, summary, start_at, end_at, off, metadata, structured_data,
                keywords, importance, builder, status, version)`,
      [
        ownerId,
        conversationId,
        now,
        uuidArray(ids.slice(i * 500, i * 500 + batch.length)),
        text((d) => d.episodeType),
        int4Array(batch.map((d) => d.level)),
        text((d) => d.title),
        text((d) => d.content),
        text((d) => d.summary),
        timestamptzArray(batch.map((d) => d.temporal.start)),
        timestamptzArray(batch.map((d) => d.temporal.end)),
        int4Array(batch.map((d) => d.temporal.utcOffsetMin)),
        text((d) => JSON.stringify(d.metadata)),
        text((d) => JSON.stringify(d.structuredData)),
        text((d) => JSON.stringify(d.keywords)),
        float4Array(batch.map((d) => d.importance)),
        text((d) => d.builder),
        text((d) => d.processingStatus),
        text((d) => d.processingVersion),
      ],
    );
  }
}

/** A draft's columns in the order rewrite names them (episode_type … processing_version). */
const draftValues = (d: EpisodeDraft) => [
  d.episodeType,
  d.level,
  d.title,
  d.content,
  d.summary,
  d.temporal.start,
  d.temporal.end,
  d.temporal.utcOffsetMin,
  JSON.stringify(d.metadata),
  JSON.stringify(d.structuredData),
  d.keywords,
  d.importance,
  d.builder,
  d.processingStatus,
  d.processingVersion,
];

export function episodeWrites(q: Sql) {
  return {
    insertMany: (ownerId: string, conversationId: string | null, drafts: readonly EpisodeDraft[], now: Date) =>
      insertEpisodes(q, ownerId, conversationId, drafts, now),
    async insert(ownerId: string, conversationId: string | null, d: EpisodeDraft, now: Date): Promise<string> {
      return (await insertEpisodes(q, ownerId, conversationId, [d], now))[0]!;
    },

    async update(ownerId: string, id: string, patch: EpisodePatch, now: Date): Promise<boolean> {
      const p = new Params();
      const sets: string[] = [];
      const column: Record<keyof EpisodePatch, string> = {
        episodeType: 'episode_type',
        level: 'level',
        title: 'title',
        content: 'content',
        summary: 'summary',
        metadata: 'metadata',
        structuredData: 'structured_data',
        keywords: 'keywords',
        importance: 'importance',
      };
      for (const [key, col] of Object.entries(column) as [keyof EpisodePatch, string][]) {
        const v = patch[key];
        if (v === undefined) continue;
        sets.push(`${col} = ${p.add(typeof v === 'object' && !Array.isArray(v) ? JSON.stringify(v) : v)}`);
      }
      // An explicit importance is the new base the forgetting pass's dynamic importance starts from.
      if (patch.importance !== undefined) sets.push(`base_importance = ${p.add(patch.importance)}`);
      sets.push(`updated_at = ${p.add(now)}`);
      const r = await q.query(`UPDATE episodes SET ${sets.join(', ')} WHERE owner_id = ${p.add(ownerId)} AND id = ${p.add(id)}`, p.values);
      return (r.affectedRows ?? 0) > 0;
    },

    /**
     * Rewrites an episode in place from a new draft: same id, same owner and conversation, and what a
     * person did with it (recall count, last access, creation time) kept. Indexes are the caller's job,
     * in the same transaction. The new importance is also the new base the forgetting pass starts from.
     */
    async rewrite(ownerId: string, id: string, d: EpisodeDraft, now: Date): Promise<boolean> {
      const r = await q.query(
        `UPDATE episodes SET episode_type = $3, level = $4, title = $5, content = $6, summary = $7, start_at = $8, end_at = $9,
           utc_offset_min = $10, metadata = $11, structured_data = $12, keywords = $13, importance = $14, builder = $15,
           processing_status = $16, processing_version = $17, updated_at = $18, base_importance = $14
         WHERE owner_id = $1 AND id = $2`,
        [ownerId, id, ...draftValues(d), now],
      );
      return (r.affectedRows ?? 0) > 0;
    },

    /**
     * Episodes' words written again (title, summary, content, keywords, metadata, structured data, and a
     * version where one is given): told again by newer rules — `unedited` names the builder, and only its episodes nobody
     * edited change — or filtered for secrets (`null`: any episode). Their boundaries, status,
     * importance, what a person did with them and when they were made and last changed stay: an
     * unedited episode stays one. One statement; returns the ids written.
     */
    async reword(
      ownerId: string,
      rows: readonly { id: string; words: EpisodeWords; version?: string }[],
      unedited: string | null,
    ): Promise<string[]> {
      if (rows.length === 0) return [];
      const r = await q.query<{ id: string }>(
        `UPDATE episodes e SET title = t.title, content = t.content, summary = t.summary, metadata = t.metadata,
           structured_data = t.structured_data, keywords = ARRAY(SELECT jsonb_array_elements_text(t.keywords)),
           processing_version = COALESCE(t.version, e.processing_version)
         FROM unnest($3::uuid[], $4::text[], $5::text[], $6::text[], $7::jsonb[], $8::jsonb[], $9::jsonb[], $10::text[])
           AS t(id, title, content, summary, metadata, structured_data, keywords, version)
         WHERE e.owner_id = $1 AND e.id = t.id AND ($2::text IS NULL OR (e.builder = $2 AND e.updated_at = e.created_at))
         RETURNING e.id`,
        [
          ownerId,
          unedited,
          rows.map((x) => x.id),
          rows.map((x) => x.words.title),
          rows.map((x) => x.words.content),
          rows.map((x) => x.words.summary),
          rows.map((x) => JSON.stringify(x.words.metadata)),
          rows.map((x) => JSON.stringify(x.words.structuredData)),
          rows.map((x) => JSON.stringify(x.words.keywords)),
          rows.map((x) => x.version ?? null),
        ],
      );
      return r.rows.map((x) => x.id);
    },

    async delete(ownerId: string, id: string): Promise<boolean> {
      const r = await q.query(`DELETE FROM episodes WHERE owner_id = $1 AND id = $2`, [ownerId, id]);
      return (r.affectedRows ?? 0) > 0;
    },

    /** Access tracking: reading an episode is recalling it (recall count and last access feed forgetting). */
    async recordAccess(ownerId: string, ids: readonly string[], now: Date): Promise<void> {
      if (ids.length === 0) return;
      // The owner's episodes among `ids`, each once (an id of no episode of theirs records nothing).
      await q.query(
        `INSERT INTO episode_recalls (episode_id, owner_id, recall_count, last_accessed)
         SELECT e.id, e.owner_id, 1, $3 FROM episodes e WHERE e.owner_id = $1 AND e.id = ANY($2::uuid[])
         ON CONFLICT (episode_id) DO UPDATE SET recall_count = episode_recalls.recall_count + 1, last_accessed = EXCLUDED.last_accessed`,
        [ownerId, ids, now],
      );
    },
  };
}
