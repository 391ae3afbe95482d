import { findMemories } from '../retrieval/find.js';
import type { EngineContext } from '../context/engine-context.js';
import { NemoriError } from '../domain/errors.js';
import type { ForgetRequest } from '../domain/forgetting-reason.js';
import { parseKey, type Fact, type FactVersion } from '../domain/fact.js';
import { enforceCapacity } from './capacity.js';
import { learnFact, type FactInput } from './learn.js';
import type { Eviction, LearnAction } from './reports.js';
import { estimateTokens, factText, sameValue } from '../text/fact-text.js';
import { moveFacts } from './tiers.js';
import { redactText } from '../privacy/redact.js';

/**
 * The semantic memory store's operations over the same facts discovery writes: upsert by key,
 * memorize, forget by instruction (soft = the trash, restorable; hard = gone with every version),
 * undelete, summarize, capacity and versions. Remember is search (core/retrieval/find.ts).
 */

export interface FactMetadata {
  context?: string | undefined;
  tags?: readonly string[] | undefined;
  source?: string | undefined;
  importance?: number | undefined;
  confidence?: number | undefined;
  keywords?: readonly string[] | undefined;
  /** The person's feedback: the stored value was wrong (a `corrects` version), rather than out of date. */
  correction?: boolean | undefined;
}

export interface WriteOutcome {
  node: Fact;
  action: LearnAction;
  previousValue: string | null;
  evicted: Eviction[];
}

export async function upsertFact(
  ctx: EngineContext,
  ownerId: string,
  key: string,
  value: string,
  m: FactMetadata,
  method: 'upsert' | 'memorize' = 'upsert',
): Promise<WriteOutcome> {
  const fact: FactInput = {
    key,
    value,
    context: m.context,
    tags: m.tags,
    source: m.source,
    importance: m.importance,
    confidence: m.confidence,
    keywords: m.keywords,
  };
  const cause = {
    method: m.correction ? ('user_feedback' as const) : method,
    episodeId: null,
    change: m.correction ? ('correction' as const) : ('update' as const),
  };
  const outcome = await learnFact(ctx, ownerId, fact, cause);
  const evicted = await enforceCapacity(ctx, ownerId, [outcome.node.id]);
  return { node: outcome.node, action: outcome.action, previousValue: outcome.previousValue, evicted };
}

/** A key for a fact given without one: `fact:` and its first words (near-duplicates still merge by meaning). */
export function keyFor(value: string): string {
  const words = value.normalize('NFKC').trim().split(/\s+/u);
  const head = words.length > 1 ? words.slice(0, 8).join(' ') : [...value.trim()].slice(0, 16).join('');
  return `fact:${head}`;
}

/**
 * Memorize: a fact given without a key joins the stored fact that says the same thing
 * (same words, or embedding similarity above the duplicate threshold), else it is stored
 * under `fact:<its first words>`.
 */
export async function memorize(
  ctx: EngineContext,
  ownerId: string,
  given: string,
  key: string | undefined,
  m: FactMetadata,
): Promise<WriteOutcome> {
  // Filtered before it becomes a key (`fact:<its first words>`) or a search query.
  const value = redactText(given, ctx.config.privacy).value;
  if (key) return upsertFact(ctx, ownerId, key, value, m, 'memorize');
  const same = await sameFact(ctx, ownerId, value);
  if (!same) return upsertFact(ctx, ownerId, keyFor(value), value, m, 'memorize');
  const outcome = await upsertFact(ctx, ownerId, same.key, same.value, m, 'memorize');
  return { ...outcome, action: 'merged' };
}

async function sameFact(ctx: EngineContext, ownerId: string, value: string): Promise<Fact | null> {
  const q = { ownerId, text: value, mode: 'hybrid' as const, limit: 3, episodes: null, facts: {}, markAccessed: false };
  const hits = (await findMemories(ctx, q)).found;
  const nodes = await ctx.store.read.facts.byIds(
    ownerId,
    hits.map((h) => h.hit.id),
  );
  const exact = nodes.find((n) => sameValue(n.value, value));
  if (exact || !ctx.embedder || nodes.length === 0) return exact ?? null;
  const [v, ...others] = await ctx.embedder.embed([value, ...nodes.map((n) => n.value)], 'passage');
  const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
  let best: { node: Fact; similarity: number } | null = null;
  for (const [i, n] of nodes.entries()) {
    const similarity = dot(v!, others[i]!);
    if (!best || similarity > best.similarity) best = { node: n, similarity };
  }
  return best && best.similarity > ctx.config.semantic.duplicateThreshold ? best.node : null;
}

