import type { EngineContext } from '../context/engine-context.js';
import type { SearchMode } from '../domain/search.js';
import { hasFilters, type EpisodeFilters, type SearchResultRow } from '../store/episodes.js';
import type { FactFilters, FactResultRow } from '../store/facts.js';
import { episodeEvidenceScores, periodHits, spokenOfBefore } from './pack.js';
import { besidesPeriods, namesOnlyPeriods, readPeriod, timeAnchors, type AskedAt, type ReadPeriod, type TimeAnchor } from './query-time.js';
import { episodeSource, factSource, searchMemories, type Hit, type SearchOutcome, type SearchSource } from './search.js';

/**
 * The retrieval service every caller shares (the search operation, remember, enhanced query, discovery's
 * context): search over episodes and/or facts, each hit with the stored record it points at, its scores
 * and provenance down to the source messages.
 */

export interface MemoryQuery {
  ownerId: string;
  text: string;
  mode: SearchMode;
  limit: number;
  episodes: EpisodeFilters | null;
  facts: FactFilters | null;
  markAccessed: boolean;
  /**
   * When a person (or their companion) asks: the periods the query names are read relative to then.
   * Without it (a fact's or an episode's own text as the query) only stated dates are read, and only
   * to weigh what was said then.
   */
  asked?: AskedAt | undefined;
}

/** A ranked hit with the record it found, best first. */
export type FoundMemory = { kind: 'episode'; hit: Hit; episode: SearchResultRow } | { kind: 'semantic'; hit: Hit; fact: FactResultRow };

export interface FoundMemories {
  found: FoundMemory[];
  modeUsed: SearchMode;
  warnings: string[];
  /** The periods the query named: what was said in and around them comes first. */
  periods: ReadPeriod[];
}

/**
 * Episode hits re-sorted by their message-level evidence (core/retrieval/pack.ts): those on the page
 * (the first `limit` hits) and, from the first `depth` hits below it, half as many again: those with
 * the strongest keyword match. The re-sort scores messages by the query's words, so a hit whose episode
 * matches them strongly is the one worth reading; one keyword search did not find has nothing for it to
 * score. LoCoMo dev, use-lite, 1000 words: a page of 10 0.719 re-sorted alone, 0.788 so, 0.790 with as
 * many again — which costs a 100k-episode hybrid search ~2 ms more, where half as many costs no more
 * than the noise. They keep the places episodes had among the hits, so facts stay where fusion put them.
 * Their rows are read here, with their messages, in the one query that reads the page's rows anyway.
 */
async function rerankEpisodes(
  ctx: EngineContext,
  ownerId: string,
  text: string,
  found: Hit[],
  { limit, depth, period }: { limit: number; depth: number; period: { anchors: readonly TimeAnchor[]; hits: readonly Hit[] } },
  termStats: SearchOutcome['termStats'],
): Promise<{ hits: Hit[]; rows: SearchResultRow[] }> {
  // The episodes of a period the query names join below the hits, and are re-sorted with the page.
  const during = new Map(period.hits.map((h) => [h.id, h.during]));
  const floor = found.at(-1)?.score ?? 0;
  const seen = new Set(found.map((h) => h.id));
  const fromPeriod = period.hits.filter((h) => !seen.has(h.id)).map((h) => ({ ...h, score: floor }));
  const hits = [...found.map((h) => (h.kind === 'episode' && during.has(h.id) ? { ...h, during: during.get(h.id) } : h)), ...fromPeriod];
  const isEpisode = (i: number) => hits[i]!.kind === 'episode';
  const page = hits.slice(0, Math.min(limit, depth)).flatMap((_, i) => (isEpisode(i) ? [i] : []));
  const below = hits
    .slice(0, depth)
    .flatMap((h, i) => (i >= limit && isEpisode(i) && h.bm25 !== null ? [i] : []))
    .sort((a, b) => hits[b]!.bm25! - hits[a]!.bm25! || a - b)
    .slice(0, Math.ceil(page.length / 2));
  const slots = [...new Set([...page, ...below, ...fromPeriod.map((_, j) => found.length + j)])].sort((a, b) => a - b);
  // What was said in and around a period the query names comes first: the person said when. Around
  // it, as the packer reads it (LoCoMo dev, use-lite, the search path: 0.709 / 0.786 / 0.856 at 500 /
  // 1000 / 2000 words; the exact period first: 0.702 / 0.784 / 0.856; no period first: 0.698 / 0.788 /
  // 0.856, where a question named with a relative phrase is read against the bench's clock).
  const periodFirst = (out: Hit[]) =>
    during.size ? out.sort((a, b) => Number(b.during !== undefined) - Number(a.during !== undefined)) : out;
  if (slots.length < 2) return { hits: periodFirst(hits), rows: [] };
  const rows = await ctx.store.read.episodes.searchResultsWithMessages(
    ownerId,
    slots.map((i) => hits[i]!.id),
  );
  // Every episode hit within the depth sets the scale of the episodes' own scores, read or not: the
  // last hit read would otherwise count as the worst and lose all of that share.
  const scale = hits.slice(0, depth).filter((h) => h.kind === 'episode');
  const scores = await episodeEvidenceScores(ctx, ownerId, text, scale, rows, termStats, period.anchors);
  const reordered = slots.map((i) => hits[i]!).sort((a, b) => (scores.get(b.id) ?? 0) - (scores.get(a.id) ?? 0) || b.score - a.score);
  const out = [...hits];
  slots.forEach((slot, j) => (out[slot] = reordered[j]!));
  return { hits: periodFirst(out), rows: rows.map(({ header: _, messages: __, ...row }) => row) };
}

