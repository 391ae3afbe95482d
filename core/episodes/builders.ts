import { z } from 'zod';
import type { StoredMessage } from '../domain/conversation.js';
import type { EpisodeDraft } from '../domain/episode.js';
import type { EngineContext } from '../context/engine-context.js';
import { isLlmError, LlmError, type Llm } from '../llm/llm.js';
import { llmSegments, llmSpans, newSession, noteFailure, type BuildSession, type Span } from './boundaries-llm.js';
import { episodeFrom, HEURISTIC_VERSION, rarityTerms, readEpisode } from './heuristic.js';
import { messageText } from '../text/message-text.js';
import { LLM_EPISODE_VERSION, llmEpisode, type ConversationInfo, type EpisodeGraphPayload } from './llm-builder.js';
import { segmentMessages } from './segment.js';
import { idf } from '../retrieval/messages.js';
import type { Idf } from '../text/keywords.js';

/**
 * An episode builder registry as what it is: a map from data type to the builder for it. The
 * conversation builder is the LLM one when an LLM is configured, with the heuristic one as its
 * degraded mode; without an LLM it is the heuristic one.
 */

export const DataType = z.enum(['conversation', 'activity', 'location', 'media', 'document', 'sensor', 'external', 'custom']);
export type DataType = z.infer<typeof DataType>;

/** An episode ready to store: its draft, the messages it was built from, and its graph payload (LLM only). */
export interface BuiltEpisode {
  messages: StoredMessage[];
  draft: EpisodeDraft;
  graph: EpisodeGraphPayload | null;
}

export interface BuildInput {
  ownerId: string;
  messages: readonly StoredMessage[];
  conversation: ConversationInfo | null;
  session: BuildSession;
}

export interface EpisodeBuilder {
  /** Recorded as the conversation's processing version. */
  version: string;
  /**
   * Whether it yields whatever it is given as one group (one transaction): it is then given a
   * conversation's pending messages a window at a time (core/episodes/process.ts).
   */
  oneGroup: boolean;
  /** Yields episodes in groups; each group is stored in one transaction, so a crash loses at most one group's work. */
  build(ctx: EngineContext, input: BuildInput): AsyncGenerator<BuiltEpisode[]>;
  /**
   * The texts `build` embeds first (one call) for these messages, so that the caller can have them
   * embedded ahead (core/episodes/process.ts). Only builders with such a call have it.
   */
  embedsFirst?(ctx: EngineContext, messages: readonly StoredMessage[]): string[];
}

/** The messages of the blocks big enough for topic-shift detection: those whose vectors segmenting needs. */
function topicShiftMessages(ctx: EngineContext, messages: readonly StoredMessage[]): StoredMessage[] {
  const { minMessages } = ctx.config.segment;
  const blocks = segmentMessages(messages, {
    ...ctx.config.segment,
    maxMessages: Number.MAX_SAFE_INTEGER,
    maxWords: Number.MAX_SAFE_INTEGER,
  });
  return blocks.filter((b) => b.length >= 2 * minMessages).flat();
}

/**
 * Embeds the messages of the blocks big enough for topic-shift detection, before any transaction opens
 * (model work is slow and must not hold the database).
 */
async function messageVectors(ctx: EngineContext, messages: readonly StoredMessage[]): Promise<Map<string, Float32Array>> {
  const out = new Map<string, Float32Array>();
  if (!ctx.embedder) return out;
  const wanted = topicShiftMessages(ctx, messages);
  if (wanted.length === 0) return out;
  const vectors = await ctx.embedder.embed(wanted.map(messageText), 'passage');
  wanted.forEach((m, i) => out.set(m.id, vectors[i]!));
  return out;
}

/**
 * Sources whose conversation titles say what the talk is about: ChatGPT and Claude title each
 * conversation by its subject; a chat app's title is a contact's or a group's name.
 */
const TITLED_BY_SUBJECT = new Set(['chatgpt', 'claude']);
/** Titles those apps give a conversation before they know its subject. */
const PLACEHOLDER_TITLE = /^\s*(?:new chat|new conversation|untitled|新对话|新的对话|新聊天)?\s*$/iu;

