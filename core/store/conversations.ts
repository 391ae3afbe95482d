import { createHash, randomUUID } from 'node:crypto';
import type { Attachment, IncomingConversation, IncomingMessage, MessageRole, StoredMessage } from '../domain/conversation.js';
import { chunks, int4Array, requireConversation, textArray, timestamptzArray, uuidArray, withReferencesChecked, type Sql } from './sql.js';

interface MessageRow {
  id: string;
  conversation_id: string;
  external_id: string | null;
  seq: number;
  speaker: string;
  role: MessageRole;
  content: string;
  sent_at: Date;
  utc_offset_min: number;
  attachments: Attachment[];
  episode_id: string | null;
}

export const messageColumns =
  'id, conversation_id, external_id, seq, speaker, role, content, sent_at, utc_offset_min, attachments, episode_id';

function toMessage(r: MessageRow): StoredMessage {
  return {
    id: r.id,
    conversationId: r.conversation_id,
    externalId: r.external_id,
    seq: r.seq,
    speaker: r.speaker,
    role: r.role,
    text: r.content,
    sentAt: r.sent_at,
    utcOffsetMin: r.utc_offset_min,
    attachments: r.attachments,
    episodeId: r.episode_id,
  };
}

/** A message as `json_build_array(messageColumns)` gives it. */
export type MessageJson = [string, string, string | null, number, string, MessageRole, string, string, number, Attachment[], string | null];

export function messageFromJson([
  id,
  conversationId,
  externalId,
  seq,
  speaker,
  role,
  text,
  sentAt,
  utcOffsetMin,
  attachments,
  episodeId,
]: MessageJson): StoredMessage {
  return { id, conversationId, externalId, seq, speaker, role, text, sentAt: new Date(sentAt), utcOffsetMin, attachments, episodeId };
}

/**
 * The messages `where` selects (over `messages`, with `params`), oldest first: all, or the first (or, from
 * `latest`, the last) `limit`. As one JSON value, because PGlite turns every column of every row into a JS
 * value on its own — a conversation's hundreds of messages parse in a fraction of the time as one field
 * than as rows of eleven.
 */
