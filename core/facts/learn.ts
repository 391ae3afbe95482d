import type { LearnAction } from './reports.js';
import type { EngineContext } from '../context/engine-context.js';
import { parseKey, type DiscoveryMethod, type Fact } from '../domain/fact.js';
import type { Repos } from '../store/store.js';
import type { PrivacyRules } from '../privacy/redact.js';
import { redactNamedSecret, redactValue } from '../privacy/redact.js';
import { estimateTokens, factEmbeddingText, factKeywords, factTerms, sameValue } from '../text/fact-text.js';

/**
 * Fact evolution and upsert in one place: every way a fact enters the store (discovery,
 * upsert, memorize, a person's correction) goes through `learnFact`, so the rules are the same
 * whoever writes:
 * - a new key → a new node at version 1 (unless a stored fact is a near-duplicate: then merged);
 * - the same key and the same value → reinforced (confidence + 0.1, the episode linked), no new version;
 * - the same key and another value → a new version that `updates` (or, from the person, `corrects`)
 *   the previous one; every earlier value stays in the history with its time and episode.
 */

export interface FactInput {
  key: string;
  /** The type for a key written without one ("John的研究方向" → person:john的研究方向). */
  entityType?: string | null | undefined;
  value: string;
  context?: string | undefined;
  confidence?: number | undefined;
  keywords?: readonly string[] | undefined;
  tags?: readonly string[] | undefined;
  source?: string | undefined;
  importance?: number | undefined;
  /** Messages the fact was drawn from (provenance; what it "covers" in retrieval budgets). */
  sourceMessageIds?: readonly string[] | undefined;
}

export interface FactCause {
  method: DiscoveryMethod;
  /** The episode that taught or changed the fact; null for facts given through the store API. */
  episodeId: string | null;
  /** `correction`: the person says the stored value was wrong, rather than out of date. */
  change: 'update' | 'correction';
}

export interface LearnOutcome {
  action: LearnAction;
  node: Fact;
  /** The value before an evolution or correction. */
  previousValue: string | null;
  /** Set when the fact was merged into a near-duplicate stored under another key: its similarity. */
  mergedSimilarity: number | null;
  /** Versions dropped beyond the retention limit (forgetting.semanticMaxVersions). */
  prunedVersions: number;
}

/** Rewrites a fact's keyword entries and its token count (every kept version's text counts). */
export async function reindexFact(r: Repos, ownerId: string, nodeId: string): Promise<Fact> {
  const [node] = await r.facts.byIds(ownerId, [nodeId]);
  if (!node) throw new Error(`fact ${nodeId} vanished while it was being written`);
  const { terms, length } = factTerms(node);
  const versions = await r.factVersions.list(ownerId, nodeId);
  const tokens = estimateTokens(node.label) + versions.reduce((sum, v) => sum + estimateTokens(v.value) + estimateTokens(v.context), 0);
  await r.factTerms.set(ownerId, nodeId, terms, length, tokens);
  return { ...node, tokens };
}

/**
 * Rebuilds the fact side of the indexes: keyword entries for every fact, vectors for active facts whose
 * vector is missing or from another model (all of them with `reembed`). Facts are few: one pass.
 */
export async function reindexFacts(
  ctx: EngineContext,
  ownerId: string,
  o: { reembed: boolean },
): Promise<{ facts: number; embedded: number }> {
  const read = ctx.store.read;
  const all: Fact[] = [];
  for (let before: { at: Date; id: string } | undefined; ;) {
    const page = await read.facts.list(ownerId, { tiers: ['active', 'archived', 'trash'], limit: 1000, before });
    all.push(...page);
    if (page.length < 1000) break;
    before = { at: page.at(-1)!.updatedAt, id: page.at(-1)!.id };
  }
  const embedder = ctx.embedder;
  const toEmbed = !embedder
    ? []
    : o.reembed
      ? all.filter((n) => n.tier === 'active')
      : await read.factVectors.stale(ownerId, embedder.modelId, all.length || 1);
  const vectors = embedder && toEmbed.length ? await embedder.embed(toEmbed.map(factEmbeddingText), 'passage') : [];
  await ctx.store.transaction(async (r) => {
    for (const n of all) await reindexFact(r, ownerId, n.id);
    if (embedder) for (const [i, n] of toEmbed.entries()) await r.factVectors.set(ownerId, n.id, embedder.modelId, vectors[i]!);
  });
  return { facts: all.length, embedded: toEmbed.length };
}

/** A fact keeps no secret: its key, value, context and words are filtered as messages are (core/privacy). */
function withoutSecrets(f: FactInput, rules: PrivacyRules): FactInput {
  const { sourceMessageIds, ...text } = f;
  const clean = redactValue(text, rules).value;
  return { ...clean, value: redactNamedSecret(clean.key, clean.value, rules).value, sourceMessageIds };
}

