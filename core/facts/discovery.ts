import { z } from 'zod';
import { findMemories } from '../retrieval/find.js';
import type { EngineContext } from '../context/engine-context.js';
import type { StoredMessage } from '../domain/conversation.js';
import { KeyError, parseKey, RelationshipType, type Fact } from '../domain/fact.js';
import { describeSpan, quantity } from '../text/describe.js';
import { localStamp, messageText, shorten } from '../text/message-text.js';
import { keepValid, lenientList } from '../llm/json.js';
import { isLlmError, type Llm } from '../llm/llm.js';
import { renderPrompt } from '../llm/prompts.js';
import { enforceCapacity } from './capacity.js';
import type { DiscoveryRun, Eviction } from './reports.js';
import { learnFact } from './learn.js';
import type { LearnAction } from './reports.js';
import { relateCoDiscovered } from './relationships.js';

/**
 * Knowledge-gap discovery: the episode is a mask over its conversation. The model rebuilds
 * the conversation from the episode with world knowledge only; what the rebuild got wrong or missed,
 * compared with the original messages, is private knowledge and becomes semantic facts linked both
 * ways to the episode. Runs as a queue: every stored episode is queued in the transaction that wrote
 * it, and `runDiscovery` works through the queue whenever an LLM is configured.
 */

const Gap = z.object({
  key: z.string().trim().min(1),
  value: z.coerce.string().trim().min(1),
  context: z.string().trim().catch('').default(''),
  gap_type: z.string().trim().nullish().catch(null),
  confidence: z.coerce.number().min(0).max(1).catch(0.8).default(0.8),
  messages: z.array(z.coerce.number().int()).catch([]).default([]),
  keywords: z.array(z.coerce.string().trim()).catch([]).default([]),
});
const ProposedRelation = z.object({
  source: z.string().trim().min(1),
  target: z.string().trim().min(1),
  type: z.preprocess((v) => (typeof v === 'string' ? v.trim().toLowerCase() : v), RelationshipType).catch('related'),
  description: z.string().trim().catch('').default(''),
});
export const GapReply = z.object({
  knowledge_gaps: z.array(z.unknown(), { message: 'knowledge_gaps must be a list (it may be empty)' }).transform(keepValid(Gap)),
  relationships: lenientList(ProposedRelation),
});

export interface EpisodeDiscovery {
  episodeId: string;
  facts: { nodeId: string; key: string; action: LearnAction }[];
  relationships: number;
  evicted: Eviction[];
  llmCalls: number;
}

async function gatherContext(ctx: EngineContext, ownerId: string, e: { id: string; title: string; summary: string; content: string }) {
  const cfg = ctx.config.semantic.discovery;
  const base = { ownerId, mode: 'hybrid' as const, markAccessed: false };
  const [facts, episodes] = await Promise.all([
    cfg.relatedFacts > 0
      ? findMemories(ctx, { ...base, text: `${e.title} ${e.summary}`, limit: cfg.relatedFacts, episodes: null, facts: {} })
      : null,
    cfg.relatedEpisodes > 0
      ? findMemories(ctx, { ...base, text: e.content, limit: cfg.relatedEpisodes + 1, episodes: {}, facts: null })
      : null,
  ]);
  const lines = (facts?.found ?? []).flatMap((f) => (f.kind === 'semantic' ? [`- ${f.fact.key} = ${f.fact.value}`] : []));
  const earlier = (episodes?.found ?? [])
    .flatMap((x) => (x.kind === 'episode' && x.episode.id !== e.id ? [x.episode] : []))
    .slice(0, cfg.relatedEpisodes);
  if (earlier.length) lines.push('', 'Related earlier memories:', ...earlier.map((x) => `- ${x.title}: ${x.summary}`));
  return lines.length ? lines.join('\n') : '(none yet)';
}

