import type { EngineContext } from '../context/engine-context.js';
import type { MemoryKind } from './decay.js';
import { episodeTarget } from './episode-target.js';
import { factTarget } from './fact-target.js';
import type { ForgettingTarget, MemoryRecord } from './target.js';

/**
 * The kinds forgetting applies to: episodes and facts (over the same tier columns). The decay function
 * knows the kind: facts age with `config.forgetting.kinds.semantic`, ten times slower than episodes by
 * default. A new kind plugs in the same way: a target here, its decay settings in the forgetting config.
 */

/** The registry: one target per kind (a kind mapped to null would be skipped by passes and look-ups). */
export const forgettingTargets: { readonly [K in MemoryKind]: ForgettingTarget | null } = {
  episode: episodeTarget,
  semantic: factTarget,
};

export function activeTargets(): ForgettingTarget[] {
  return Object.values(forgettingTargets).filter((t): t is ForgettingTarget => t !== null);
}

/** Finds which kind a memory id belongs to (ids are UUIDs, unique across kinds). */
export async function findMemory(
  ctx: EngineContext,
  ownerId: string,
  id: string,
): Promise<{ target: ForgettingTarget; record: MemoryRecord } | null> {
  for (const target of activeTargets()) {
    const [record] = await target.records(ctx, ownerId, [id]);
    if (record) return { target, record };
  }
  return null;
}
