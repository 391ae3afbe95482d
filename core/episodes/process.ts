import type { IncomingConversation, StoredMessage } from '../domain/conversation.js';
import type { EngineContext } from '../context.js';
import { embeddingText, indexEpisodes, unindexEpisodes } from '../retrieval/indexing.js';
import { buildHeuristicEpisode, HEURISTIC_VERSION, messageText } from './heuristic.js';
import { segmentMessages, type Segment } from './segment.js';

export interface IngestResult {
  conversationId: string;
  messagesAdded: number;
  episodesCreated: number;
}

/**
 * Embeds the messages of the blocks big enough for topic-shift detection, before any transaction opens
 * (model work is slow and must not hold the database).
 */
async function messageVectors(ctx: EngineContext, messages: readonly StoredMessage[]): Promise<Map<string, Float32Array>> {
  const out = new Map<string, Float32Array>();
  if (!ctx.embedder) return out;
  const { minMessages } = ctx.config.segment;
  const blocks = segmentMessages(messages, { ...ctx.config.segment, maxMessages: Number.MAX_SAFE_INTEGER, maxWords: Number.MAX_SAFE_INTEGER });
  const wanted = blocks.filter((b) => b.length >= 2 * minMessages).flat();
  if (wanted.length === 0) return out;
  const vectors = await ctx.embedder.embed(wanted.map(messageText), 'passage');
  wanted.forEach((m, i) => out.set(m.id, vectors[i]!));
  return out;
}

/**
 * Builds episodes from a conversation's messages that have none yet, and stores them with their BM25
 * entries, vectors and message links in one transaction: a crash leaves the messages pending, never a
 * half-indexed episode.
 */
export async function processConversation(ctx: EngineContext, ownerId: string, conversationId: string): Promise<number> {
  const read = ctx.store.read;
  const fresh = await read.conversations.pendingMessages(ownerId, conversationId);
  if (fresh.length === 0) return 0;
  // Messages that continue the last episode (appended by a re-import, or the next part of a long chat)
  // are rebuilt together with it rather than starting a new episode mid-conversation. Episodes a person
  // edited, or an LLM wrote, are left as they are.
  const last = await read.episodes.latestInConversation(ownerId, conversationId);
  const continues =
    last !== null &&
    last.builder === 'heuristic' &&
    last.updatedAt.getTime() === last.createdAt.getTime() &&
    fresh[0]!.sentAt.getTime() - last.temporal.end.getTime() <= ctx.config.segment.maxGapMinutes * 60_000;
  const pending = continues
    ? [...(await read.conversations.messagesOfEpisodes(ownerId, [last.id])), ...fresh].sort(
        (a, b) => a.sentAt.getTime() - b.sentAt.getTime() || a.seq - b.seq,
      )
    : fresh;
  const vectors = await messageVectors(ctx, pending);
  const segments: Segment[] = segmentMessages(pending, ctx.config.segment, (block) =>
    block.every((m) => vectors.has(m.id)) ? block.map((m) => vectors.get(m.id)!) : null,
  );
  const drafts = segments.map(buildHeuristicEpisode);
  const episodeVectors = ctx.embedder ? await ctx.embedder.embed(drafts.map(embeddingText), 'passage') : null;
  const now = ctx.clock.now();

  await ctx.store.transaction(async (r) => {
    if (continues) {
      await unindexEpisodes(r, ownerId, [last.id]);
      await r.episodes.delete(ownerId, last.id);
    }
    const stored = [];
    for (const [i, d] of drafts.entries()) {
      const id = await r.episodes.insert(ownerId, conversationId, d, now);
      await r.conversations.linkToEpisode(ownerId, segments[i]!.map((m) => m.id), id);
      stored.push({ id, ...d });
    }
    if (ctx.embedder) await r.vectors.ensureIndex({ modelId: ctx.embedder.modelId, dimensions: ctx.embedder.dimensions });
    await indexEpisodes(
      r,
      ownerId,
      stored,
      ctx.embedder && episodeVectors
        ? { modelId: ctx.embedder.modelId, rows: stored.map((e, i) => ({ episodeId: e.id, vector: episodeVectors[i]! })) }
        : null,
      ctx.config.retrieval.bm25,
    );
    await r.conversations.markProcessed(ownerId, conversationId, HEURISTIC_VERSION);
  });
  await ctx.store.maintain();
  return drafts.length - (continues ? 1 : 0);
}

/**
 * Seed 001's process_raw_data for a conversation: the raw messages are committed first (nothing is
 * lost if building fails), then episodes are built from whatever is new. Re-sending the same
 * conversation adds nothing.
 */
export async function ingestConversation(ctx: EngineContext, ownerId: string, c: IncomingConversation): Promise<IngestResult> {
  const now = ctx.clock.now();
  const { conversationId, messagesAdded } = await ctx.store.transaction(async (r) => {
    const { id } = await r.conversations.upsert(ownerId, c, now);
    return { conversationId: id, messagesAdded: await r.conversations.addMessages(ownerId, id, c) };
  });
  const episodesCreated = await processConversation(ctx, ownerId, conversationId);
  return { conversationId, messagesAdded, episodesCreated };
}

/** Finishes work a crash or a failed build left behind. */
export async function processPending(ctx: EngineContext, ownerId: string): Promise<number> {
  let built = 0;
  for (const id of await ctx.store.read.conversations.withPendingMessages(ownerId)) {
    built += await processConversation(ctx, ownerId, id);
  }
  return built;
}
