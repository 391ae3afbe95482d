/** Progress of long work (imports, discovery, rebuilds), as data a window or the CLI words in its own language. */
export interface Progress {
  phase: string;
  done: number;
  total: number;
  facts?: ProgressFacts;
}

/** Facts about a step as data, for each window (or the CLI) to put in its own words and language. */
export interface ProgressFacts {
  /** The file being read: its name, its place in the batch (from 1), and how many there are. */
  file?: { name: string; index: number; count: number };
  /** Episodes built so far. */
  episodes?: number;
  /** No embedding model: episodes are found by their words only, and there is nothing to embed. */
  keywordOnly?: true;
}
