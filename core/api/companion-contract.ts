import { z } from 'zod';
import { IsoTimestamp, MessageRole } from '../domain/conversation.js';
import { DateInput, Owner } from './search-contract.js';

/**
 * The companion part of the contract (issue "Memory for companions"): what an assistant that talks with
 * the person calls at the start of a conversation (`loadContext`) and after each exchange (`addMemory`).
 * MCP (core/mcp) exposes both as tools; the CLI has `nemori load`.
 */

/** Where companion conversations come from, as `nemori stats` and search's `--from` name it. */
export const COMPANION_SOURCE = 'companion';

export const MemoryMessageInput = z.object({
  /** The message's own id: sending the same ids again stores nothing twice. */
  id: z.union([z.string().min(1).max(200), z.number()]).transform(String).optional(),
  speaker: z.string().trim().min(1, 'say who spoke').max(200),
  /** `user` is the person whose memory this is; `assistant` the companion. */
  role: MessageRole,
  text: z.string().max(100_000),
  /** When it was said, with its UTC offset; default: now, in this machine's time zone. */
  time: IsoTimestamp.optional(),
});

export const AddMemoryInput = z.object({
  ownerId: Owner,
  /**
   * The conversation the messages belong to (any string the caller keeps). Omitted: the day's
   * conversation, `chat-YYYY-MM-DD` after the first message's local date, so a companion that keeps no
   * ids still gets one conversation per day.
   */
  conversationId: z.string().trim().min(1).max(200).optional(),
  title: z.string().trim().min(1).max(500).optional(),
  /** Which companion or app sent them (`nemori stats` counts conversations per source). */
  source: z.string().trim().min(1).max(100).default(COMPANION_SOURCE),
  messages: z.array(MemoryMessageInput).min(1, 'send at least one message').max(1000),
});
export const AddMemoryOutput = z.object({
  /** Pass it back with the next exchange to continue the same conversation. */
  conversationId: z.string(),
  /** Messages stored by this call (0 when all of them were stored before). */
  stored: z.number().int(),
  /** The stored id of every message sent, in order. */
  messageIds: z.array(z.string()),
});

export const DEFAULT_CONTEXT_BUDGET = 1200;

export const LoadContextInput = z.object({
  ownerId: Owner,
  /** What the conversation opens with, or what it is about: adds "Related to …" (search results). */
  query: z.string().trim().max(2000).optional(),
  /**
   * How many tokens the block may take. Tokens are estimated the way the knowledge store counts its
   * capacity (core/semantic/text.ts `estimateTokens`): about four Latin characters or one CJK character
   * per token, i.e. roughly 1.3 tokens per English word.
   */
  budgetTokens: z.number().int().min(100).max(32_000).default(DEFAULT_CONTEXT_BUDGET),
  /** The moment the conversation happens (default: now): "Recently" is what came before it. */
  now: DateInput.optional(),
});

const ContextMessage = z.object({
  id: z.string(),
  conversationId: z.string(),
  speaker: z.string(),
  text: z.string(),
  sentAt: z.string(),
  utcOffsetMin: z.number().int(),
  /** The same moment as a person reads it: "Tuesday, 2 January 2024, 09:15 (UTC+01:00)". */
  when: z.string(),
});
const ContextEpisode = z.object({
  id: z.string(),
  title: z.string(),
  summary: z.string(),
  start: z.string(),
  end: z.string(),
  utcOffsetMin: z.number().int(),
  when: z.string(),
});
export const ContextItem = z.discriminatedUnion('kind', [
  ContextEpisode.extend({
    kind: z.literal('episode'),
    score: z.number(),
    /** The episode's messages that say what the query asks about, quoted exactly. */
    messages: z.array(ContextMessage),
  }),
  z.object({
    kind: z.literal('fact'),
    id: z.string(),
    key: z.string(),
    title: z.string(),
    value: z.string(),
    version: z.number().int(),
    updatedAt: z.string(),
    score: z.number(),
  }),
  /** A message no episode holds yet (the conversation going on now), quoted exactly. */
  ContextMessage.extend({ kind: z.literal('message'), score: z.number() }),
]);
export type ContextItem = z.infer<typeof ContextItem>;

export const LoadContextOutput = z.object({
  /** One Markdown block for the model's context, within the budget. */
  markdown: z.string(),
  tokens: z.number().int(),
  budgetTokens: z.number().int(),
  now: z.string(),
  query: z.string().nullable(),
  sections: z.object({
    /** "What I know about you": the most important current facts (summarizeKnowledge). */
    about: z.object({ text: z.string(), keys: z.array(z.string()) }),
    /** "Recently": the latest episodes before `now`, newest first. */
    recent: z.array(ContextEpisode),
    /** "Related to …": search results for the query, best first. */
    related: z.array(ContextItem),
  }),
  /** What did not fit the budget. */
  left: z.object({ about: z.number().int(), recent: z.number().int(), related: z.number().int() }),
  warnings: z.array(z.string()),
});
export type LoadContextOutput = z.infer<typeof LoadContextOutput>;

export const companionOperations = {
  addMemory: { input: AddMemoryInput, output: AddMemoryOutput },
  loadContext: { input: LoadContextInput, output: LoadContextOutput },
} as const;
