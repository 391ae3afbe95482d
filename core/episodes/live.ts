import type { EngineContext } from '../context/engine-context.js';
import type { StoredMessage } from '../domain/conversation.js';
import type { Llm } from '../llm/llm.js';
import { llmSegments } from './boundaries-llm.js';
import {
  builderFor,
  conversationInfo,
  heuristicEpisodes,
  newBuildSession,
  tryLlmEpisode,
  type BuildInput,
  type BuiltEpisode,
  type EpisodeBuilder,
} from './builders.js';
import { buildHeuristicEpisode } from './heuristic.js';
import { storeEpisodes } from './process.js';
import { splitByTimeGap, wordCount } from './segment.js';
import { quantity } from '../text/describe.js';

/**
 * Live memory's episodes. A live conversation (turns added one by one with `addMemory`) has an **open
 * tail**: its messages not yet in a closed episode. Each time turns arrive the tail is cut again:
 * silences longer than the segment config's gap, topic shifts and the size cap (or, with an LLM, the
 * LLM's boundaries) close the segments before the last one, which become episodes exactly like an
 * import's (built, embedded, indexed, queued for knowledge discovery). The last segment stays open, stored
 * as a provisional heuristic episode (status `open`, never read for knowledge) so that what was said a
 * minute ago is found by search; it is replaced, in the same transaction as whatever closes, each time
 * the tail is rebuilt. Closing the tail (`end`, `endConversation`, the idle timeout) builds all of it.
 *
 * The raw messages are committed before any of this runs, and each rebuild is one transaction that
 * releases the old open episode's messages and links them again: a crash leaves them pending or in the
 * old open episode, and the next rebuild (core/jobs/live-building.ts, also at engine open) starts over.
 */

export interface TailBuild {
  /** Closed episodes stored by this rebuild. */
  closed: number;
  /** Whether an open (provisional) episode holds the rest of the tail afterwards. */
  open: boolean;
}

const byTime = (a: StoredMessage, b: StoredMessage) => a.sentAt.getTime() - b.sentAt.getTime() || a.seq - b.seq;

/** The open tail's stand-in: the heuristic episode of its messages, marked `open`. */
function provisional(messages: StoredMessage[]): BuiltEpisode {
  return { messages, draft: { ...buildHeuristicEpisode(messages), processingStatus: 'open' }, graph: null };
}

async function collect(builder: EpisodeBuilder, ctx: EngineContext, input: BuildInput): Promise<BuiltEpisode[]> {
  const out: BuiltEpisode[] = [];
  for await (const group of builder.build(ctx, input)) out.push(...group);
  return out;
}

/** A segment at the size cap is closed: nothing more can join it. */
function isFull(messages: readonly StoredMessage[], ctx: EngineContext): boolean {
  const c = ctx.config.segment;
  return messages.length >= c.maxMessages || messages.reduce((n, m) => n + wordCount(m.text), 0) >= c.maxWords;
}

/**
 * The last block of the tail with an LLM: the LLM draws its boundaries (a window it could not judge is cut
 * by the heuristic); every span but the last is closed and written by the LLM (a heuristic stand-in
 * marked `needs_rebuild` where it fails), the last stays open.
 */
async function llmOpenBlock(ctx: EngineContext, llm: Llm, input: BuildInput): Promise<BuiltEpisode[]> {
  const spans = await llmSegments(llm, input.ownerId, input.messages, ctx.config.llmEpisodes, input.session);
  const pieces: { messages: StoredMessage[]; built: BuiltEpisode | null }[] = [];
  for (const s of spans) {
    if (s.byLlm) pieces.push({ messages: s.messages, built: null });
    else
      for (const b of await heuristicEpisodes(ctx, input.ownerId, s.messages, 'needs_rebuild'))
        pieces.push({ messages: b.messages, built: b });
  }
  const open = pieces.pop()!;
  const tried = await Promise.all(
    pieces.map((p) => (p.built ? Promise.resolve(p.built) : tryLlmEpisode(ctx, llm, input, { messages: p.messages, byLlm: true }))),
  );
  const out: BuiltEpisode[] = [];
  for (const [i, b] of tried.entries())
    out.push(...(b ? [b] : await heuristicEpisodes(ctx, input.ownerId, pieces[i]!.messages, 'needs_rebuild')));
  out.push(provisional(open.messages));
  return out;
}

/**
 * Rebuilds a live conversation's open tail from its open episode(s) and its pending messages: closes the
 * segments that are over and keeps the last one open, or with `close` closes all of it. Does nothing when
 * no turn arrived since the last rebuild (and nothing is to be closed). `signal`: stop before writing.
 */
export async function rebuildTail(
  ctx: EngineContext,
  ownerId: string,
  conversationId: string,
  o: { close: boolean; signal?: AbortSignal | undefined },
): Promise<TailBuild> {
  const read = ctx.store.read;
  let openIds = await read.episodes.openInConversation(ownerId, conversationId);
  const fresh = await read.conversations.pendingMessages(ownerId, conversationId);
  if (fresh.length === 0 && (!o.close || openIds.length === 0)) return { closed: 0, open: openIds.length > 0 };
  const tail = [...(await read.conversations.messagesOfEpisodes(ownerId, openIds)), ...fresh].sort(byTime);
  const conversation = await conversationInfo(ctx, ownerId, conversationId);
  const builder = builderFor(ctx, await read.conversations.dataType(ownerId, conversationId));
  const session = newBuildSession();
  const input = (messages: readonly StoredMessage[]): BuildInput => ({
    ownerId,
    messages,
    conversation,
    session,
  });
  const store = async (built: readonly BuiltEpisode[]) => {
    o.signal?.throwIfAborted();
    await storeEpisodes(ctx, ownerId, [{ conversationId, group: built, version: builder.version, replaces: openIds }]);
  };

  let built: BuiltEpisode[];
  if (!ctx.llm) {
    // Time gaps, topic shifts and the size cap over the whole tail; the last segment stays open unless full.
    built = await heuristicEpisodes(ctx, ownerId, tail, 'ready');
    const last = built.at(-1)!;
    if (!o.close && !isFull(last.messages, ctx)) built[built.length - 1] = provisional(last.messages);
  } else {
    // LLM calls take seconds (or until their timeout): the new turns are made findable first, as one
    // open episode over the whole tail, then the LLM decides what closes.
    if (!o.close && fresh.length > 0) {
      await store([provisional(tail)]);
      openIds = await read.episodes.openInConversation(ownerId, conversationId);
    }
    // A silence longer than the segment gap always closes what came before it, as it does without an LLM.
    const blocks = splitByTimeGap(tail, ctx.config.segment.maxGapMinutes);
    const openBlock = o.close ? null : blocks.pop()!;
    built = [];
    for (const block of blocks) built.push(...(await collect(builder, ctx, input(block))));
    if (openBlock) built.push(...(await llmOpenBlock(ctx, ctx.llm, input(openBlock))));
  }
  await store(built);
  const standIns = built.filter((b) => b.draft.processingStatus === 'needs_rebuild').length;
  if (standIns > 0) {
    const why = session.down ?? session.lastError;
    ctx.warn(
      `the LLM could not build ${quantity(standIns, 'live episode')}${why ? ` (${why.message})` : ''}; they were built without it and marked for \`nemori rebuild --llm\``,
    );
  }
  await ctx.store.maintain();
  const open = built.some((b) => b.draft.processingStatus === 'open');
  return { closed: built.length - (open ? 1 : 0), open };
}