/** What builders read of a conversation: its title and where it came from (null once it is gone). */
export async function conversationInfo(ctx: EngineContext, ownerId: string, conversationId: string): Promise<ConversationInfo | null> {
  const c = await ctx.store.read.conversations.get(ownerId, conversationId);
  return c && { title: c.title, source: c.source };
}

/** The subject a conversation is titled with, when its source titles conversations by subject. */
export function subjectOf(conversation: ConversationInfo | null | undefined): string | undefined {
  if (!conversation?.title || !TITLED_BY_SUBJECT.has(conversation.source)) return undefined;
  const title = conversation.title.replace(/\s+/g, ' ').trim();
  if (PLACEHOLDER_TITLE.test(title)) return undefined;
  return title.length > 80 ? `${title.slice(0, 79).trimEnd()}…` : title;
}

/**
 * Degraded mode (no LLM): time gaps, topic shifts and a size cap decide the boundaries, the messages
 * themselves the text. `status` is `needs_rebuild` when these episodes stand in for LLM ones that failed;
 * the `conversation`'s title leads their titles where it names the subject (`subjectOf`).
 */
export async function heuristicEpisodes(
  ctx: EngineContext,
  ownerId: string,
  messages: readonly StoredMessage[],
  status: EpisodeDraft['processingStatus'],
  conversation?: ConversationInfo | null,
): Promise<BuiltEpisode[]> {
  const vectors = await messageVectors(ctx, messages);
  const segments = segmentMessages(messages, ctx.config.segment, (block) =>
    block.every((m) => vectors.has(m.id)) ? block.map((m) => vectors.get(m.id)!) : null,
  );
  const subject = subjectOf(conversation);
  const drafts = await tellSegments(
    ctx,
    ownerId,
    segments.map((messages) => ({ messages, subject })),
  );
  return segments.map((s, i) => ({ messages: s, draft: { ...drafts[i]!, processingStatus: status }, graph: null }));
}

/**
 * The heuristic's telling of segments already cut (title, summary, keywords, entities), each with the
 * subject its conversation is titled by: every segment is read first, then all are told with one look
 * at how rare their words are in the memory.
 */
export async function tellSegments(
  ctx: EngineContext,
  ownerId: string,
  segments: readonly { messages: readonly StoredMessage[]; subject: string | undefined }[],
): Promise<EpisodeDraft[]> {
  const readings = segments.map((s) => readEpisode(s.messages));
  const idf = await memoryIdf(ctx, ownerId, new Set(readings.flatMap((r) => [...rarityTerms(r)])));
  return readings.map((r, i) => episodeFrom(r, idf, segments[i]!.subject));
}

/**
 * How rare these terms are in the owner's memory so far (the episode index's idf), so a title names what
 * is particular to this conversation: only the words that may name a topic are looked up (a third of a
 * window's terms), all at once. Undefined while the memory is too small to say.
 */
async function memoryIdf(ctx: EngineContext, ownerId: string, terms: ReadonlySet<string>): Promise<Idf | undefined> {
  const { docCount, df } = await ctx.store.read.bm25.termStats(ownerId, [...terms]);
  if (docCount < 20) return undefined;
  return (t) => idf(docCount, Math.max(df.get(t) ?? 0, 0.5));
}

export const heuristicConversationBuilder: EpisodeBuilder = {
  version: HEURISTIC_VERSION,
  oneGroup: true,
  async *build(ctx, input) {
    yield await heuristicEpisodes(ctx, input.ownerId, input.messages, 'ready', input.conversation);
  },
  embedsFirst: (ctx, messages) => topicShiftMessages(ctx, messages).map(messageText),
};

/** One LLM episode, or null when the LLM failed for it (the session remembers why). */
export async function tryLlmEpisode(ctx: EngineContext, llm: Llm, input: BuildInput, span: Span): Promise<BuiltEpisode | null> {
  if (input.session.down) return null;
  input.session.calls++;
  try {
    const { draft, graph } = await llmEpisode(llm, input.ownerId, span.messages, input.conversation, ctx.config.llmEpisodes);
    return { messages: span.messages, draft, graph };
  } catch (e) {
    if (!isLlmError(e)) throw e;
    noteFailure(input.session, e);
    return null;
  }
}