/** Runs a search over episodes and/or facts and reads the records of the hits (in rank order). */
export async function findMemories(ctx: EngineContext, q: MemoryQuery): Promise<FoundMemories> {
  const { store } = ctx;
  const { asked } = q;
  // The dates a query states weigh what was said then; a person's query also names periods relative
  // to when it is asked ("dinner last week", "上周"), and those are searched too, unless the caller set
  // the dates.
  const anchors = q.episodes ? await timeAnchors(q.text, asked) : [];
  const named = asked && !q.episodes?.since && !q.episodes?.until ? anchors : [];
  const periods = asked ? named.map((a) => readPeriod(a, asked)) : [];
  // What the query asks about besides when: the words naming the period would find whatever says "week".
  const text = besidesPeriods(q.text, named);
  // A query that names a period and nothing to look up in it ("what did I do last weekend?") lists
  // the period's episodes; so does one whose words find nothing at all.
  const ranked = namesOnlyPeriods(q.text, named) ? null : await rankedHits(ctx, { ...q, text }, { anchors, named });
  const { hits, known, modeUsed, warnings } =
    ranked && (ranked.hits.length > 0 || periods.length === 0)
      ? ranked
      : { ...(await periodEpisodes(ctx, q, periods, named)), modeUsed: ranked?.modeUsed ?? q.mode, warnings: ranked?.warnings ?? [] };
  const ids = (kind: Hit['kind']) => hits.filter((h) => h.kind === kind).map((h) => h.id);
  const read = store.read;
  const episodeIds = ids('episode');
  const factIds = ids('semantic');
  const have = new Set(known.map((e) => e.id));
  const [more, facts] = await Promise.all([
    read.episodes.searchResults(
      q.ownerId,
      episodeIds.filter((id) => !have.has(id)),
    ),
    read.facts.searchResults(q.ownerId, factIds),
  ]);
  const episodes = [...known, ...more];
  // Nothing found, nothing recalled: no transaction (each one also clears what the store remembers until the next write).
  if (q.markAccessed && hits.length > 0) {
    await store.transaction(async (r) => {
      const now = ctx.clock.now();
      await r.episodes.recordAccess(q.ownerId, episodeIds, now);
      await r.facts.recordAccess(
        q.ownerId,
        hits.filter((h) => h.kind === 'semantic').map((h) => ({ id: h.id, relevance: h.score })),
        now,
      );
    });
  }
  const episodeById = new Map(episodes.map((e) => [e.id, e]));
  const factById = new Map(facts.map((f) => [f.id, f]));
  const found = hits.flatMap((hit): FoundMemory[] => {
    if (hit.kind === 'semantic') {
      const fact = factById.get(hit.id);
      return fact ? [{ kind: 'semantic', hit, fact }] : [];
    }
    const episode = episodeById.get(hit.id);
    return episode ? [{ kind: 'episode', hit, episode }] : [];
  });
  return { found, modeUsed, warnings, periods };
}

