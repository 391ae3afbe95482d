import type { EngineContext } from '../context/engine-context.js';
import type { ForgettingReason } from '../domain/forgetting-reason.js';
import type { Fact } from '../domain/fact.js';
import type { Repos } from '../store/store.js';
import { factEmbeddingText } from '../text/fact-text.js';

type Tier = Fact['tier'];

/**
 * Moves facts between tiers with their vectors: only active facts have one (archived
 * memories leave vector search; trashed ones leave every search). Coming back to active re-embeds,
 * computed before the transaction. Runs inside `r` when given (the caller's transaction).
 */
export async function moveFacts(
  ctx: EngineContext,
  ownerId: string,
  nodes: readonly Fact[],
  tier: Tier,
  reason: ForgettingReason | null,
  now: Date,
  r?: Repos,
): Promise<{ moved: string[]; reembedded: number }> {
  if (nodes.length === 0) return { moved: [], reembedded: 0 };
  const ids = nodes.map((n) => n.id);
  const vectors = tier === 'active' && ctx.embedder ? await ctx.embedder.embed(nodes.map(factEmbeddingText), 'passage') : null;
  const apply = async (tx: Repos) => {
    const moved = await tx.facts.setTier(ownerId, ids, tier, reason, now);
    if (tier !== 'active') {
      await tx.factVectors.remove(ownerId, ids);
      return { moved, reembedded: 0 };
    }
    if (vectors && ctx.embedder)
      for (const [i, n] of nodes.entries()) await tx.factVectors.set(ownerId, n.id, ctx.embedder.modelId, vectors[i]!);
    return { moved, reembedded: vectors?.length ?? 0 };
  };
  return r ? apply(r) : ctx.store.transaction(apply);
}
