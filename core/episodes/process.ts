import type { EngineContext } from '../context/engine-context.js';
import { embeddingText, indexEpisodes, unindexEpisodes } from '../retrieval/indexing.js';
import type { StoredMessage } from '../domain/conversation.js';
import { builderFor, conversationInfo, newBuildSession, type BuildInput, type BuiltEpisode, type EpisodeBuilder } from './builders.js';
import { embeddingAhead, type EmbeddingAhead } from './embed-ahead.js';
import { prepareVectorIndex } from './vector-index.js';
import { quantity } from '../text/describe.js';

/**
 * What building a conversation reports as it goes, so an import can show each step's progress:
 * its messages committed; a group of episodes stored, with how many of the conversation's pending
 * messages it gathered; that group's episodes in the vector index (only when there is an embedder).
 */
export type BuildStep =
  { step: 'stored'; messages: number } | { step: 'gathered'; messages: number; episodes: number } | { step: 'embedded'; episodes: number };

export interface BuildOptions {
  onProgress?: (s: BuildStep) => void;
  /** Stops building between windows (see processConversation); what is left stays pending. */
  signal?: AbortSignal | undefined;
}

/** One conversation's share of what a transaction stores: its episodes, the builder version, the episodes they replace. */
export interface ConversationGroup {
  conversationId: string;
  group: readonly BuiltEpisode[];
  version: string;
  replaces: string | readonly string[] | null;
}

/**
 * Stores groups of built episodes — one conversation's, or several conversations' at once — with their
 * BM25 entries, vectors, message links and graph in one transaction. The model embeds the episodes in
 * its own thread while this one writes everything else; the transaction waits for the vectors only to
 * write them, last.
 * `replaces` are episodes whose messages were rebuilt into this group (the tail merge, a live tail): their
 * messages are released (pending again) and they are deleted in the same transaction, so a crash between
 * groups leaves them pending rather than linked to nothing. Episodes are queued for knowledge discovery,
 * except `open` ones (a live tail, still growing). Says whether the episodes got vectors (not without an embedder).
 * `meanwhile` is called once the vectors are asked for, before they are awaited: what it asks of the model
 * is done after them, while this thread writes the group.
 */
export async function storeEpisodes(
  ctx: EngineContext,
  ownerId: string,
  parts: readonly ConversationGroup[],
  meanwhile?: () => void,
): Promise<boolean> {
  const built = parts.flatMap((p) => p.group);
  const asked =
    ctx.embedder && built.length
      ? ctx.embedder.embed(
          built.map((b) => embeddingText(b.draft)),
          'passage',
        )
      : null;
  // Awaited in the transaction: a failure before that (a write that fails) must not leave it unhandled.
  asked?.catch(() => undefined);
  meanwhile?.();
  const now = ctx.clock.now();
  await ctx.store.transaction(async (r) => {
    const stored: (BuiltEpisode['draft'] & { id: string })[] = [];
    const links: { messageIds: string[]; episodeId: string }[] = [];
    for (const part of parts) {
      const replaced = part.replaces === null ? [] : typeof part.replaces === 'string' ? [part.replaces] : part.replaces;
      for (const id of replaced) {
        await r.conversations.releaseMessages(ownerId, id);
        await unindexEpisodes(r, ownerId, [id]);
        await r.episodes.delete(ownerId, id);
      }
      const ids = await r.episodes.insertMany(
        ownerId,
        part.conversationId,
        part.group.map((b) => b.draft),
        now,
      );
      part.group.forEach((b, i) => {
        links.push({ messageIds: b.messages.map((m) => m.id), episodeId: ids[i]! });
        stored.push({ id: ids[i]!, ...b.draft });
      });
      for (const [i, b] of part.group.entries()) if (b.graph) await r.graph.setEpisodeGraph(ownerId, ids[i]!, b.graph, now);
    }
    await r.conversations.linkToEpisodes(ownerId, links);
    // Once its messages are linked: a conversation is processed when none is pending.
    for (const part of parts) await r.conversations.markProcessed(ownerId, part.conversationId, part.version);
    await prepareVectorIndex(ctx, r, stored.length);
    await indexEpisodes(r, ownerId, stored, null, ctx.config.retrieval.bm25);
    // Knowledge discovery follows as a job (core/facts/discovery.ts); without an LLM the episodes wait.
    await r.discoveryQueue.enqueue(
      ownerId,
      stored.filter((e) => e.processingStatus !== 'open').map((e) => e.id),
      now,
    );
    const episodeVectors = await asked;
    if (ctx.embedder && episodeVectors) {
      await r.vectors.upsert(
        ownerId,
        ctx.embedder.modelId,
        stored.map((e, i) => ({ episodeId: e.id, vector: episodeVectors[i]! })),
      );
    }
  });
  return asked !== null;
}

