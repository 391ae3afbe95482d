import type { EngineContext } from '../../context/engine-context.js';
import { NemoriError } from '../../domain/errors.js';
import { KeyError, type FactLink, type Fact } from '../../domain/fact.js';
import { relatedKnowledge, type RelatedFact } from '../../facts/relationships.js';
import {
  capacityInfo,
  findFact,
  forgetFacts,
  getVersion,
  memorize,
  summarizeFacts,
  undeleteFact,
  upsertFact,
  type WriteOutcome,
} from '../../facts/manage.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import type { knowledgeOperations, EpisodeRef } from '../knowledge-contract.js';
import type { Handlers, HandlerEnv } from '../handler.js';
import { factVersionView, factView, messageView } from '../views.js';
import { searchItems } from '../search-results.js';
import { askedHere } from '../../retrieval/query-time.js';

type KnowledgeOps = keyof typeof knowledgeOperations;

/** Key errors are input errors: the person wrote a key that means nothing. */
async function keyed<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof KeyError) throw new NemoriError('INVALID_INPUT', e.message);
    throw e;
  }
}

async function episodeRefs(ctx: EngineContext, ownerId: string, ids: readonly string[]): Promise<Map<string, EpisodeRef>> {
  const episodes = await ctx.store.read.episodes.searchResults(ownerId, [...new Set(ids)]);
  return new Map(
    episodes.map((e) => [e.id, { id: e.id, title: e.title, start: e.temporal.start.toISOString(), utcOffsetMin: e.temporal.utcOffsetMin }]),
  );
}

function byRole(links: readonly FactLink[], refs: Map<string, EpisodeRef>, roles: readonly FactLink['role'][]): EpisodeRef[] {
  const ids = [...new Set(links.filter((l) => roles.includes(l.role)).map((l) => l.episodeId))];
  return ids.flatMap((id) => refs.get(id) ?? []).sort((a, b) => a.start.localeCompare(b.start));
}

function written(o: WriteOutcome) {
  return {
    id: o.node.id,
    key: o.node.key,
    version: o.node.version,
    action: o.action,
    previousValue: o.previousValue,
    evicted: o.evicted,
    fact: factView(o.node),
  };
}

async function related(ctx: EngineContext, ownerId: string, node: Fact, depth: 1 | 2) {
  const r = await relatedKnowledge(ctx, ownerId, node.id, depth);
  const refs = await episodeRefs(
    ctx,
    ownerId,
    [...r.direct, ...r.indirect].flatMap((x) => (x.relationship.discoveryEpisodeId ? [x.relationship.discoveryEpisodeId] : [])),
  );
  const view = (x: RelatedFact) => ({
    fact: factView(x.node),
    type: x.relationship.type,
    strength: x.relationship.strength,
    description: x.relationship.description,
    discoveryEpisode: (x.relationship.discoveryEpisodeId && refs.get(x.relationship.discoveryEpisodeId)) || null,
    via: x.via,
  });
  return { direct: r.direct.map(view), indirect: r.indirect.map(view) };
}