/** A fact by key (any spelling of it) or by id, in any tier. */
export async function findFact(ctx: EngineContext, ownerId: string, keyOrId: string): Promise<Fact> {
  const read = ctx.store.read;
  const byId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(keyOrId)
    ? (await read.facts.byIds(ownerId, [keyOrId]))[0]
    : undefined;
  const node = byId ?? (await read.facts.byKey(ownerId, parseKey(keyOrId).key));
  if (!node) throw new NemoriError('NOT_FOUND', `no fact ${keyOrId} (list them with \`nemori knowledge list\`)`);
  return node;
}

export type ForgetInstruction = { key: string } | { oldest: true } | { leastImportant: true } | { before: Date };

/** Forget instructions: `key:<entity_type:identifier>`, `oldest`, `least important`, `before:<time>`. */
export function parseForgetInstruction(text: string): ForgetInstruction {
  const t = text.trim();
  const lower = t.toLowerCase();
  if (lower.startsWith('key:')) return { key: t.slice(4).trim() };
  if (lower === 'oldest' || lower === 'least recently used') return { oldest: true };
  if (lower === 'least important') return { leastImportant: true };
  if (lower.startsWith('before:')) {
    const raw = t.slice(7).trim();
    const at = new Date(/^\d{4}-\d{2}-\d{2}$/.test(raw) ? `${raw}T00:00:00Z` : raw);
    if (Number.isNaN(at.getTime()))
      throw new NemoriError('INVALID_INPUT', `"${raw}" is not a time: write before:2024-01-31 or an ISO 8601 time`);
    return { before: at };
  }
  throw new NemoriError(
    'INVALID_INPUT',
    `"${t}" is not a forget instruction: use key:<entity_type:identifier>, oldest, least important or before:<time>`,
  );
}

export async function forgetFacts(ctx: EngineContext, ownerId: string, instruction: string, mode: 'soft' | 'hard'): Promise<Fact[]> {
  const ins = parseForgetInstruction(instruction);
  const read = ctx.store.read;
  let nodes: Fact[];
  // What the trash will say the person asked for (a key by its normal spelling, not as typed).
  let request: ForgetRequest;
  if ('key' in ins) {
    const node = await findFact(ctx, ownerId, ins.key);
    // A soft-deleted fact can still be deleted for good; soft-deleting it twice changes nothing.
    nodes = mode === 'soft' && node.tier === 'trash' ? [] : [node];
    request = { by: 'key', key: node.key };
  } else if ('before' in ins) {
    nodes = await read.factForgetting.pick(ownerId, { createdBefore: ins.before });
    request = { by: 'before', before: ins.before.toISOString() };
  } else {
    nodes = await read.factForgetting.pick(ownerId, { order: 'oldest' in ins ? 'lru' : 'importance', limit: 1 });
    request = 'oldest' in ins ? { by: 'oldest' } : { by: 'leastImportant' };
  }
  if (nodes.length === 0) return [];
  const now = ctx.clock.now();
  if (mode === 'hard')
    await ctx.store.transaction((r) =>
      r.facts.delete(
        ownerId,
        nodes.map((n) => n.id),
      ),
    );
  else await moveFacts(ctx, ownerId, nodes, 'trash', { kind: 'forgotten', request }, now);
  return nodes;
}

export async function undeleteFact(ctx: EngineContext, ownerId: string, keyOrId: string): Promise<Fact> {
  const node = await findFact(ctx, ownerId, keyOrId);
  if (node.tier !== 'trash') throw new NemoriError('INVALID_INPUT', `${node.key} is not deleted (it is ${node.tier})`);
  await moveFacts(ctx, ownerId, [node], 'active', { kind: 'restored', from: 'trash' }, ctx.clock.now());
  return (await ctx.store.read.facts.byIds(ownerId, [node.id]))[0]!;
}