/**
 * The LLM conversation builder for imports. Boundaries come from the LLM window by window, then each
 * episode's narrative; whatever the LLM could not do (endpoint down, reply still invalid after the
 * repair) is built by the heuristic instead and marked `needs_rebuild`, so an import never fails or
 * stalls because of the LLM and `rebuildEpisodes` can upgrade it later.
 */
export function llmConversationBuilder(llm: Llm): EpisodeBuilder {
  return {
    version: LLM_EPISODE_VERSION,
    // Groups of `llmEpisodes.groupEpisodes` episodes, whatever the conversation's length.
    oneGroup: false,
    async *build(ctx, input) {
      const c = ctx.config.llmEpisodes;
      let pending: Span[] = [];
      const flush = async (): Promise<BuiltEpisode[]> => {
        const group = pending;
        pending = [];
        const tried = await Promise.all(group.map((s) => tryLlmEpisode(ctx, llm, input, s)));
        const out: BuiltEpisode[] = [];
        // Heuristic stand-ins are built one after another: the embedder is not asked to run in parallel.
        for (const [i, b] of tried.entries())
          out.push(...(b ? [b] : await heuristicEpisodes(ctx, input.ownerId, group[i]!.messages, 'needs_rebuild', input.conversation)));
        return out;
      };
      for await (const span of llmSpans(llm, input.ownerId, input.messages, c, input.session)) {
        if (!span.byLlm) {
          if (pending.length) yield await flush();
          yield await heuristicEpisodes(ctx, input.ownerId, span.messages, 'needs_rebuild', input.conversation);
          continue;
        }
        pending.push(span);
        if (pending.length >= c.groupEpisodes) yield await flush();
      }
      if (pending.length) yield await flush();
    },
  };
}

const registry: Record<DataType, ((ctx: EngineContext) => EpisodeBuilder) | undefined> = {
  conversation: (ctx) => (ctx.llm ? llmConversationBuilder(ctx.llm) : heuristicConversationBuilder),
  activity: undefined,
  location: undefined,
  media: undefined,
  document: undefined,
  sensor: undefined,
  external: undefined,
  custom: undefined,
};

/** The builder for a data type; types without one of their own are told as conversations (their messages are). */
export function builderFor(ctx: EngineContext, dataType: string): EpisodeBuilder {
  const parsed = DataType.safeParse(dataType);
  const make = (parsed.success ? registry[parsed.data] : undefined) ?? registry.conversation!;
  return make(ctx);
}

export function newBuildSession(): BuildSession {
  return newSession();
}

/**
 * All-or-nothing LLM build for `rebuildEpisodes`: either every episode of the messages comes from the
 * LLM, or it throws and the caller leaves the old episodes as they are.
 */
export async function buildAllWithLlm(ctx: EngineContext, llm: Llm, input: BuildInput): Promise<BuiltEpisode[]> {
  const spans = await llmSegments(llm, input.ownerId, input.messages, ctx.config.llmEpisodes, input.session);
  if (spans.some((s) => !s.byLlm)) {
    throw (
      input.session.down ??
      input.session.lastError ??
      new LlmError('LLM_BAD_REPLY', 'episode.boundaries: the model did not answer with usable boundaries')
    );
  }
  const built: BuiltEpisode[] = [];
  for (let i = 0; i < spans.length; i += ctx.config.llmEpisodes.groupEpisodes) {
    const group = spans.slice(i, i + ctx.config.llmEpisodes.groupEpisodes);
    const tried = await Promise.all(group.map((s) => tryLlmEpisode(ctx, llm, input, s)));
    if (tried.some((b) => b === null)) {
      throw (
        input.session.down ??
        input.session.lastError ??
        new LlmError('LLM_BAD_REPLY', 'episode.narrative: the model did not write a usable episode')
      );
    }
    built.push(...(tried as BuiltEpisode[]));
  }
  return built;
}