/** "[3] Mon 2024-01-15 10:02 John: …" lines, as many as fit in `maxChars`. */
function numberedTranscript(messages: readonly StoredMessage[], maxChars: number): string {
  const lines: string[] = [];
  let used = 0;
  for (const [i, m] of messages.entries()) {
    const line = `[${i + 1}] ${localStamp(m)} ${m.speaker}: ${shorten(messageText(m), 600)}`;
    if (used + line.length > maxChars && lines.length > 0) break;
    lines.push(line);
    used += line.length + 1;
  }
  return lines.join('\n');
}

/** Discovery for one episode: reconstruct, analyse the gaps, learn the facts, relate them. */
export async function discoverFromEpisode(
  ctx: EngineContext,
  llm: Llm,
  ownerId: string,
  episodeId: string,
  signal?: AbortSignal,
): Promise<EpisodeDiscovery | null> {
  const read = ctx.store.read;
  const episode = await read.episodes.get(ownerId, episodeId);
  if (!episode) return null;
  const messages = await read.conversations.messagesOfEpisodes(ownerId, [episodeId]);
  const cfg = ctx.config.semantic.discovery;
  // Numbered so the model can say which messages a fact comes from (its provenance).
  const original = messages.length ? numberedTranscript(messages, cfg.originalChars) : episode.content;
  const known = await gatherContext(ctx, ownerId, episode);
  let calls = 0;
  const reconstruction = await llm.complete({
    operation: 'semantic.reconstruct',
    ownerId,
    signal,
    messages: [
      {
        role: 'user',
        content: renderPrompt('semantic-reconstruct', {
          title: episode.title,
          span: describeSpan(episode.temporal.start, episode.temporal.end, episode.temporal.utcOffsetMin),
          content: episode.content,
        }),
      },
    ],
  });
  calls += reconstruction.requests;
  const gaps = await llm.complete({
    operation: 'semantic.gaps',
    ownerId,
    signal,
    json: GapReply,
    messages: [{ role: 'user', content: renderPrompt('semantic-gaps', { original, reconstructed: reconstruction.value.trim(), known }) }],
  });
  calls += gaps.requests;

  const learnt: { node: Fact; action: LearnAction }[] = [];
  for (const g of gaps.value.knowledge_gaps) {
    const cited = g.messages.flatMap((n) => (messages[n - 1] ? [messages[n - 1]!.id] : []));
    const outcome = await learnFact(
      ctx,
      ownerId,
      {
        key: g.key,
        value: g.value,
        context: g.context,
        confidence: g.confidence,
        keywords: g.keywords,
        sourceMessageIds: cited.length ? cited : messages.map((m) => m.id),
      },
      { method: 'diff_analysis', episodeId, change: 'update' },
    ).catch((e: unknown) => {
      // A key that normalises to nothing is the model's slip, not a reason to lose the other facts.
      if (!(e instanceof KeyError)) throw e;
      ctx.warn(`discovery: skipped a fact from "${episode.title}": ${e.message}`);
      return null;
    });
    if (outcome) learnt.push(outcome);
  }

  const distinct = [...new Map(learnt.map((l) => [l.node.id, l.node])).values()];
  let relationships = await relateCoDiscovered(ctx, ownerId, distinct, episode);
  const now = ctx.clock.now();
  const byKey = new Map<string, string>();
  for (const n of distinct) byKey.set(n.key, n.id);
  for (const rel of gaps.value.relationships) {
    const ends = await Promise.all(
      [rel.source, rel.target].map(async (k) => {
        try {
          const key = parseKey(k).key;
          return byKey.get(key) ?? (await read.facts.byKey(ownerId, key))?.id ?? null;
        } catch {
          return null;
        }
      }),
    );
    const [sourceId, targetId] = ends;
    if (!sourceId || !targetId || sourceId === targetId) continue;
    await ctx.store.transaction((r) =>
      r.relationships.relate(
        ownerId,
        { sourceId, targetId, type: rel.type, strength: 0.8, description: rel.description, discoveryEpisodeId: episodeId },
        now,
      ),
    );
    relationships++;
  }
  const evicted = await enforceCapacity(
    ctx,
    ownerId,
    distinct.map((n) => n.id),
  );
  return {
    episodeId,
    facts: learnt.map((l) => ({ nodeId: l.node.id, key: l.node.key, action: l.action })),
    relationships,
    evicted,
    llmCalls: calls,
  };
}