export async function learnFact(ctx: EngineContext, ownerId: string, given: FactInput, cause: FactCause): Promise<LearnOutcome> {
  const fact = withoutSecrets(given, ctx.config.privacy);
  const parsed = parseKey(fact.key, fact.entityType);
  const value = fact.value.trim();
  const context = fact.context?.trim() ?? '';
  const confidence = fact.confidence ?? 1;
  const cfg = ctx.config.semantic;
  // Model work happens before the transaction, as everywhere: it is slow and must not hold the database.
  const vector = ctx.embedder ? (await ctx.embedder.embed([factEmbeddingText({ label: parsed.label, value })], 'passage'))[0]! : null;
  const now = ctx.clock.now();

  return ctx.store.transaction(async (r) => {
    let existing = await r.facts.byKey(ownerId, parsed.key);
    let mergedSimilarity: number | null = null;
    if (!existing && vector && ctx.embedder) {
      const space = { modelId: ctx.embedder.modelId, dimensions: ctx.embedder.dimensions };
      const vectors = await r.factVectors.vectors(ownerId, space.modelId);
      const [near] = vectors > 0 ? await r.factVectors.search(ownerId, space, vector, { limit: 1, filters: {}, vectors }) : [];
      if (near && near.similarity > cfg.duplicateThreshold) {
        existing = (await r.facts.byIds(ownerId, [near.id]))[0] ?? null;
        mergedSimilarity = near.similarity;
      }
    }
    const keywords = factKeywords(parsed.label, value, fact.keywords ?? []);
    const sources = fact.sourceMessageIds ?? [];

    if (existing && existing.tier !== 'active') {
      // A fact learnt again comes back from archive or trash: the world brought it up anew.
      await r.facts.setTier(ownerId, [existing.id], 'active', null, now);
      existing = { ...existing, tier: 'active' };
    }
    if (!existing) {
      const id = await r.facts.insert(
        ownerId,
        {
          ...parsed,
          value,
          context,
          confidence,
          discoveryEpisodeId: cause.episodeId,
          discoveryMethod: cause.method,
          keywords,
          tags: fact.tags ?? [],
          source: fact.source ?? null,
          importance: fact.importance ?? 0.5,
        },
        now,
      );
      await r.factVersions.add(
        ownerId,
        id,
        { version: 1, value, context, confidence, link: null, method: cause.method, episodeId: cause.episodeId, sourceMessageIds: sources },
        now,
      );
      if (cause.episodeId) await r.factLinks.link(ownerId, id, cause.episodeId, 'discovery', now);
      const node = await reindexFact(r, ownerId, id);
      if (vector && ctx.embedder) await r.factVectors.set(ownerId, id, ctx.embedder.modelId, vector);
      return { action: 'created', node, previousValue: null, mergedSimilarity: null, prunedVersions: 0 };
    }

    const metadata = {
      ...(fact.tags !== undefined && { tags: [...new Set([...existing.tags, ...fact.tags])] }),
      ...(fact.source !== undefined && { source: fact.source }),
      ...(fact.importance !== undefined && { importance: fact.importance, baseImportance: fact.importance }),
    };
    if (mergedSimilarity !== null || sameValue(existing.value, value)) {
      await r.facts.update(
        ownerId,
        existing.id,
        {
          ...metadata,
          confidence: Math.min(1, existing.confidence + cfg.reinforcement),
          keywords: [...new Set([...existing.keywords, ...keywords])].slice(0, 16),
          accessed: now,
        },
        now,
      );
      if (cause.episodeId) await r.factLinks.link(ownerId, existing.id, cause.episodeId, 'linked', now);
      // A merged fact keeps its own vector (its text did not change); a revived one needs its vector back.
      if (vector && ctx.embedder && mergedSimilarity === null) await r.factVectors.set(ownerId, existing.id, ctx.embedder.modelId, vector);
      const node = await reindexFact(r, ownerId, existing.id);
      return {
        action: mergedSimilarity !== null ? 'merged' : 'reinforced',
        node,
        previousValue: null,
        mergedSimilarity,
        prunedVersions: 0,
      };
    }

    const corrects = cause.change === 'correction';
    const version = existing.version + 1;
    // A discovered change averages the old and new confidence; a value given explicitly carries its own.
    const newConfidence = cause.method === 'diff_analysis' && !corrects ? (existing.confidence + confidence) / 2 : confidence;
    await r.factVersions.add(
      ownerId,
      existing.id,
      {
        version,
        value,
        context,
        confidence,
        link: corrects ? 'corrects' : 'updates',
        method: cause.method,
        episodeId: cause.episodeId,
        sourceMessageIds: sources,
      },
      now,
    );
    if (corrects) await r.factVersions.markCorrected(ownerId, existing.id, existing.version, cfg.correctedConfidence);
    await r.facts.update(
      ownerId,
      existing.id,
      { ...metadata, value, context, version, confidence: newConfidence, keywords, accessed: now },
      now,
    );
    if (cause.episodeId) await r.factLinks.link(ownerId, existing.id, cause.episodeId, 'evolution', now);
    const prunedVersions = await r.factVersions.prune(ownerId, existing.id, ctx.config.forgetting.semanticMaxVersions);
    const node = await reindexFact(r, ownerId, existing.id);
    if (vector && ctx.embedder) await r.factVectors.set(ownerId, existing.id, ctx.embedder.modelId, vector);
    return { action: corrects ? 'corrected' : 'evolved', node, previousValue: existing.value, mergedSimilarity: null, prunedVersions };
  });
}