export function knowledgeHandlers({ ctx, discovery }: HandlerEnv): Handlers<KnowledgeOps> {
  const read = () => ctx.store.read;
  const fact = (ownerId: string, key: string) => keyed(() => findFact(ctx, ownerId, key));
  return {
    async listKnowledge(i) {
      const page = await read().facts.list(i.ownerId, {
        entityType: i.entityType,
        tiers: i.tier === 'trash' ? ['trash'] : ['active', 'archived'],
        limit: i.limit + 1,
        before: i.cursor ? decodeCursor(i.cursor) : undefined,
      });
      const facts = page.slice(0, i.limit);
      const last = facts.at(-1);
      return {
        facts: facts.map(factView),
        entityTypes: await read().facts.entityTypes(i.ownerId),
        nextCursor: page.length > i.limit && last ? encodeCursor(last.updatedAt, last.id) : null,
      };
    },

    async getKnowledge(i) {
      const node = await fact(i.ownerId, i.key);
      const [versions, links, sources] = await Promise.all([
        read().factVersions.list(i.ownerId, node.id),
        read().factLinks.ofFacts(i.ownerId, [node.id]),
        read().factVersions.sourceMessages(i.ownerId, [node.id]),
      ]);
      const refs = await episodeRefs(ctx, i.ownerId, [
        ...links.map((l) => l.episodeId),
        ...versions.flatMap((v) => (v.episodeId ? [v.episodeId] : [])),
      ]);
      // Opening a fact is recalling it (access tracking feeds LRU eviction).
      await ctx.store.transaction((r) => r.facts.recordAccess(i.ownerId, [{ id: node.id, relevance: node.relevance }], ctx.clock.now()));
      const messages = await read().conversations.messagesByIds(i.ownerId, sources.get(node.id) ?? []);
      return {
        fact: factView(node),
        timeline: versions.map((v) => ({ ...factVersionView(v), episode: (v.episodeId && refs.get(v.episodeId)) || null })),
        discoveryEpisode: (node.discoveryEpisodeId && refs.get(node.discoveryEpisodeId)) || null,
        linkedEpisodes: byRole(links, refs, ['discovery', 'linked']),
        evolutionEpisodes: byRole(links, refs, ['evolution']),
        sources: messages.map(messageView),
        related: await related(ctx, i.ownerId, node, 2),
      };
    },

    async getKnowledgeVersion(i) {
      const { node, version } = await keyed(() => getVersion(ctx, i.ownerId, i.key, i.version));
      return { fact: factView(node), version: factVersionView(version) };
    },

    async relatedKnowledge(i) {
      return related(ctx, i.ownerId, await fact(i.ownerId, i.key), i.depth);
    },

    async episodeKnowledge(i) {
      if (!(await read().episodes.get(i.ownerId, i.id))) throw new NemoriError('NOT_FOUND', `no episode ${i.id}`);
      const links = await read().factLinks.ofEpisodes(i.ownerId, [i.id]);
      const nodes = await read().facts.byIds(i.ownerId, [...new Set(links.map((l) => l.nodeId))]);
      return {
        episodeId: i.id,
        facts: nodes
          .sort((a, b) => a.key.localeCompare(b.key))
          .map((n) => ({ fact: factView(n), roles: [...new Set(links.filter((l) => l.nodeId === n.id).map((l) => l.role))] })),
      };
    },

    async upsertKnowledge(i) {
      return written(await keyed(() => upsertFact(ctx, i.ownerId, i.key, i.value, i.metadata)));
    },

    async memorize(i) {
      return written(await keyed(() => memorize(ctx, i.ownerId, i.value, i.key, i.metadata)));
    },

    async remember(i) {
      const facts = {
        entityTypes: i.entityTypes,
        tags: i.tags,
        source: i.source,
        minConfidence: i.minConfidence,
        minImportance: i.minImportance,
      };
      const out = await searchItems(ctx, {
        ownerId: i.ownerId,
        text: i.prompt,
        mode: i.mode,
        limit: i.limit,
        episodes: null,
        facts,
        markAccessed: true,
      });
      return { items: out.items.flatMap((x) => (x.kind === 'semantic' ? [x] : [])), mode: out.modeUsed, warnings: out.warnings };
    },

    async forgetKnowledge(i) {
      const nodes = await keyed(() => forgetFacts(ctx, i.ownerId, i.instruction, i.mode));
      const { usage } = await capacityInfo(ctx, i.ownerId);
      return { mode: i.mode, forgotten: nodes.map((n) => ({ id: n.id, key: n.key, version: n.version })), store: usage };
    },

    async undeleteKnowledge(i) {
      return factView(await keyed(() => undeleteFact(ctx, i.ownerId, i.key)));
    },

    async summarizeKnowledge(i) {
      const s = await summarizeFacts(ctx, i.ownerId, i.scope, i.tokenLimit, i.asOf);
      return { summary: s.summary, tokens: s.tokens, keys: s.included.map((n) => n.key), left: s.left };
    },

    async knowledgeCapacity(i) {
      const c = await capacityInfo(ctx, i.ownerId);
      const next = c.nextEviction;
      return {
        ...c.usage,
        maxItems: c.limits.maxItems,
        maxTokens: c.limits.maxTokens,
        thresholds: c.thresholds,
        policy: `LRU + importance: facts at or above ${c.thresholds.high} (or marked important) are never evicted; below ${c.thresholds.low} go first, then the least recently used`,
        over: c.usage.items > c.limits.maxItems || c.usage.tokens > c.limits.maxTokens,
        nextEviction: next && {
          id: next.id,
          key: next.key,
          importance: next.importance,
          lastUsed: (next.lastAccessed ?? next.updatedAt).toISOString(),
        },
        discoveryQueue: await read().discoveryQueue.size(i.ownerId),
      };
    },

    async enhancedQuery(i) {
      const base = {
        ownerId: i.ownerId,
        text: i.query,
        mode: i.mode,
        limit: i.limit,
        markAccessed: false,
        asked: askedHere(ctx.clock.now()),
      };
      const facts = () => searchItems(ctx, { ...base, episodes: null, facts: {} });
      const episodes = () => searchItems(ctx, { ...base, episodes: {}, facts: null });
      let primary;
      let secondary = null;
      if (i.quality === 'factual') primary = await facts();
      else if (i.quality === 'contextual') primary = await episodes();
      else if (i.quality === 'comprehensive') [primary, secondary] = await Promise.all([facts(), episodes()]);
      else primary = await searchItems(ctx, { ...base, episodes: {}, facts: {} });
      const factIds = primary.items.flatMap((x) => (x.kind === 'semantic' ? [x.id] : []));
      const links = i.quality === 'comprehensive' || i.quality === 'balanced' ? await read().factLinks.ofFacts(i.ownerId, factIds) : [];
      const refs = await episodeRefs(
        ctx,
        i.ownerId,
        links.map((l) => l.episodeId),
      );
      return {
        quality: i.quality,
        primary: primary.items,
        secondary: secondary?.items ?? [],
        support: links.length
          ? factIds.map((id) => {
              const own = links.filter((l) => l.nodeId === id);
              return {
                factId: id,
                linkedEpisodes: byRole(own, refs, ['discovery', 'linked']),
                evolutionEpisodes: byRole(own, refs, ['evolution']),
              };
            })
          : [],
        warnings: [...new Set([...primary.warnings, ...(secondary?.warnings ?? [])])],
      };
    },

    async runDiscovery(i, o) {
      return discovery.run(i.ownerId, {
        limit: i.limit,
        signal: o.signal,
        onProgress: (done, total) => o.onProgress?.({ operation: 'runDiscovery', phase: 'discovery', done, total }),
      });
    },
  };
}
