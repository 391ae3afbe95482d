import { MAX_TOLD_MESSAGE_CHARS } from '../text/message-text.js';
import type { StoredMessage } from '../domain/conversation.js';
import { tokenize } from '../text/tokenize.js';
import type { SegmentConfig } from '../context/segment-config.js';

export type Segment = StoredMessage[];

function wordCount(whole: string): number {
  // Only what an episode tells of a message counts (and a 60 MB message is not scanned twice in full).
  const text = whole.length > MAX_TOLD_MESSAGE_CHARS ? whole.slice(0, MAX_TOLD_MESSAGE_CHARS) : whole;
  // CJK has no spaces: count each Han/kana/hangul character as a word so caps work in every language.
  const cjk = text.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu)?.length ?? 0;
  const latin = text
    .replace(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu, ' ')
    .split(/\s+/)
    .filter(Boolean).length;
  return cjk + latin;
}

/** Splits at silences longer than the gap: the one boundary that needs no model at all. */
export function splitByTimeGap(messages: readonly StoredMessage[], maxGapMinutes: number): Segment[] {
  const blocks: Segment[] = [];
  let current: Segment = [];
  for (const m of messages) {
    const prev = current.at(-1);
    if (prev && m.sentAt.getTime() - prev.sentAt.getTime() > maxGapMinutes * 60_000) {
      blocks.push(current);
      current = [];
    }
    current.push(m);
  }
  if (current.length) blocks.push(current);
  return blocks;
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0,
    na = 0,
    nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

function sparseCosine(a: Map<string, number>, b: Map<string, number>): number {
  let dot = 0,
    na = 0,
    nb = 0;
  for (const [t, x] of a) {
    na += x * x;
    dot += x * (b.get(t) ?? 0);
  }
  for (const y of b.values()) nb += y * y;
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/**
 * How alike the `window` messages before each gap are to the `window` after it (gap i = before message i).
 * With an embedding model the windows are mean vectors; without one they are term counts, which is
 * TextTiling as Hearst first described it.
 */
export function gapSimilarities(
  n: number,
  window: number,
  windowSimilarity: (l0: number, l1: number, r0: number, r1: number) => number,
): number[] {
  const sims: number[] = [];
  for (let i = 1; i < n; i++) sims.push(windowSimilarity(Math.max(0, i - window), i, i, Math.min(n, i + window)));
  return sims;
}

export function embeddingSimilarity(vectors: readonly Float32Array[]) {
  return (l0: number, l1: number, r0: number, r1: number) => {
    const mean = (from: number, to: number) => {
      const out = new Float32Array(vectors[0]!.length);
      for (let k = from; k < to; k++) for (let d = 0; d < out.length; d++) out[d]! += vectors[k]![d]!;
      return out;
    };
    return cosine(mean(l0, l1), mean(r0, r1));
  };
}

export function lexicalSimilarity(texts: readonly string[]) {
  const bags = texts.map((t) => tokenize(t));
  return (l0: number, l1: number, r0: number, r1: number) => {
    const bag = (from: number, to: number) => {
      const m = new Map<string, number>();
      for (let k = from; k < to; k++) for (const t of bags[k]!) m.set(t, (m.get(t) ?? 0) + 1);
      return m;
    };
    return sparseCosine(bag(l0, l1), bag(r0, r1));
  };
}

/**
 * TextTiling's cut choice: the depth of each similarity dip relative to the peaks around it, cut where
 * the depth passes the block's own cut-off (so the threshold adapts to each conversation and model),
 * deepest first, never leaving a piece under `minMessages`. Returns cut positions (cut before message i).
 */
export function topicShiftCuts(sims: readonly number[], c: SegmentConfig): number[] {
  const n = sims.length + 1;
  if (n < 2 * c.minMessages) return [];
  const depth = sims.map((s, j) => {
    let l = s,
      r = s;
    for (let k = j; k >= 0 && sims[k]! >= l; k--) l = sims[k]!;
    for (let k = j; k < sims.length && sims[k]! >= r; k++) r = sims[k]!;
    return l - s + (r - s);
  });
  const mean = depth.reduce((a, b) => a + b, 0) / depth.length;
  const sd = Math.sqrt(depth.reduce((a, b) => a + (b - mean) ** 2, 0) / depth.length);
  const cutoff = mean - c.depthFactor * sd;
  const candidates = depth
    .map((d, j) => ({ d, at: j + 1 }))
    .filter((x) => x.d > 0 && x.d > cutoff)
    .sort((a, b) => b.d - a.d);
  const cuts: number[] = [];
  for (const cand of candidates) {
    if ([0, ...cuts, n].every((p) => Math.abs(p - cand.at) >= c.minMessages)) cuts.push(cand.at);
  }
  return cuts.sort((a, b) => a - b);
}

/** Applies the size cap: evenly sized pieces, each within the message and word limits. */
export function capSize(block: Segment, c: SegmentConfig): Segment[] {
  const words = block.reduce((s, m) => s + wordCount(m.text), 0);
  const pieces = Math.max(Math.ceil(block.length / c.maxMessages), Math.ceil(words / c.maxWords), 1);
  if (pieces === 1) return [block];
  const out: Segment[] = [];
  // Cut on cumulative words so pieces carry similar amounts of text, not just similar message counts.
  const target = words / pieces;
  let current: Segment = [];
  let acc = 0;
  for (const m of block) {
    const w = wordCount(m.text);
    const full = current.length >= c.maxMessages || (current.length > 0 && acc + w / 2 > target);
    if (full && out.length < pieces - 1) {
      out.push(current);
      current = [];
      acc = 0;
    }
    current.push(m);
    acc += w;
  }
  if (current.length) out.push(current);
  return out.flatMap((s) => (s.length > c.maxMessages ? capSize(s, c) : [s]));
}

/**
 * Episode boundaries without an LLM: time gaps first, then topic shifts inside each block (by message
 * vectors when a model gave them, else by shared words), then the size cap.
 */
export function segmentMessages(
  messages: readonly StoredMessage[],
  c: SegmentConfig,
  vectorsOf?: (block: Segment) => readonly Float32Array[] | null,
): Segment[] {
  const out: Segment[] = [];
  for (const block of splitByTimeGap(messages, c.maxGapMinutes)) {
    let cuts: number[] = [];
    if (block.length >= 2 * c.minMessages) {
      const vectors = vectorsOf?.(block) ?? null;
      const similarity = vectors ? embeddingSimilarity(vectors) : lexicalSimilarity(block.map((m) => m.text));
      cuts = topicShiftCuts(gapSimilarities(block.length, c.window, similarity), c);
    }
    let from = 0;
    for (const at of [...cuts, block.length]) {
      out.push(...capSize(block.slice(from, at), c));
      from = at;
    }
  }
  return out;
}

export { wordCount };