/** The hits of a search, best first, with the rows the re-sort read already. */
async function rankedHits(
  ctx: EngineContext,
  q: MemoryQuery,
  { anchors, named }: { anchors: readonly TimeAnchor[]; named: readonly TimeAnchor[] },
): Promise<{ hits: Hit[]; known: SearchResultRow[]; modeUsed: SearchMode; warnings: string[] }> {
  const sources: SearchSource[] = [];
  if (q.episodes) sources.push(episodeSource(ctx.store, q.ownerId, q.episodes, ctx.config.retrieval));
  if (q.facts) sources.push(factSource(ctx.store, q.ownerId, q.facts, ctx.config.retrieval));
  // The page is re-sorted with the hits just below it: a small page (a companion's search asks for 8)
  // re-sorted alone could only reorder what fusion put on it.
  const depth = q.episodes ? ctx.config.retrieval.rerankDepth : 0;
  // The periods' own searches run beside the search (their keyword halves while the query is embedded):
  // only the re-sort needs their hits.
  const inPeriods =
    q.episodes && named.length
      ? periodHits(ctx, q.ownerId, { text: q.text, mode: q.mode, anchors: named, filters: q.episodes, limit: Math.max(5, q.limit) })
      : Promise.resolve([]);
  inPeriods.catch(() => {});
  let known: SearchResultRow[] = [];
  const outcome = await searchMemories(
    { embedder: ctx.embedder, config: ctx.config.retrieval },
    {
      text: q.text,
      mode: q.mode,
      limit: q.limit,
      sources,
      resort:
        depth > 0
          ? {
              depth,
              by: async (hits, termStats) => {
                const period = { anchors, hits: await inPeriods };
                const r = await rerankEpisodes(ctx, q.ownerId, q.text, hits, { limit: q.limit, depth, period }, termStats);
                known = r.rows;
                return r.hits;
              },
            }
          : undefined,
    },
  );
  return { hits: outcome.hits, known, modeUsed: outcome.modeUsed, warnings: outcome.warnings };
}

/**
 * The episodes of the periods a query names and nothing else ("what did I do last weekend?", "上周"),
 * latest first: there is no topic to rank them by. Then, when no filter narrows the search, those
 * whose words speak of a day of the period before it came ("what did we plan for Wednesday?": the
 * talk on Monday that said "on Wednesday evening").
 */
async function periodEpisodes(
  ctx: EngineContext,
  q: MemoryQuery,
  periods: readonly ReadPeriod[],
  anchors: readonly TimeAnchor[],
): Promise<{ hits: Hit[]; known: SearchResultRow[] }> {
  const read = ctx.store.read.episodes;
  const named = periods.slice(0, 2);
  const lists = await Promise.all(
    named.map((p) => read.list(q.ownerId, { ...q.episodes, since: p.since, until: p.until, limit: q.limit })),
  );
  const during = new Map<string, { phrase: string; start: number }>();
  lists.forEach((list, i) => {
    for (const e of list) if (!during.has(e.id)) during.set(e.id, { phrase: named[i]!.phrase, start: e.temporal.start.getTime() });
  });
  const spokenOf: { id: string; phrase: string }[] = [];
  if (q.episodes && !hasFilters(q.episodes))
    for (const a of anchors.slice(0, 2))
      spokenOf.push(
        ...(await spokenOfBefore(ctx, q.ownerId, a, q.limit)).filter((id) => !during.has(id)).map((id) => ({ id, phrase: a.phrase })),
      );
  const hits = [...[...during.entries()].sort((a, b) => b[1].start - a[1].start).map(([id, { phrase }]) => ({ id, phrase })), ...spokenOf]
    .filter((h, k, all) => all.findIndex((o) => o.id === h.id) === k)
    .slice(0, q.limit)
    .map(({ id, phrase }): Hit => ({
      kind: 'episode',
      id,
      score: 1,
      bm25: null,
      similarity: null,
      matchedBy: [],
      matchedTerms: [],
      during: phrase,
    }));
  return { hits, known: [] };
}
