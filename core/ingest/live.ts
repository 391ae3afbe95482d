import { randomUUID } from 'node:crypto';
import type { EngineContext } from '../context/engine-context.js';
import { IncomingConversation, parseIsoWithOffset, type MessageRole } from '../domain/conversation.js';

/**
 * Live memory's way in: a companion adds a conversation's turns as they happen (`addMemory`). The turns
 * are committed in one transaction and that is all this does; episodes are built behind it
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
  /** The conversation to add to (the id an earlier call returned, or the caller's own); none: a new one. */
  conversationId?: string | undefined;
  source: string;
  messages: readonly LiveTurn[];
}

export interface AddTurnsResult {
  /** The id to pass back with the next turns. */
  conversationId: string;
  /** The store's id of the conversation (what episodes and messages refer to). */
  storeId: string;
  stored: number;
  duplicates: number;
  /** The stored message of each turn, in the order given (a duplicate's is the one stored before). */
  messageIds: string[];
}

/**
 * Stores turns of a live conversation. The conversation is keyed by source and `conversationId`; a new
 * one gets a fresh id that is both its key and its store id, marked `live` so the engine picks up its
 * open tail after a crash. Turns are numbered after the conversation's earlier messages.
 */
export async function addTurns(ctx: EngineContext, i: AddTurnsInput): Promise<AddTurnsResult> {
  const now = ctx.clock.now();
  const conversationId = i.conversationId ?? randomUUID();
  const c = IncomingConversation.parse({
    source: i.source,
    externalId: conversationId,
    participants: [...new Set(i.messages.map((m) => m.speaker))],
    metadata: { live: true },
    messages: i.messages.map((m) => {
      const { at, utcOffsetMin } = m.time ? parseIsoWithOffset(m.time) : { at: now, utcOffsetMin: -now.getTimezoneOffset() };
      return { externalId: m.id, speaker: m.speaker, role: m.role ?? 'other', text: m.text, sentAt: at, utcOffsetMin };
    }),
  });
  return ctx.store.transaction(async (r) => {
    const { id } = await r.conversations.upsert(i.ownerId, c, now, i.conversationId === undefined ? conversationId : undefined);
    const stored = await r.conversations.addMessages(i.ownerId, id, c, await r.conversations.nextSeq(i.ownerId, id));
    const ids = await r.conversations.idsOf(i.ownerId, id, c.messages);
    return {
      conversationId,
      storeId: id,
      stored,
      duplicates: c.messages.length - stored,
      messageIds: ids.map((x, k) => {
        if (x === null) throw new Error(`message ${k} of the turns was not stored`);
        return x;
      }),
    };
  });
}