/**
 * Builds episodes from a conversation's messages that have none yet, and stores them with their BM25
 * entries, vectors and message links, one transaction per group of episodes: a crash leaves the
 * messages of unfinished groups pending, never a half-indexed episode. A builder that makes one group
 * of whatever it is given (the heuristic one) is given the pending messages a window at a time
 * (`segment.buildWindow`), each window stored before the next is read, so a long chat is not one
 * transaction: a crash or a cancel (`signal`, checked between windows) costs one window, and
 * the next import or `rebuild` goes on from the same state an uninterrupted build would have reached.
 *
 * Window by window, the model (in its own thread) embeds the next window's messages while this thread
 * writes the window before: each read takes the next window too, and the texts the builder will embed
 * first for it are started once the episodes' own vectors are asked for (`embeddingAhead`). The next
 * window is still read again after the write, and built from what that read says.
 */
export async function processConversation(
  ctx: EngineContext,
  ownerId: string,
  conversationId: string,
  o: BuildOptions = {},
): Promise<number> {
  const read = ctx.store.read;
  // The builder is chosen by the conversation's data type (core/episodes/builders.ts): the LLM one when
  // an LLM is configured, whose failures fall back to heuristic episodes marked `needs_rebuild`.
  const builder = builderFor(ctx, await read.conversations.dataType(ownerId, conversationId));
  const window = builder.oneGroup ? ctx.config.segment.buildWindow : null;
  const ahead = window !== null && ctx.embedder && builder.embedsFirst ? embeddingAhead(ctx.embedder) : null;
  const buildCtx = ahead ? { ...ctx, embedder: ahead.embedder } : ctx;
  const conversation = await conversationInfo(ctx, ownerId, conversationId);
  const session = newBuildSession();
  let created = 0;
  let standIns = 0;
  while (o.signal?.aborted !== true) {
    const taken = await read.conversations.pendingMessages(ownerId, conversationId, ahead && window !== null ? 2 * window : window);
    const fresh = window === null ? taken : taken.slice(0, window);
    if (fresh.length === 0) break;
    const next = ahead && window !== null ? { ahead, messages: taken.slice(window) } : null;
    const pass = await buildPass(buildCtx, ownerId, conversationId, fresh, builder, { conversation, session }, o, next);
    created += pass.created;
    standIns += pass.standIns;
    // The last window, or a builder that stored nothing (reading the same messages again would not either).
    if (window === null || fresh.length < window || pass.groups === 0) break;
  }
  if (standIns > 0) {
    const why = session.down ?? session.lastError;
    ctx.warn(
      `the LLM could not build ${quantity(standIns, 'episode')}${why ? ` (${why.message})` : ''}; they were built without it and marked for \`nemori rebuild --llm\``,
    );
  }
  await ctx.store.maintain();
  return created;
}

/** Messages in conversation order. */
function inOrder(messages: StoredMessage[]): StoredMessage[] {
  return messages.sort((a, b) => a.sentAt.getTime() - b.sentAt.getTime() || a.seq - b.seq);
}

/** Whether messages from `next` on continue an episode that ended at `end` (see buildPass). */
function continuesFrom(ctx: EngineContext, end: Date, next: StoredMessage): boolean {
  return next.sentAt.getTime() - end.getTime() <= ctx.config.segment.maxGapMinutes * 60_000;
}

/**
 * The next window as the next pass will build it, if the read after this group's write returns
 * `next`: with this group's last episode, when they continue it.
 */
function foreseenPending(ctx: EngineContext, group: readonly BuiltEpisode[], next: readonly StoredMessage[]): StoredMessage[] {
  const tail = group.at(-1);
  return tail && tail.draft.builder === 'heuristic' && continuesFrom(ctx, tail.draft.temporal.end, next[0]!)
    ? inOrder([...tail.messages, ...next])
    : [...next];
}

/** Lets the event loop run what waits (I/O, timers): PGlite's promises resolve without it. */
export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Builds and stores episodes from these pending messages (with the last episode, when they continue it). */
async function buildPass(
  ctx: EngineContext,
  ownerId: string,
  conversationId: string,
  fresh: readonly StoredMessage[],
  builder: EpisodeBuilder,
  about: Pick<BuildInput, 'conversation' | 'session'>,
  o: BuildOptions,
  next: { ahead: EmbeddingAhead; messages: readonly StoredMessage[] } | null,
): Promise<{ created: number; standIns: number; groups: number }> {
  const { pending, continued } = await withContinued(ctx, ownerId, conversationId, fresh);
  let created = 0;
  let standIns = 0;
  let groups = 0;
  let replaces = continued;
  // The rebuilt tail of the last episode was gathered before: only pending messages count as progress.
  const freshIds = new Set(fresh.map((m) => m.id));
  for await (const group of builder.build(ctx, { ownerId, messages: pending, ...about })) {
    const startNext =
      next && next.messages.length > 0 && builder.embedsFirst
        ? () => {
            const texts = builder.embedsFirst!(ctx, foreseenPending(ctx, group, next.messages));
            if (texts.length > 0) next.ahead.start(texts);
          }
        : undefined;
    // PGlite and the builder share this thread: between building a window and storing it, calls from
    // other processes and windows (a companion's loadContext during a long import) get their turn.
    await yieldToEventLoop();
    const embedded = await storeEpisodes(ctx, ownerId, [{ conversationId, group, version: builder.version, replaces }], startNext);
    const gathered = group.reduce((n, b) => n + b.messages.filter((m) => freshIds.has(m.id)).length, 0);
    o.onProgress?.({ step: 'gathered', messages: gathered, episodes: group.length });
    if (embedded) o.onProgress?.({ step: 'embedded', episodes: group.length });
    replaces = null;
    groups++;
    created += group.length;
    standIns += group.filter((b) => b.draft.processingStatus === 'needs_rebuild').length;
  }
  return { created: created - (continued && groups > 0 ? 1 : 0), standIns, groups };
}

