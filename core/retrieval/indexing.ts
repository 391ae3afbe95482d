import type { Episode } from '../domain/episode.js';
import type { Bm25Doc, FieldVector, ImpactParams } from '../store/bm25.js';
import type { Repos } from '../store/store.js';
import { tokenize } from '../text/tokenize.js';

type Indexable = Pick<Episode, 'id' | 'title' | 'summary' | 'content' | 'metadata' | 'keywords'>;

/** The five BM25 fields of an episode, in store order. Keywords count as topics: both say what it is about. */
export function bm25Fields(e: Indexable): [string, string, string, string, string] {
  return [e.title, e.summary, e.metadata.entities.join(' \n '), [...e.metadata.topics, ...e.keywords].join(' \n '), e.content];
}

export function bm25Doc(e: Indexable): Bm25Doc {
  const terms = new Map<string, FieldVector>();
  const lengths: FieldVector = [0, 0, 0, 0, 0];
  bm25Fields(e).forEach((text, field) => {
    const tokens = tokenize(text);
    lengths[field] = tokens.length;
    for (const t of tokens) {
      let tf = terms.get(t);
      if (!tf) terms.set(t, (tf = [0, 0, 0, 0, 0]));
      tf[field]!++;
    }
  });
  return { episodeId: e.id, terms, lengths };
}

/** The text an embedding model sees for an episode: what it is about first, then the telling. */
export function embeddingText(e: Pick<Episode, 'title' | 'summary' | 'content'>): string {
  return `${e.title}\n${e.summary}\n${e.content}`;
}

export interface EpisodeVector {
  episodeId: string;
  vector: Float32Array;
}

/** Writes an episode's index entries; callers run it in the transaction that wrote the episode. */
export async function indexEpisodes(
  r: Repos,
  ownerId: string,
  episodes: readonly Indexable[],
  vectors: { modelId: string; rows: readonly EpisodeVector[] } | null,
  bm25: ImpactParams,
): Promise<void> {
  await r.bm25.add(ownerId, episodes.map(bm25Doc), bm25);
  if (vectors && vectors.rows.length > 0) await r.vectors.upsert(ownerId, vectors.modelId, vectors.rows);
}

export async function unindexEpisodes(r: Repos, ownerId: string, episodeIds: readonly string[]): Promise<void> {
  await r.bm25.remove(ownerId, episodeIds);
  await r.vectors.remove(ownerId, episodeIds);
}
