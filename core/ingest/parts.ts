import type { IncomingMessage } from '../domain/conversation.js';

/**
 * One chat can be most of a multi-gigabyte export (a Telegram group, a Discord channel, a busy Slack
 * channel, a WhatsApp .txt). Importers yield such a chat in parts of this many messages, all with the
 * chat's externalId: the store appends each part to the same conversation, so memory holds one part,
 * not the whole chat. Parts after the first carry `metadata.continued = true` (a report counts
 * conversations without it).
 */
export const PART_MESSAGES = 5000;

/**
 * Whether `messages` is full and `next` should start a new part. Never cuts between two messages of
 * the same instant: the store orders by time, then by position within a part, so only a change of
 * time keeps the order across the cut. (It also keeps a message repeated in one instant — three "ok"
 * in a minute — in one part, where the store tells the repeats apart.)
 */
export function partIsFull(messages: readonly IncomingMessage[], next: IncomingMessage, size = PART_MESSAGES): boolean {
  const last = messages.at(-1);
  return messages.length >= size && last !== undefined && last.sentAt.getTime() !== next.sentAt.getTime();
}

/** A finished part of one chat: its messages, who spoke in them, and whether a part came before. */
export interface ChatPart {
  messages: IncomingMessage[];
  participants: string[];
  continued: boolean;
}

/**
 * Collects a chat's messages as a line-based reader finds them and hands them back in parts. A reader
 * may still change the last message it added (a line that continues it), so a part is handed back only
 * when the next message arrives — or at the end of the chat, by `take`.
 */
export class ChatParts {
  private messages: IncomingMessage[] = [];
  private speakers = new Set<string>();
  private taken = 0;

  constructor(private readonly size = PART_MESSAGES) {}

  /** Adds `m`; returns the part it does not fit in, when it starts a new one. */
  add(m: IncomingMessage): ChatPart | null {
    const full = partIsFull(this.messages, m, this.size) ? this.take() : null;
    this.messages.push(m);
    this.speakers.add(m.speaker);
    return full;
  }

  /** How many messages wait for the next part. */
  get length(): number {
    return this.messages.length;
  }

  /** The messages added since the last part, as a part (the chat's last one, at its end). */
  take(): ChatPart {
    const part = { messages: this.messages, participants: [...this.speakers], continued: this.taken > 0 };
    this.messages = [];
    this.speakers = new Set();
    this.taken++;
    return part;
  }

  /**
   * Hands back what waits before the part is full, for a reader that must free memory: every message
   * but those of the last instant, which the next message may share (see partIsFull) and the last of
   * which a reader may still change. Null when they all share that instant.
   */
  takeSettled(): ChatPart | null {
    const last = this.messages.at(-1)?.sentAt.getTime();
    let cut = this.messages.length;
    while (cut > 0 && this.messages[cut - 1]!.sentAt.getTime() === last) cut--;
    if (cut === 0) return null;
    const kept = this.messages.splice(cut);
    const speakers = (messages: IncomingMessage[]) => new Set(messages.map((m) => m.speaker));
    const part = { messages: this.messages, participants: [...speakers(this.messages)], continued: this.taken > 0 };
    this.messages = kept;
    this.speakers = speakers(kept);
    this.taken++;
    return part;
  }
}
