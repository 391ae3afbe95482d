import type { IncomingMessage } from '../domain/conversation.js';

/**
 * One chat can be most of a multi-gigabyte export (a Telegram group, a Discord channel, a busy Slack
 * channel). Importers yield such a chat in parts of this many messages, all with the chat's externalId:
 * the store appends each part to the same conversation, so memory holds one part, not the whole chat.
 * Parts after the first carry `metadata.continued = true` (a report counts conversations without it).
 */
export const PART_MESSAGES = 5000;

/**
 * Whether `messages` is full and `next` should start a new part. Never cuts between two messages of
 * the same instant: the store orders by time, then by position within a part, so only a change of
 * time keeps the order across the cut.
 */
export function partIsFull(messages: readonly IncomingMessage[], next: IncomingMessage, size = PART_MESSAGES): boolean {
  const last = messages.at(-1);
  return messages.length >= size && last !== undefined && last.sentAt.getTime() !== next.sentAt.getTime();
}
