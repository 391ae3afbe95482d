import type { Eviction } from './reports.js';
import type { EngineContext } from '../context/engine-context.js';

/**
 * Capacity retention: while the owner's facts exceed `maxItems` or `maxTokens`, evict whole facts
 * (every version) — unimportant ones (below `importanceLow`) first, then the least recently used.
 * Facts at or above `importanceHigh`, or marked important, are never evicted, nor are `keep` (the
 * facts the current write just stored). If only protected facts are left, the store stays over its
 * limit and says so.
 */
export async function enforceCapacity(ctx: EngineContext, ownerId: string, keep: readonly string[] = []): Promise<Eviction[]> {
  const cfg = ctx.config.semantic;
  const { maxItems, maxTokens } = cfg.capacity;
  const evicted: Eviction[] = [];
  for (;;) {
    const usage = await ctx.store.read.factForgetting.usage(ownerId, cfg.importanceHigh, cfg.importanceLow);
    const overItems = usage.items - maxItems;
    const overTokens = usage.tokens - maxTokens;
    if (overItems <= 0 && overTokens <= 0) return evicted;
    const candidates = await ctx.store.read.factForgetting.evictionOrder(
      ownerId,
      cfg.importanceHigh,
      cfg.importanceLow,
      Math.max(overItems, 1),
      keep,
    );
    if (candidates.length === 0) {
      ctx.warn(
        `semantic memory is over capacity (${usage.items}/${maxItems} facts, ${usage.tokens}/${maxTokens} tokens) but every remaining fact is protected`,
      );
      return evicted;
    }
    // Tokens: drop one at a time until under the limit; items: drop exactly the excess.
    const batch = overItems > 0 ? candidates : candidates.slice(0, 1);
    await ctx.store.transaction((r) =>
      r.facts.delete(
        ownerId,
        batch.map((n) => n.id),
      ),
    );
    for (const n of batch) {
      const why = overItems > 0 ? `over the limit of ${maxItems} facts` : `over the limit of ${maxTokens} tokens`;
      const order =
        n.importance < cfg.importanceLow
          ? `low importance ${n.importance.toFixed(2)}`
          : `least recently used (${(n.lastAccessed ?? n.updatedAt).toISOString().slice(0, 10)})`;
      evicted.push({ id: n.id, key: n.key, importance: n.importance, reason: `${why}: ${order}` });
    }
  }
}
