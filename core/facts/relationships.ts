import type { EngineContext } from '../context/engine-context.js';
import type { Fact, FactRelationship } from '../domain/fact.js';
import { tokenize } from '../text/tokenize.js';

/** Jaccard overlap of two texts' index terms: the basic text similarity relationship strength uses, CJK-aware. */
export function textSimilarity(a: string, b: string): number {
  const x = new Set(tokenize(a));
  const y = new Set(tokenize(b));
  if (x.size === 0 || y.size === 0) return 0;
  let both = 0;
  for (const t of x) if (y.has(t)) both++;
  return both / (x.size + y.size - both);
}

/**
 * Relationship strength of two facts: 0.3 × time factor (discovered together: 1, else 0.7) + 0.4 × context
 * factor (same discovery episode: 1, else 0.5) + 0.3 × similarity of the contexts they were found in.
 */
export function relationshipStrength(a: Fact, b: Fact, sameRun: boolean): number {
  const time = sameRun ? 1 : 0.7;
  const context = a.discoveryEpisodeId !== null && a.discoveryEpisodeId === b.discoveryEpisodeId ? 1 : 0.5;
  return time * 0.3 + context * 0.4 + textSimilarity(a.context, b.context) * 0.3;
}

/**
 * Relates every pair of facts learnt from one episode whose strength passes the threshold. The episode
 * is the description (not a fixed sentence such as "Co-discovered in episode: <title>"): kept as its id, so a reader
 * shows it in their own language with the episode's current title.
 */
export async function relateCoDiscovered(
  ctx: EngineContext,
  ownerId: string,
  nodes: readonly Fact[],
  episode: { id: string },
): Promise<number> {
  const now = ctx.clock.now();
  let made = 0;
  await ctx.store.transaction(async (r) => {
    for (let i = 0; i < nodes.length; i++) {
      for (let j = i + 1; j < nodes.length; j++) {
        const [a, b] = [nodes[i]!, nodes[j]!];
        if (a.id === b.id) continue;
        const strength = relationshipStrength(a, b, true);
        if (strength <= ctx.config.semantic.relationshipThreshold) continue;
        await r.relationships.relate(
          ownerId,
          { sourceId: a.id, targetId: b.id, type: 'related', strength, description: '', discoveryEpisodeId: episode.id },
          now,
        );
        made++;
      }
    }
  });
  return made;
}

export interface RelatedFact {
  node: Fact;
  relationship: FactRelationship;
  /** For indirect relations: the direct neighbour they were reached through. */
  via: string | null;
}

/** A fact's related knowledge: direct neighbours, and (depth 2) their neighbours not already seen. */
export async function relatedKnowledge(
  ctx: EngineContext,
  ownerId: string,
  nodeId: string,
  depth: 1 | 2 = 2,
): Promise<{ direct: RelatedFact[]; indirect: RelatedFact[] }> {
  const read = ctx.store.read;
  const other = (rel: FactRelationship, from: string) => (rel.sourceId === from ? rel.targetId : rel.sourceId);
  // A neighbour reached by several relationships is shown by the most specific: a typed one over "related".
  const specific = (a: FactRelationship, b: FactRelationship) =>
    Number(a.type === 'related') - Number(b.type === 'related') || b.strength - a.strength;
  const directRels = (await read.relationships.of(ownerId, [nodeId])).sort(specific);
  const seen = new Set([nodeId]);
  const direct: { id: string; rel: FactRelationship; via: string | null }[] = [];
  for (const rel of directRels) {
    const id = other(rel, nodeId);
    if (seen.has(id)) continue;
    seen.add(id);
    direct.push({ id, rel, via: null });
  }
  const indirect: typeof direct = [];
  if (depth > 1 && direct.length > 0) {
    const next = (
      await read.relationships.of(
        ownerId,
        direct.map((d) => d.id),
      )
    ).sort(specific);
    for (const d of direct) {
      for (const rel of next) {
        if (rel.sourceId !== d.id && rel.targetId !== d.id) continue;
        const id = other(rel, d.id);
        if (seen.has(id)) continue;
        seen.add(id);
        indirect.push({ id, rel, via: d.id });
      }
    }
  }
  const nodes = new Map(
    (
      await read.facts.byIds(
        ownerId,
        [...direct, ...indirect].map((d) => d.id),
      )
    ).map((n) => [n.id, n]),
  );
  const resolve = (xs: typeof direct) =>
    xs.flatMap((x) => {
      const node = nodes.get(x.id);
      return node && node.tier !== 'trash' ? [{ node, relationship: x.rel, via: x.via }] : [];
    });
  return { direct: resolve(direct), indirect: resolve(indirect) };
}
