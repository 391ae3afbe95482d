import type { Handlers, HandlerEnv } from '../handler.js';
import { llmHealth } from './llm.js';

export function systemHandlers({ ctx, embeddingStatus }: HandlerEnv): Handlers<'stats' | 'health'> {
  const { store } = ctx;
  const ownerStats = async (ownerId: string) => {
    const c = await store.read.episodes.counts(ownerId);
    const embedded = ctx.embedder ? await store.read.vectors.count(ownerId, ctx.embedder.modelId) : 0;
    return { ownerId, conversations: c.conversations, messages: c.messages, episodes: c.episodes, embedded, lastWrite: c.lastWrite?.toISOString() ?? null };
  };

  return {
    async stats(i) {
      const owners = i.ownerId ? [i.ownerId] : await store.read.episodes.owners();
      return { owners: await Promise.all(owners.map(ownerStats)) };
    },

    async health() {
      const warnings: string[] = [];
      const owners = await Promise.all((await store.read.episodes.owners()).map(ownerStats));
      const embedding = embeddingStatus ?? {
        available: ctx.embedder !== null,
        modelId: ctx.embedder?.modelId ?? 'none',
        source: null,
        reason: ctx.embedder ? null : 'no embedding model configured',
      };
      if (!embedding.available) warnings.push(`embedding model unavailable (${embedding.reason ?? 'unknown reason'}): search is keyword-only`);
      // An LLM that does not answer is a warning, not ill health: episodes are then built without it.
      const llm = await llmHealth(ctx);
      if (llm.configured && (!llm.reachable || llm.error)) {
        warnings.push(`LLM ${llm.model} at ${llm.baseUrl}: ${llm.error?.message ?? 'not reachable'}; new episodes are built without it and marked for \`nemori rebuild --llm\``);
      }
      return {
        ok: true,
        home: store.dir,
        database: { status: 'ok' as const, schemaVersion: await store.schemaVersion(), openMs: store.openMs, sizeBytes: await store.sizeOnDisk() },
        embedding,
        llm,
        owners,
        warnings,
      };
    },
  };
}