async function messagesWhere(
  q: Sql,
  where: string,
  params: unknown[],
  limit: number | null = null,
  latest = false,
): Promise<StoredMessage[]> {
  const order = latest ? 'sent_at DESC, seq DESC' : 'sent_at, seq';
  const from =
    limit === null
      ? `messages WHERE ${where}`
      : `(SELECT ${messageColumns} FROM messages WHERE ${where} ORDER BY ${order} LIMIT $${params.length + 1}) m`;
  const r = await q.query<{ messages: MessageJson[] }>(
    `SELECT COALESCE(json_agg(json_build_array(${messageColumns}) ORDER BY sent_at, seq), '[]') AS messages FROM ${from}`,
    limit === null ? params : [...params, limit],
  );
  return r.rows[0]!.messages.map(messageFromJson);
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The key of a message without an id of its own: who said what when. */
export function saidKey(speaker: string, sentAt: Date, text: string): string {
  return sha256(`${speaker}\u0000${sentAt.toISOString()}\u0000${sha256(text)}`);
}

/**
 * What makes a message the same message again when an export is imported twice: the export's id, or
 * who said what when — and which occurrence of that it is among the messages stored together. Three
 * "Bob: ok" in one minute (WhatsApp times have minute precision) are three messages, and so are
 * messages of a file whose ids repeat; the same file again yields the same keys, so nothing doubles.
 * The first occurrence keeps the key earlier versions gave it.
 */
function dedupeKeys(messages: readonly IncomingMessage[]): string[] {
  const seen = new Map<string, number>();
  return messages.map((m) => {
    const key = m.externalId ?? saidKey(m.speaker, m.sentAt, m.text);
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    return n === 0 ? key : `${key}#${n}`;
  });
}

export interface StoredConversation {
  id: string;
  source: string;
  externalId: string;
  title: string | null;
  participants: string[];
  processed: boolean;
}

interface ConversationRow {
  id: string;
  source: string;
  external_id: string;
  title: string | null;
  participants: string[];
  processed: boolean;
}
const conversationColumns = 'id, source, external_id, title, participants, processed';
const toConversation = (row: ConversationRow): StoredConversation => ({
  id: row.id,
  source: row.source,
  externalId: row.external_id,
  title: row.title,
  participants: row.participants,
  processed: row.processed,
});

/** Conversations and their messages: the raw material every episode is built from. */
export function conversationReads(q: Sql) {
  return {
    /** The stored ids of these messages (each as `addMessages` keyed it), in their order; null where none is stored. */
    async idsOf(ownerId: string, conversationId: string, messages: readonly IncomingMessage[]): Promise<(string | null)[]> {
      const keys = dedupeKeys(messages);
      const r = await q.query<{ id: string; dedupe_key: string }>(
        `SELECT id, dedupe_key FROM messages WHERE owner_id = $1 AND conversation_id = $2 AND dedupe_key = ANY($3::text[])`,
        [ownerId, conversationId, keys],
      );
      const byKey = new Map(r.rows.map((x) => [x.dedupe_key, x.id]));
      return keys.map((k) => byKey.get(k) ?? null);
    },

    /** A conversation by its source's id: in one source, or in any (live memory's `endConversation`). */
    async byExternalId(ownerId: string, externalId: string, source?: string): Promise<StoredConversation[]> {
      const r = await q.query<ConversationRow>(
        `SELECT ${conversationColumns} FROM conversations
         WHERE owner_id = $1 AND external_id = $2 AND ($3::text IS NULL OR source = $3) ORDER BY created_at`,
        [ownerId, externalId, source ?? null],
      );
      return r.rows.map(toConversation);
    },

    /**
     * Live conversations (metadata `live`) whose tail is open: messages pending, or an `open` episode.
     * Across owners, for the engine to pick them up again at open; `lastTurnAt` is the conversation's
     * last write (every `addMemory` touches it).
     */
    async liveTails(): Promise<{ ownerId: string; conversationId: string; lastTurnAt: Date }[]> {
      const r = await q.query<{ owner_id: string; id: string; updated_at: Date }>(
        `SELECT c.owner_id, c.id, c.updated_at FROM conversations c
         WHERE c.metadata->>'live' = 'true' AND (
           EXISTS (SELECT 1 FROM messages m WHERE m.owner_id = c.owner_id AND m.conversation_id = c.id AND NOT m.processed)
           OR EXISTS (SELECT 1 FROM episodes e WHERE e.owner_id = c.owner_id AND e.conversation_id = c.id AND e.processing_status = 'open'))
         ORDER BY c.updated_at`,
      );
      return r.rows.map((x) => ({ ownerId: x.owner_id, conversationId: x.id, lastTurnAt: x.updated_at }));
    },

    /** Conversations with messages no episode has been built from yet (after an import or a crash). */
    async withPendingMessages(ownerId: string): Promise<string[]> {
      const r = await q.query<{ conversation_id: string }>(
        `SELECT DISTINCT conversation_id FROM messages WHERE owner_id = $1 AND NOT processed`,
        [ownerId],
      );
      return r.rows.map((x) => x.conversation_id);
    },

    /**
     * The conversation's messages no episode holds yet, oldest first: all, or the first `limit`. A
     * bounded read comes as one JSON value; all of them (the LLM builder's whole chat: two million
     * messages in a big export) stay rows, since as one value they could pass V8's longest string.
     */
    async pendingMessages(ownerId: string, conversationId: string, limit: number | null = null): Promise<StoredMessage[]> {
      const where = 'owner_id = $1 AND conversation_id = $2 AND NOT processed';
      if (limit !== null) return messagesWhere(q, where, [ownerId, conversationId], limit);
      const r = await q.query<MessageRow>(`SELECT ${messageColumns} FROM messages WHERE ${where} ORDER BY sent_at, seq`, [
        ownerId,
        conversationId,
      ]);
      return r.rows.map(toMessage);
    },

    /**
     * The latest messages no episode holds yet that were sent in (since, until], oldest first, at most
     * `limit`: what was just said in a conversation still going on (or whose last turns a stopped server
     * left unbuilt). An import's pending messages are old, and bounded by its build window.
     */
    async recentPending(ownerId: string, since: Date, until: Date, limit: number): Promise<StoredMessage[]> {
      const where = 'owner_id = $1 AND NOT processed AND sent_at > $2 AND sent_at <= $3';
      return messagesWhere(q, where, [ownerId, since, until], limit, true);
    },

    /** Every message of these episodes (the evidence packer reads hundreds a query). */
    async messagesOfEpisodes(ownerId: string, episodeIds: readonly string[]): Promise<StoredMessage[]> {
      if (episodeIds.length === 0) return [];
      return messagesWhere(q, 'owner_id = $1 AND episode_id = ANY($2::uuid[])', [ownerId, episodeIds]);
    },

    async messagesByIds(ownerId: string, ids: readonly string[]): Promise<StoredMessage[]> {
      if (ids.length === 0) return [];
      return messagesWhere(q, 'owner_id = $1 AND id = ANY($2::uuid[])', [ownerId, ids]);
    },

    async get(ownerId: string, id: string): Promise<StoredConversation | null> {
      const r = await q.query<ConversationRow>(`SELECT ${conversationColumns} FROM conversations WHERE owner_id = $1 AND id = $2`, [
        ownerId,
        id,
      ]);
      return r.rows[0] ? toConversation(r.rows[0]) : null;
    },

    /** The data type of a conversation (what kind of record it is), which picks its episode builder. */
    async dataType(ownerId: string, conversationId: string): Promise<string> {
      const r = await q.query<{ data_type: string }>(`SELECT data_type FROM conversations WHERE owner_id = $1 AND id = $2`, [
        ownerId,
        conversationId,
      ]);
      return r.rows[0]?.data_type ?? 'conversation';
    },
  };
}

/** Links each episode's messages to it in one statement per 5 000 messages, however many episodes. */
async function linkMessages(
  q: Sql,
  ownerId: string,
  links: readonly { messageIds: readonly string[]; episodeId: string }[],
): Promise<void> {
  const pairs = links.flatMap((l) => l.messageIds.map((m) => [m, l.episodeId] as const));
  // Only to the owner's stored episodes, joined once per statement rather than looked up by the
  // foreign key once per message.
  await withReferencesChecked(q, async () => {
    for (const batch of chunks(pairs, 5000)) {
      await q.query(
        `UPDATE messages m SET episode_id = u.episode_id, processed = true
           FROM unnest($2::uuid[], $3::uuid[]) AS u(id, episode_id) JOIN episodes e ON e.owner_id = $1 AND e.id = u.episode_id
           WHERE m.owner_id = $1 AND m.id = u.id`,
        [ownerId, uuidArray(batch.map((x) => x[0])), uuidArray(batch.map((x) => x[1]))],
      );
    }
  });
}

export function conversationWrites(q: Sql) {
  return {
    linkToEpisodes: (ownerId: string, links: readonly { messageIds: readonly string[]; episodeId: string }[]) =>
      linkMessages(q, ownerId, links),
    /**
     * Creates the conversation or returns the existing one with the same source and external id. `id` is
     * the new conversation's id (live memory makes one id serve as both), a fresh one by default.
     */
    async upsert(
      ownerId: string,
      c: IncomingConversation,
      now: Date,
      id: string = randomUUID(),
    ): Promise<{ id: string; created: boolean }> {
      const r = await q.query<{ id: string; created: boolean }>(
        `INSERT INTO conversations (id, owner_id, source, external_id, title, participants, metadata, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
         ON CONFLICT (owner_id, source, external_id) DO UPDATE
           SET title = COALESCE(EXCLUDED.title, conversations.title), updated_at = EXCLUDED.updated_at,
               -- A long chat arrives in parts: everyone who spoke in any part is a participant.
               participants = (SELECT COALESCE(jsonb_agg(DISTINCT p), '[]'::jsonb)
                               FROM jsonb_array_elements(conversations.participants || EXCLUDED.participants) AS p)
         RETURNING id, (xmax = 0) AS created`,
        [id, ownerId, c.source, c.externalId, c.title ?? null, JSON.stringify(c.participants), JSON.stringify(c.metadata), now],
      );
      return r.rows[0]!;
    },

    /**
     * Stores messages not seen before; returns how many were new. They are numbered (`seq`) after the
     * conversation's earlier messages: a long chat arrives in parts and live turns a few at a time, and
     * readers take seq ± 1 for the turn before and after. Messages stored before keep their number, so a
     * re-import changes nothing.
     */
    async addMessages(ownerId: string, conversationId: string, c: IncomingConversation): Promise<number> {
      if (c.messages.length === 0) return 0;
      // The conversation is checked once here, not by the foreign key for every message.
      const { nextSeq: firstSeq } = await requireConversation(q, ownerId, conversationId);
      let added = 0;
      let nextSeq = firstSeq;
      const keys = dedupeKeys(c.messages);
      const indexed = c.messages.map((m, i) => ({ m, seq: firstSeq + i, key: keys[i]! }));
      await withReferencesChecked(q, async () => {
        for (const batch of chunks(indexed, 500)) {
          // Arrays in binary form (core/store/sql.ts): the server takes each text as it is, unparsed.
          const r = await q.query<{ n: number; top: number | null }>(
            `WITH stored AS (
               INSERT INTO messages (id, owner_id, conversation_id, external_id, dedupe_key, seq, speaker, role, content,
                                     sent_at, utc_offset_min, attachments, metadata)
               SELECT u.id, $1, $2, u.external_id, u.dedupe, u.seq, u.speaker, u.role, u.content, u.sent_at, u.off,
                      u.attachments::jsonb, u.metadata::jsonb
               FROM unnest($3::uuid[], $4::text[], $5::text[], $6::int[], $7::text[], $8::text[], $9::text[],
                           $10::timestamptz[], $11::int[], $12::text[], $13::text[])
                    AS u(id, external_id, dedupe, seq, speaker, role, content, sent_at, off, attachments, metadata)
               ON CONFLICT (owner_id, conversation_id, dedupe_key) DO NOTHING
               RETURNING seq)
             SELECT count(*)::int AS n, max(seq) AS top FROM stored`,
            [
              ownerId,
              conversationId,
              uuidArray(batch.map(() => randomUUID())),
              textArray(batch.map(({ m }) => m.externalId ?? null)),
              textArray(batch.map(({ key }) => key)),
              int4Array(batch.map(({ seq }) => seq)),
              textArray(batch.map(({ m }) => m.speaker)),
              textArray(batch.map(({ m }) => m.role)),
              textArray(batch.map(({ m }) => m.text)),
              timestamptzArray(batch.map(({ m }) => m.sentAt)),
              int4Array(batch.map(({ m }) => m.utcOffsetMin)),
              textArray(batch.map(({ m }) => JSON.stringify(m.attachments))),
              textArray(batch.map(({ m }) => JSON.stringify(m.metadata))),
            ],
          );
          const stored = r.rows[0]!;
          added += stored.n;
          if (stored.top !== null) nextSeq = Math.max(nextSeq, stored.top + 1);
        }
      });
      if (added > 0) {
        await q.query(`UPDATE conversations SET processed = false, next_seq = $3 WHERE owner_id = $1 AND id = $2`, [
          ownerId,
          conversationId,
          nextSeq,
        ]);
      }
      return added;
    },

    async linkToEpisode(ownerId: string, messageIds: readonly string[], episodeId: string): Promise<void> {
      await linkMessages(q, ownerId, [{ messageIds, episodeId }]);
    },

    async markProcessed(ownerId: string, conversationId: string, version: string): Promise<void> {
      await q.query(
        `UPDATE conversations SET processed = NOT EXISTS (
             SELECT 1 FROM messages m WHERE m.owner_id = $1 AND m.conversation_id = $2 AND NOT m.processed),
           processing_version = $3
         WHERE owner_id = $1 AND id = $2`,
        [ownerId, conversationId, version],
      );
    },

    /**
     * Makes an episode's messages pending again (no episode, not processed), in the transaction that
     * is about to delete or rebuild it: if the work after it never commits, they are simply rebuilt.
     */
    async releaseMessages(ownerId: string, episodeId: string): Promise<void> {
      await q.query(`UPDATE messages SET episode_id = NULL, processed = false WHERE owner_id = $1 AND episode_id = $2`, [
        ownerId,
        episodeId,
      ]);
    },
  };
}
