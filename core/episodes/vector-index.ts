import type { EngineContext } from '../context/engine-context.js';
import type { Repos } from '../store/repos.js';
import type { Store } from '../store/store.js';
import type { VectorSpace } from '../store/vectors.js';

/**
 * A big import writes its episode vectors without the model's HNSW index and builds the index once at
 * its end. Inserting a vector into the index costs ~1 ms (pgvector updates its graph neighbours page by
 * page, each change logged); building the index over the same vectors costs ~0.2 ms a vector, and
 * without the index the model adds nothing measurable to an import (10 MB Telegram: 14 s with and
 * without the tiny model, 24 s with the index kept).
 *
 * The index is dropped only once an import has written as many vectors as the owner had when it began
 * (and at least DROP_AFTER): the build at its end then covers about twice what the import wrote at
 * most (other owners' vectors, rare in a personal store, add to it), so it does not cost more than
 * keeping the index would. An import into a big store keeps its index.
 *
 * Meanwhile a vector search reads every vector of the model (same or better results, slower: ~0.5 s at
 * 100k vectors), and the build at the end holds the store like any write (~20–30 s at 100k).
 * A killed import leaves the index dropped; the engine ensures it at open (core/engine/open-engine.ts),
 * and the next group of episodes stored outside an import ensures it too.
 */
const DROP_AFTER = 500;

interface Deferral {
  /** Imports running (each importFiles call defers; the index is built when the last one ends). */
  imports: number;
  /** Vectors written by the running imports. */
  written: number;
  /** How many they write before the index is dropped. */
  dropAfter: number;
  dropped: boolean;
}

const deferrals = new WeakMap<Store, Deferral>();

function spaceOf(ctx: EngineContext): VectorSpace | null {
  return ctx.embedder ? { modelId: ctx.embedder.modelId, dimensions: ctx.embedder.dimensions } : null;
}

/** Runs an import of the owner's files, its episode vectors written as described above. */
export async function withVectorIndexDeferred<T>(ctx: EngineContext, ownerId: string, run: () => Promise<T>): Promise<T> {
  const space = spaceOf(ctx);
  if (!space) return run();
  let d = deferrals.get(ctx.store);
  if (!d) {
    const had = await ctx.store.read.vectors.count(ownerId, space.modelId);
    // Another import may have begun while this one counted: join it.
    d = deferrals.get(ctx.store) ?? { imports: 0, written: 0, dropAfter: Math.max(DROP_AFTER, had), dropped: false };
    deferrals.set(ctx.store, d);
  }
  d.imports++;
  try {
    return await run();
  } finally {
    if (--d.imports === 0) {
      deferrals.delete(ctx.store);
      // What the import stored stands either way: a build that fails (the engine closing under it) is
      // done at the next open.
      if (d.dropped)
        await ctx.store
          .transaction((r) => r.vectors.ensureIndex(space))
          .catch((e: unknown) => ctx.warn(`the vector index is built at the next start: ${e instanceof Error ? e.message : String(e)}`));
    }
  }
}

/**
 * In the transaction that writes `count` episode vectors, before it writes them: the model's index is
 * ensured (created the first time a model is used), or, in an import that has written enough, dropped.
 */
export async function prepareVectorIndex(ctx: EngineContext, r: Repos, count: number): Promise<void> {
  const space = spaceOf(ctx);
  if (!space) return;
  const d = deferrals.get(ctx.store);
  if (d && !d.dropped && d.written + count > d.dropAfter) {
    await r.vectors.dropIndex(space);
    d.dropped = true;
  } else if (!d?.dropped) await r.vectors.ensureIndex(space);
  if (d) d.written += count;
}