/**
 * Works through the owner's discovery queue, oldest episode first, so facts evolve in the order they
 * were said. A bad reply fails that episode (tried again on later runs, up to `maxAttempts`); an
 * endpoint that stops answering ends the run and leaves the rest queued.
 */
export async function runDiscovery(
  ctx: EngineContext,
  ownerId: string,
  o: {
    limit?: number | undefined;
    signal?: AbortSignal | undefined;
    onProgress?: ((done: number, total: number) => void) | undefined;
  } = {},
): Promise<DiscoveryRun> {
  const read = ctx.store.read;
  const cfg = ctx.config.semantic.discovery;
  const run: DiscoveryRun = {
    episodes: 0,
    facts: { created: 0, evolved: 0, corrected: 0, reinforced: 0, merged: 0 },
    relationships: 0,
    evicted: [],
    failed: 0,
    remaining: 0,
    llmCalls: 0,
    stoppedEarly: false,
    skipped: null,
    errors: [],
  };
  const llm = ctx.llm;
  if (!llm) {
    const q = await read.discoveryQueue.size(ownerId);
    run.remaining = q.waiting + q.failed;
    run.skipped = `no LLM is configured: ${quantity(run.remaining, 'episode')} ${run.remaining === 1 ? 'waits' : 'wait'} for knowledge discovery and will be read when one is set up`;
    return run;
  }
  const limit = o.limit ?? Number.POSITIVE_INFINITY;
  const queued = await read.discoveryQueue.size(ownerId);
  const total = Math.min(limit, queued.waiting + queued.failed);
  // The total shows before the first (slow) LLM call.
  o.onProgress?.(0, total);
  const tried = new Set<string>();
  outer: while (run.episodes + run.failed < limit) {
    const batch = (await read.discoveryQueue.next(ownerId, cfg.batch + tried.size, cfg.maxAttempts)).filter((id) => !tried.has(id));
    if (batch.length === 0) break;
    for (const episodeId of batch) {
      if (run.episodes + run.failed >= limit) break outer;
      if (o.signal?.aborted) {
        run.stoppedEarly = true;
        break outer;
      }
      tried.add(episodeId);
      try {
        const d = await discoverFromEpisode(ctx, llm, ownerId, episodeId, o.signal);
        await ctx.store.transaction((r) => r.discoveryQueue.dequeue(ownerId, episodeId));
        if (d) {
          run.episodes++;
          for (const f of d.facts) run.facts[f.action]++;
          run.relationships += d.relationships;
          run.evicted.push(...d.evicted);
          run.llmCalls += d.llmCalls;
        }
      } catch (e) {
        const message = isLlmError(e) || e instanceof Error ? e.message : String(e);
        run.errors.push(message);
        if (isLlmError(e) && e.endpointFailed) {
          run.stoppedEarly = true;
          break outer;
        }
        run.failed++;
        await ctx.store.transaction((r) => r.discoveryQueue.failed(ownerId, episodeId, message));
      }
      o.onProgress?.(run.episodes + run.failed, total);
    }
  }
  const q = await read.discoveryQueue.size(ownerId);
  run.remaining = q.waiting + q.failed;
  // Fresh facts need planner statistics like fresh episodes do (the store decides whether it is time).
  if (run.episodes > 0) await ctx.store.maintain();
  if (run.errors.length) ctx.warn(`knowledge discovery: ${quantity(run.errors.length, 'problem')}, first: ${run.errors[0]}`);
  return run;
}
