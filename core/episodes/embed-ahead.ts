import type { EmbedKind, Embedder } from '../embed/embedder.js';

/**
 * An embedder that can be asked for a call before it is made: while one window's episodes are being
 * written, the model (in its own thread) already embeds the next window's messages (process.ts).
 * Only a call with exactly the texts started ahead takes that result, so every vector is the one the
 * same call would have given when made (same texts, same batches); any other call goes to the model.
 */
export interface EmbeddingAhead {
  /** The wrapped embedder, to build and store with. */
  readonly embedder: Embedder;
  /** Starts embedding these passages now; replaces what was started before and not taken. */
  start(texts: readonly string[]): void;
}

function sameTexts(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

export function embeddingAhead(model: Embedder): EmbeddingAhead {
  let ahead: { texts: readonly string[]; vectors: Promise<Float32Array[]> } | undefined;
  const embedder: Embedder = {
    modelId: model.modelId,
    dimensions: model.dimensions,
    embed(texts: readonly string[], kind: EmbedKind) {
      if (kind === 'passage' && ahead !== undefined && sameTexts(ahead.texts, texts)) {
        const { vectors } = ahead;
        ahead = undefined;
        return vectors;
      }
      return model.embed(texts, kind);
    },
    dispose: () => model.dispose(),
  };
  return {
    embedder,
    start(texts) {
      const vectors = model.embed(texts, 'passage');
      // A guess nobody takes (a cancel, another window than foreseen) must not be an unhandled rejection;
      // a call that takes it still gets its error.
      vectors.catch(() => undefined);
      ahead = { texts, vectors };
    },
  };
}
