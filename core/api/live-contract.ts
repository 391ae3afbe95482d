import { z } from 'zod';
import { IsoTimestamp, MessageRole } from '../domain/conversation.js';
import { Owner } from '../domain/owner.js';

/**
 * Live memory: a companion adds a conversation's turns as they happen. `addMemory` returns as soon as the
 * turns are committed; episodes are built in the background (the conversation's open tail is searchable
 * at once, and closes into episodes at time gaps, topic shifts, the size cap, after `idleMinutes` without a
 * turn, or on `end` / `endConversation`).
 */

export const AddMemoryInput = z.object({
  ownerId: Owner,
  /** The id an earlier call returned (or the caller's own); none: a new conversation, whose id is returned. */
  conversationId: z.string().min(1).optional(),
  source: z.string().min(1).default('companion'),
  messages: z
    .array(
      z.object({
        /** The turn's own id: sending it again is a duplicate, not a second message. */
        id: z.string().min(1).optional(),
        speaker: z.string().min(1),
        role: MessageRole.optional(),
        text: z.string(),
        /** When it was said (default: now by the engine clock). */
        time: IsoTimestamp.optional(),
      }),
    )
    .min(1),
  /** The conversation is over: close its tail into episodes. */
  end: z.boolean().optional(),
});

export const AddMemoryOutput = z.object({
  conversationId: z.string(),
  /** Turns stored by this call; the others were `duplicates` of turns stored before. */
  stored: z.number().int(),
  duplicates: z.number().int(),
  /** The stored message of each turn, in order (what search results cite as sources). */
  messageIds: z.array(z.string()),
});

export const EndConversationInput = z.object({
  ownerId: Owner,
  conversationId: z.string().min(1),
  /** Only needed when the same conversation id is used under several sources. */
  source: z.string().min(1).optional(),
});

export const EndConversationOutput = z.object({
  conversationId: z.string(),
  /** Whether it had an open tail to close (closing runs in the background, like building after `addMemory`). */
  closing: z.boolean(),
});

export const liveOperations = {
  addMemory: { input: AddMemoryInput, output: AddMemoryOutput },
  endConversation: { input: EndConversationInput, output: EndConversationOutput },
} as const;
