import type { EngineContext } from '../context/engine-context.js';
import { IncomingConversation, type MessageRole } from '../domain/conversation.js';
import type { StoredConversation } from '../store/conversations.js';
import { instantSent } from './local-time.js';
import { localDate } from '../text/describe.js';
import { redactConversation } from '../privacy/redact.js';

/**
 * Live memory's way in: a companion adds a conversation's turns as they happen (`addMemory`). The turns
 * are filtered for secrets (core/privacy) and committed in one transaction and that is all this does; episodes are built behind it
 * (core/jobs/live-building.ts). A turn sent again with the same id is a duplicate, not a second row.
 */

export interface LiveTurn {
  id?: string | undefined;
  speaker: string;
  role?: MessageRole | undefined;
  text: string;
  /** ISO 8601 with an offset or Z; default: now by the engine clock, in this machine's time zone. */
  time?: string | undefined;
}

export interface AddTurnsInput {
  ownerId: string;
  /** The conversation to add to (the id an earlier call returned, or the caller's own); none: the day's conversation. */
  conversationId?: string | undefined;
  source: string;
  messages: readonly LiveTurn[];
}

export interface AddTurnsResult {
  /** The conversation's id (what episodes and search results name): pass it back with the next turns. */
  conversationId: string;
  /** The conversation's key under its source: the caller's own, or the day's `chat-YYYY-MM-DD`. */
  key: string;
  stored: number;
  duplicates: number;
  /** Secrets the privacy filter replaced (how many, never what). */
  redacted: number;
  /** The stored message of each turn, in the order given (a duplicate's is the one stored before). */
  messageIds: string[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A conversation named by its id (as addMemory returned it) or by the caller's own key under a source. */
export async function findConversations(
  ctx: EngineContext,
  ownerId: string,
  idOrKey: string,
  source?: string,
): Promise<StoredConversation[]> {
  const read = ctx.store.read.conversations;
  const byId = UUID.test(idOrKey) ? await read.get(ownerId, idOrKey) : null;
  if (byId && (source === undefined || byId.source === source)) return [byId];
  return read.byExternalId(ownerId, idOrKey, source);
}

/**
 * Stores turns of a live conversation. The conversation is keyed by source and `conversationId`; a new
 * one gets a fresh id that is both its key and its store id, marked `live` so the engine picks up its
 * open tail after a crash. Turns are numbered after the conversation's earlier messages.
 */
export async function addTurns(ctx: EngineContext, i: AddTurnsInput): Promise<AddTurnsResult> {
  const now = ctx.clock.now();
  const messages = i.messages.map((m) => {
    const { at, utcOffsetMin } = m.time ? instantSent(m.time) : { at: now, utcOffsetMin: -now.getTimezoneOffset() };
    return { externalId: m.id, speaker: m.speaker, role: m.role ?? 'other', text: m.text, sentAt: at, utcOffsetMin };
  });
  // A companion that keeps no ids still gets one conversation a day, not one per exchange.
  const first = messages[0]!;
  const named = i.conversationId === undefined ? undefined : (await findConversations(ctx, i.ownerId, i.conversationId, i.source))[0];
  const { value: c, redacted } = redactConversation(
    IncomingConversation.parse({
      source: i.source,
      externalId: named?.externalId ?? i.conversationId ?? `chat-${localDate(first.sentAt, first.utcOffsetMin)}`,
      metadata: { live: true },
      messages,
    }),
    ctx.config.privacy,
  );
  return ctx.store.transaction(async (r) => {
    const { id } = await r.conversations.upsert(i.ownerId, c, now);
    const stored = await r.conversations.addMessages(i.ownerId, id, c);
    const ids = await r.conversations.idsOf(i.ownerId, id, c.messages);
    return {
      conversationId: id,
      key: c.externalId,
      stored,
      duplicates: c.messages.length - stored,
      redacted,
      messageIds: ids.map((x, k) => {
        if (x === null) throw new Error(`message ${k} of the turns was not stored`);
        return x;
      }),
    };
  });
}
