/**
 * The seam every other module uses for embeddings. Implementations own a model
 * (one pipeline per model id) and are passed around in the engine context.
 */
export type EmbedKind = 'query' | 'passage';

export interface Embedder {
  /** Stable id of the model that produced the vectors, stored beside every vector. */
  readonly modelId: string;
  readonly dimensions: number;
  /** Unit-length vectors, one per input text, in input order. */
  embed(texts: readonly string[], kind: EmbedKind): Promise<Float32Array[]>;
  dispose(): Promise<void>;
}
