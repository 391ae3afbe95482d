import { z } from 'zod';
import { IsoTimestamp, MessageRole, parseIsoWithOffset } from '../domain/conversation.js';
import { Owner } from '../domain/owner.js';
import { DateInput } from './search-contract.js';

/**
 * What an assistant that talks with the person calls: at the start of a conversation (`loadContext`),
 * and as the conversation goes (`addMemory` after each exchange, `endConversation`). `addMemory` returns
 * as soon as the turns are committed; episodes are built in the background (the conversation's open tail
 * is searchable at once, and closes into episodes at time gaps, topic shifts, the size cap, after
 * `idleMinutes` without a turn, or on `end` / `endConversation`). MCP (core/mcp) exposes them as tools.
 */

export const AddMemoryInput = z.object({
  ownerId: Owner,
  /**
   * The id an earlier call returned, or the caller's own key; none: the day's conversation (`chat-YYYY-MM-DD` by the
   * first turn's local date), so a companion that keeps no ids still gets one conversation a day.
   */
  conversationId: z.string().min(1).optional(),
  source: z.string().min(1).default('companion'),
  messages: z
    .array(
      z.object({
        /** The turn's own id: sending it again is a duplicate, not a second message. */
        id: z.string().min(1).optional(),
        speaker: z.string().trim().min(1, 'say who spoke'),
        role: MessageRole.optional(),
        // An empty turn would be an empty line in its episode; an importer leaves such messages out.
        text: z.string().refine((t) => t.trim() !== '', 'the turn says nothing: leave out turns without text'),
        /** When it was said (default: now by the engine clock). */
        time: IsoTimestamp.optional(),
      }),
    )
    .min(1, 'send at least one message'),
  /** The conversation is over: close its tail into episodes. */
  end: z.boolean().optional(),
});

export const AddMemoryOutput = z.object({
  /** The conversation's id (what episodes and search results name it by): pass it back with the next turns. */
  conversationId: z.string(),
  /** Its key under its source: the caller's own, or the day's `chat-YYYY-MM-DD`; also accepted as `conversationId`. */
  key: z.string(),
  /** Turns stored by this call; the others were `duplicates` of turns stored before. */
  stored: z.number().int(),
  duplicates: z.number().int(),
  /** Secrets the privacy filter replaced with placeholders before storing (how many, never what). */
  redacted: z.number().int(),
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

export const DEFAULT_CONTEXT_BUDGET = 1200;

/** An offset written after a time of day ("T09:00:00+08:00", "09:00-0500"), not after a date ("2024-05-01"). */
const WRITTEN_OFFSET = /\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?\s*[+-]\d{2}:?\d{2}$/;

const ConversationNow = z.union([z.date(), z.string().min(1)]).transform((v, ctx) => {
  const at = DateInput.safeParse(v);
  if (!at.success) {
    for (const issue of at.error.issues) ctx.addIssue({ code: 'custom', message: issue.message });
    return z.NEVER;
  }
  const written = typeof v === 'string' && WRITTEN_OFFSET.test(v.trim());
  return { at: at.data, utcOffsetMin: written ? parseIsoWithOffset(v.trim()).utcOffsetMin : undefined };
});

export const LoadContextInput = z.object({
  ownerId: Owner,
  /**
   * What the conversation opens with, or what it is about: adds "Related to …" (search results). An
   * opening that says nothing to look up ("hi!", "how's it going?", "在吗？") adds nothing.
   */
  query: z.string().trim().max(2000).optional(),
  /**
   * How many tokens the block may take. Tokens are estimated the way the knowledge store counts its
   * capacity (core/text/fact-text.ts `estimateTokens`): about four Latin characters or one CJK character
   * per token, i.e. roughly 1.3 tokens per English word.
   */
  budgetTokens: z.number().int().min(100).max(32_000).default(DEFAULT_CONTEXT_BUDGET),
  /**
   * The moment the conversation happens (default: now): "Recently" is what came before it. Written with
   * an offset of its own (`2024-05-01T09:00:00+08:00`), it also says whose calendar "today" and "tomorrow"
   * are on; a time in UTC (`Z`) or a date says only when (the person's last turn tells where they are).
   */
  now: ConversationNow.optional(),
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
/** A day the person spoke of, in the message that said it (Coming up, and Gone by). */
const ContextPlan = ContextMessage.extend({
  day: z.string(),
  until: z.string().optional(),
  /** The time of day said with its day, HH:MM. */
  at: z.string().optional(),
  later: ContextMessage.optional(),
  answers: ContextMessage.optional(),
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
  /** What was looked up: the query, or null without one or when it says nothing to look up. */
  query: z.string().nullable(),
  sections: z.object({
    /** "What I know about you": the most important current facts (summarizeKnowledge). */
    about: z.object({ text: z.string(), keys: z.array(z.string()) }),
    /** "Recently": the latest episodes before `now`, newest first. */
    recent: z.array(ContextEpisode),
    /**
     * "Recently", before its episodes: what was just said and is in no episode yet (a conversation going
     * on; the last turns of one whose server stopped before building them), each conversation's last turns.
     */
    unbuilt: z.array(ContextMessage),
    /** "Related to …": search results for the query, best first. */
    related: z.array(ContextItem),
    /**
     * "Coming up": what the person said in the last weeks of a day in the coming week (`day`, YYYY-MM-DD,
     * the first such day from today on; `until`, the last of the days it names when they are several:
     * "next week"), soonest first; `at`, the time of day said with it (HH:MM); `later`, the latest
     * message said since that may call it off or move it ("Helix moved my interview to Monday");
     * `answers`, the turn it answers when it says little without it ("How long is she staying?" for
     * "Until the 28th.").
     */
    upcoming: z.array(ContextPlan),
    /**
     * "Gone by, not talked about since": plans of the last three days — or of all the days since the
     * person last talked, up to a month, when that was longer ago — and of today an hour past their
     * time, said before it, that nothing called off and nobody but a companion spoke of once it came —
     * what a companion may ask after ("How did the interview go?"); the latest day first.
     */
    goneBy: z.array(ContextPlan),
  }),
  /** What did not fit the budget. */
  left: z.object({
    about: z.number().int(),
    goneBy: z.number().int(),
    upcoming: z.number().int(),
    recent: z.number().int(),
    related: z.number().int(),
  }),
  warnings: z.array(z.string()),
});
export type LoadContextOutput = z.infer<typeof LoadContextOutput>;

export const companionOperations = {
  addMemory: { input: AddMemoryInput, output: AddMemoryOutput },
  endConversation: { input: EndConversationInput, output: EndConversationOutput },
  loadContext: { input: LoadContextInput, output: LoadContextOutput },
} as const;
