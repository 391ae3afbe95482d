import type { EngineContext } from '../context/engine-context.js';
import { NemoriError } from '../domain/errors.js';
import { isLlmError } from '../llm/llm.js';
import { embeddingText, indexEpisodes, unindexEpisodes } from '../retrieval/indexing.js';
import type { RebuildRow } from '../store/episodes.js';
import { buildAllWithLlm, conversationInfo, newBuildSession, type BuiltEpisode } from './builders.js';
import { processPending } from './process.js';

/**
 * `rebuildEpisodes` / `nemori rebuild --llm`: upgrades the heuristic stand-ins an unreachable or failing
 * LLM left behind (status `needs_rebuild`), or with scope `heuristic` every heuristic episode, once an
 * LLM answers. Neighbouring marked episodes of a conversation are rebuilt together from their messages,
 * so the LLM draws the boundaries again; each group is replaced in one transaction (episodes, message
 * links, graph, BM25 and vectors), reusing the old ids where the new episodes cover the same messages,
 * so nothing is duplicated, recall counts survive and links from elsewhere keep pointing somewhere.
 * A group the LLM fails on is left exactly as it was.
 */

export type RebuildScope = 'needs_rebuild' | 'heuristic';

export interface RebuildEpisodesReport {
  /** Messages that had no episode yet and were built first (with the LLM). */
  pendingBuilt: number;
  groups: number;
  upgraded: number;
  failed: number;
  episodesReplaced: number;
  episodesCreated: number;
  /** Episodes still marked for rebuild afterwards. */
  remaining: number;
  llmCalls: number;
  /** True when the endpoint failed and the remaining groups were not tried. */
  stoppedEarly: boolean;
  errors: string[];
}

function marked(row: RebuildRow, scope: RebuildScope): boolean {
  // A live conversation's open tail is still being written (core/episodes/live.ts): it closes by itself.
  if (row.tier === 'trash' || row.messageCount === 0 || row.status === 'open') return false;
  return scope === 'heuristic' ? row.builder === 'heuristic' : row.status === 'needs_rebuild';
}

/** Runs of neighbouring marked episodes per conversation, each at most `maxMessages` messages (at least one episode). */
export function rebuildGroups(rows: readonly RebuildRow[], scope: RebuildScope, maxMessages: number): RebuildRow[][] {
  const groups: RebuildRow[][] = [];
  let run: RebuildRow[] = [];
  let size = 0;
  const close = () => {
    if (run.length) groups.push(run);
    run = [];
    size = 0;
  };
  for (const row of rows) {
    if (!marked(row, scope) || (run.length && run[0]!.conversationId !== row.conversationId)) close();
    if (!marked(row, scope)) continue;
    if (run.length && size + row.messageCount > maxMessages) close();
    run.push(row);
    size += row.messageCount;
  }
  close();
  return groups;
}

/** Gives each new episode the id of the old one it shares most messages with; each old id is used once. */
function reuseIds(built: readonly BuiltEpisode[], oldIds: readonly string[]): (string | null)[] {
  const old = new Set(oldIds);
  const used = new Set<string>();
  return built.map((b) => {
    const overlap = new Map<string, number>();
    for (const m of b.messages) if (m.episodeId && old.has(m.episodeId)) overlap.set(m.episodeId, (overlap.get(m.episodeId) ?? 0) + 1);
    const best = [...overlap.entries()].filter(([id]) => !used.has(id)).sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
    if (best) used.add(best);
    return best;
  });
}

