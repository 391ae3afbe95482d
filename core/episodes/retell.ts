import type { EngineContext } from '../context/engine-context.js';
import type { StoredMessage } from '../domain/conversation.js';
import { bm25Doc, bm25Fields, embeddingText } from '../retrieval/indexing.js';
import { conversationInfo, subjectOf, tellSegments } from './builders.js';
import { HEURISTIC_GENERATION } from './heuristic.js';
import { yieldToEventLoop } from './process.js';

/** Episodes told again per transaction: a companion's call waits for one batch at most. */
const BATCH = 64;

/**
 * Tells again, from their messages, the heuristic episodes that older rules told and nobody edited
 * (`HEURISTIC_GENERATION`): a store keeps the titles, summaries and keywords it was built with, so
 * without this every improvement would reach only what is imported after it. Boundaries, ids, links,
 * facts and what a person did with an episode stay; its keyword entries and (with a model, if it has
 * one) its vector follow its new words, in the transaction that writes them. The latest episodes go
 * first, a batch per transaction; `signal` stops between batches, and what is left is told by the
 * next run. Returns how many episodes were told again.
 */
export async function retellEpisodes(
  ctx: EngineContext,
  ownerId: string,
  o: {
    signal?: AbortSignal | undefined;
    onProgress?: (done: number, total: number) => void;
    /**
     * False when the caller rebuilds the keyword index next (`rebuildIndexes`): taking thousands of
     * documents out of the live index one batch at a time costs several times the whole rebuild
     * (20k episodes: ~100 s against ~22 s).
     */
    keywordEntries?: boolean;
  } = {},
): Promise<number> {
  const read = ctx.store.read;
  const ids = await read.episodes.toldBefore(ownerId, 'heuristic', HEURISTIC_GENERATION);
  let retold = 0;
  for (let i = 0; i < ids.length && o.signal?.aborted !== true && ctx.store.isOpen; i += BATCH) {
    const batch = ids.slice(i, i + BATCH);
    const episodes = await read.episodes.getMany(ownerId, batch);
    const messages = byEpisode(await read.conversations.messagesOfEpisodes(ownerId, batch));
    const subjects = new Map<string | null, string | undefined>();
    for (const e of episodes) {
      const c = e.conversationId;
      if (!subjects.has(c)) subjects.set(c, subjectOf(c === null ? null : await conversationInfo(ctx, ownerId, c)));
    }
    // An episode whose messages are gone cannot be told from them: it keeps its words.
    const told = episodes.filter((e) => messages.has(e.id));
    const drafts = await tellSegments(
      ctx,
      ownerId,
      told.map((e) => ({ messages: messages.get(e.id)!, subject: subjects.get(e.conversationId) })),
    );
    // Told in the same words (half of 20k synthetic episodes after a change of sentence rules), an
    // episode keeps its keyword entries and vector: only its version is written. Only episodes that
    // have a vector get a new one: an archived episode is kept without.
    const reworded = told.map((e, k) => bm25Fields(e).some((text, f) => text !== bm25Fields({ ...drafts[k]!, id: e.id })[f]));
    const embedded = told.flatMap((e, k) => (e.embeddingModel === null || embeddingText(e) === embeddingText(drafts[k]!) ? [] : [k]));
    const vectors =
      ctx.embedder && embedded.length > 0
        ? await ctx.embedder.embed(
            embedded.map((k) => embeddingText(drafts[k]!)),
            'passage',
          )
        : null;
    retold += await ctx.store.transaction(async (r) => {
      // Another writer may have edited, rebuilt or deleted an episode since it was read: it is left as it is.
      const written = new Set(
        await r.episodes.reword(
          ownerId,
          told.map((e, k) => ({ id: e.id, words: drafts[k]!, version: drafts[k]!.processingVersion })),
          'heuristic',
        ),
      );
      const changed = told.flatMap((e, k) => (written.has(e.id) ? [k] : []));
      const reindexed = changed.filter((k) => reworded[k]);
      if (o.keywordEntries !== false && reindexed.length > 0) {
        await r.bm25.remove(
          ownerId,
          reindexed.map((k) => told[k]!.id),
        );
        await r.bm25.add(
          ownerId,
          reindexed.map((k) => bm25Doc({ ...drafts[k]!, id: told[k]!.id })),
          ctx.config.retrieval.bm25,
        );
      }
      if (ctx.embedder && vectors) {
        const rows = embedded.flatMap((k, j) => (changed.includes(k) ? [{ episodeId: told[k]!.id, vector: vectors[j]! }] : []));
        await r.vectors.upsert(ownerId, ctx.embedder.modelId, rows);
      }
      return changed.length;
    });
    o.onProgress?.(Math.min(i + BATCH, ids.length), ids.length);
    await yieldToEventLoop();
  }
  if (retold > 0) await ctx.store.maintain();
  return retold;
}

/** Messages (read in conversation order) grouped by their episode. */
function byEpisode(messages: readonly StoredMessage[]): Map<string, StoredMessage[]> {
  const out = new Map<string, StoredMessage[]>();
  for (const m of messages) {
    if (m.episodeId === null) continue;
    const list = out.get(m.episodeId) ?? [];
    list.push(m);
    out.set(m.episodeId, list);
  }
  return out;
}