/**
 * The messages a pass builds from `fresh`: with the conversation's last episode's when they continue
 * it (appended by a re-import, the next part of a long chat, or the next window), which is rebuilt
 * with them (`continued`) rather than a new episode starting mid-conversation. Episodes a person
 * edited, or an LLM wrote, are left as they are.
 */
async function withContinued(
  ctx: EngineContext,
  ownerId: string,
  conversationId: string,
  fresh: readonly StoredMessage[],
): Promise<{ pending: readonly StoredMessage[]; continued: string | null }> {
  const read = ctx.store.read;
  const last = await read.episodes.latestInConversation(ownerId, conversationId);
  if (
    last === null ||
    last.builder !== 'heuristic' ||
    last.updatedAt.getTime() !== last.createdAt.getTime() ||
    !continuesFrom(ctx, last.temporal.end, fresh[0]!)
  )
    return { pending: fresh, continued: null };
  return { pending: inOrder([...(await read.conversations.messagesOfEpisodes(ownerId, [last.id])), ...fresh]), continued: last.id };
}

/**
 * Builds several conversations' pending messages, as `processConversation` does each. Those that a
 * one-group builder builds whole (fewer pending messages than a window) are stored together, about a
 * window's worth of messages to a transaction: the keyword index's row of a word they share is
 * rewritten once per transaction, not once per conversation. Returns the episodes created for each.
 */
export async function processConversations(
  ctx: EngineContext,
  ownerId: string,
  conversations: readonly { conversationId: string; options?: BuildOptions | undefined }[],
  signal?: AbortSignal,
): Promise<number[]> {
  const read = ctx.store.read;
  const window = ctx.config.segment.buildWindow;
  const created = conversations.map(() => 0);
  let batch: { at: number; builder: EpisodeBuilder; fresh: StoredMessage[] }[] = [];
  let held = 0;
  let flushed = false;
  const flush = async () => {
    if (batch.length === 0) return;
    flushed = true;
    const parts: (ConversationGroup & { at: number; fresh: ReadonlySet<string> })[] = [];
    for (const { at, builder, fresh } of batch) {
      const { conversationId } = conversations[at]!;
      const { pending, continued } = await withContinued(ctx, ownerId, conversationId, fresh);
      const input = {
        ownerId,
        messages: pending,
        conversation: await conversationInfo(ctx, ownerId, conversationId),
        session: newBuildSession(),
      };
      for await (const group of builder.build(ctx, input)) {
        parts.push({ at, conversationId, group, version: builder.version, replaces: continued, fresh: new Set(fresh.map((m) => m.id)) });
        created[at] = created[at]! + group.length - (continued ? 1 : 0);
      }
    }
    const embedded = await storeEpisodes(ctx, ownerId, parts);
    for (const { at, group, fresh } of parts) {
      const progress = conversations[at]!.options?.onProgress;
      progress?.({
        step: 'gathered',
        messages: group.reduce((n, b) => n + b.messages.filter((m) => fresh.has(m.id)).length, 0),
        episodes: group.length,
      });
      if (embedded) progress?.({ step: 'embedded', episodes: group.length });
    }
    batch = [];
    held = 0;
  };
  for (const [at, { conversationId, options }] of conversations.entries()) {
    if (signal?.aborted) break;
    const builder = builderFor(ctx, await read.conversations.dataType(ownerId, conversationId));
    const fresh = builder.oneGroup ? await read.conversations.pendingMessages(ownerId, conversationId, window) : null;
    if (fresh === null || fresh.length >= window) {
      created[at] = await processConversation(ctx, ownerId, conversationId, options);
      continue;
    }
    // Empty, or the same conversation again (the next part of a chat): its pending messages are taken.
    if (fresh.length === 0 || batch.some((b) => conversations[b.at]!.conversationId === conversationId)) continue;
    if (held + fresh.length > window) await flush();
    batch.push({ at, builder, fresh });
    held += fresh.length;
  }
  // A cancel leaves what is not built yet pending, as processConversation does between windows.
  if (signal?.aborted !== true) await flush();
  if (flushed) await ctx.store.maintain();
  return created;
}

/** Finishes work a crash or a failed build left behind. */
export async function processPending(ctx: EngineContext, ownerId: string): Promise<number> {
  let built = 0;
  for (const id of await ctx.store.read.conversations.withPendingMessages(ownerId)) {
    built += await processConversation(ctx, ownerId, id);
  }
  return built;
}