export async function rebuildEpisodesWithLlm(
  ctx: EngineContext,
  ownerId: string,
  o: { scope?: RebuildScope; onProgress?: (done: number, total: number) => void } = {},
): Promise<RebuildEpisodesReport> {
  const llm = ctx.llm;
  if (!llm) {
    throw new NemoriError(
      'INVALID_INPUT',
      'no LLM is configured: set NEMORI_LLM_MODEL (and NEMORI_LLM_BASE_URL for a server other than a local Ollama), pass --llm-model, or save LLM settings',
    );
  }
  const scope = o.scope ?? 'needs_rebuild';
  const pendingBuilt = await processPending(ctx, ownerId);
  const groups = rebuildGroups(
    await ctx.store.read.episodes.rebuildCandidates(ownerId, scope),
    scope,
    ctx.config.llmEpisodes.rebuildGroupMessages,
  );
  const session = newBuildSession();
  const report: RebuildEpisodesReport = {
    pendingBuilt,
    groups: groups.length,
    upgraded: 0,
    failed: 0,
    episodesReplaced: 0,
    episodesCreated: 0,
    remaining: 0,
    llmCalls: 0,
    stoppedEarly: false,
    errors: [],
  };

  for (const [n, group] of groups.entries()) {
    if (session.down) {
      report.stoppedEarly = true;
      break;
    }
    const oldIds = group.map((g) => g.id);
    const conversationId = group[0]!.conversationId;
    const messages = await ctx.store.read.conversations.messagesOfEpisodes(ownerId, oldIds);
    let built: BuiltEpisode[];
    try {
      built = await buildAllWithLlm(ctx, llm, {
        ownerId,
        messages,
        conversation: await conversationInfo(ctx, ownerId, conversationId),
        session,
      });
    } catch (e) {
      if (!isLlmError(e)) throw e;
      report.failed++;
      if (report.errors.length < 5) report.errors.push(e.message);
      o.onProgress?.(n + 1, groups.length);
      continue;
    }
    // Every message of the group must land in exactly one new episode, or the group is not replaced.
    const covered = built.reduce((s, b) => s + b.messages.length, 0);
    if (covered !== messages.length) throw new Error(`rebuild: ${covered} of ${messages.length} messages covered`);

    const vectors = ctx.embedder
      ? await ctx.embedder.embed(
          built.map((b) => embeddingText(b.draft)),
          'passage',
        )
      : null;
    const reuse = reuseIds(built, oldIds);
    const now = ctx.clock.now();
    const replaced = await ctx.store.transaction(async (r) => {
      // Another writer (an import, an edit) may have changed the group since it was read: then leave it.
      const still = await r.episodes.getMany(ownerId, oldIds);
      if (still.length !== oldIds.length || still.some((e) => e.processingStatus !== group.find((g) => g.id === e.id)!.status))
        return false;
      await unindexEpisodes(r, ownerId, oldIds);
      const stored = [];
      for (const [j, b] of built.entries()) {
        const id = reuse[j] ?? (await r.episodes.insert(ownerId, conversationId, b.draft, now));
        if (reuse[j]) await r.episodes.rewrite(ownerId, id, b.draft, now);
        await r.conversations.linkToEpisode(
          ownerId,
          b.messages.map((m) => m.id),
          id,
        );
        await r.graph.setEpisodeGraph(ownerId, id, b.graph ?? { entities: [], relationships: [] }, now);
        stored.push({ id, ...b.draft });
      }
      // Old episodes no new one took over now have no messages left: they go (their graph links with them).
      for (const id of oldIds.filter((x) => !reuse.includes(x))) await r.episodes.delete(ownerId, id);
      if (ctx.embedder) await r.vectors.ensureIndex({ modelId: ctx.embedder.modelId, dimensions: ctx.embedder.dimensions });
      await indexEpisodes(
        r,
        ownerId,
        stored,
        ctx.embedder && vectors
          ? { modelId: ctx.embedder.modelId, rows: stored.map((e, i) => ({ episodeId: e.id, vector: vectors[i]! })) }
          : null,
        ctx.config.retrieval.bm25,
      );
      await r.discoveryQueue.enqueue(
        ownerId,
        stored.map((e) => e.id),
        now,
      );
      return true;
    });
    if (replaced) {
      report.upgraded++;
      report.episodesReplaced += oldIds.length;
      report.episodesCreated += built.length;
    }
    o.onProgress?.(n + 1, groups.length);
  }
  await ctx.store.maintain();
  report.llmCalls = session.calls;
  if (session.down) {
    report.stoppedEarly = report.upgraded + report.failed < groups.length;
    if (report.errors.length === 0) report.errors.push(session.down.message);
  }
  const after = await ctx.store.read.episodes.rebuildCandidates(ownerId, 'needs_rebuild');
  report.remaining = after.filter((r) => r.status === 'needs_rebuild').length;
  return report;
}