export async function getVersion(
  ctx: EngineContext,
  ownerId: string,
  keyOrId: string,
  version: number,
): Promise<{ node: Fact; version: FactVersion }> {
  const node = await findFact(ctx, ownerId, keyOrId);
  const versions = await ctx.store.read.factVersions.list(ownerId, node.id);
  const v = versions.find((x) => x.version === version);
  if (!v) {
    const kept = versions.length ? `versions ${versions[0]!.version}–${versions.at(-1)!.version} are kept` : 'no versions are kept';
    const why =
      version >= 1 && version < (versions[0]?.version ?? 0) ? ' (older versions were pruned: forgetting.semanticMaxVersions)' : '';
    throw new NemoriError('NOT_FOUND', `${node.key} has no version ${version}: ${kept}${why}`);
  }
  return { node, version: v };
}

/**
 * Summarize: the facts in scope (everything, an entity type such as "person", or a key prefix
 * such as "person:john"), most important and most certain first, with their relationships, cut at the
 * token limit. Extractive: it works offline and never invents. `asOf`: as they were known at that
 * moment (a replay) — each with the value it had then, and those not known yet left out.
 */
export async function summarizeFacts(ctx: EngineContext, ownerId: string, scope: string | undefined, tokenLimit: number, asOf?: Date) {
  const read = ctx.store.read;
  const lines: string[] = [];
  const included: Fact[] = [];
  let tokens = 0;
  let lastType: string | null = null;
  const inScope = { tiers: ['active', 'archived'] as const, scope: scope?.trim().toLowerCase() };
  // Pages in the summary's order until the budget is full (a fact's line costs more than 16 tokens as a rule).
  const limit = Math.ceil(tokenLimit / 16) + 1;
  let after: Fact | undefined;
  let full = false;
  while (!full) {
    const page = await read.facts.byImportance(ownerId, { ...inScope, limit, after });
    const then = asOf
      ? await read.factVersions.asOf(
          ownerId,
          page.map((f) => f.id),
          asOf,
        )
      : null;
    for (const fact of page) {
      const said = then ? then.get(fact.id)?.value : fact;
      if (!said) continue;
      const n = { ...fact, ...said };
      const header = n.entityType !== lastType ? `${n.entityType}:` : null;
      const line = `- ${factText(n)}${n.version > 1 ? ` [v${n.version}]` : ''}`;
      const cost = estimateTokens(line) + (header ? estimateTokens(header) : 0);
      if (tokens + cost > tokenLimit) {
        full = true;
        break;
      }
      if (header) lines.push(header);
      lines.push(line);
      tokens += cost;
      included.push(n);
      lastType = n.entityType;
    }
    if (page.length < limit) break;
    after = page.at(-1);
  }
  const ids = new Set(included.map((n) => n.id));
  const byId = new Map(included.map((n) => [n.id, n]));
  for (const rel of await read.relationships.of(ownerId, [...ids])) {
    const a = byId.get(rel.sourceId);
    const b = byId.get(rel.targetId);
    if (!a || !b) continue;
    const line = `- ${a.label} —${rel.type.replace('_', ' ')}→ ${b.label}`;
    if (tokens + estimateTokens(line) > tokenLimit) break;
    if (!lines.includes('relationships:')) lines.push('relationships:');
    lines.push(line);
    tokens += estimateTokens(line);
  }
  // Counted only when the budget ran out: otherwise every fact in scope is in the summary. Without a
  // scope, that is every fact outside the trash, which the store keeps a count of.
  const inScopeCount = () => (inScope.scope ? read.facts.count(ownerId, inScope) : read.facts.outsideTrash(ownerId));
  const left = full ? (await inScopeCount()) - included.length : 0;
  return { summary: lines.join('\n'), tokens, included, left };
}

export async function capacityInfo(ctx: EngineContext, ownerId: string) {
  const cfg = ctx.config.semantic;
  const usage = await ctx.store.read.factForgetting.usage(ownerId, cfg.importanceHigh, cfg.importanceLow);
  const [next] = await ctx.store.read.factForgetting.evictionOrder(ownerId, cfg.importanceHigh, cfg.importanceLow, 1, []);
  return { usage, limits: cfg.capacity, thresholds: { high: cfg.importanceHigh, low: cfg.importanceLow }, nextEviction: next ?? null };
}
