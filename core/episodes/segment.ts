import type { StoredMessage } from '../domain/conversation.js';
import type { SegmentConfig } from './config.js';

export type Segment = StoredMessage[];

function wordCount(text: string): number {
  // CJK has no spaces: count each Han/kana/hangul character as a word so caps work in every language.
  const cjk = text.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu)?.length ?? 0;
  const latin = text.replace(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu, ' ').split(/\s+/).filter(Boolean).length;
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

function meanVector(vs: readonly Float32Array[]): Float32Array {
  const out = new Float32Array(vs[0]!.length);
  for (const v of vs) for (let i = 0; i < v.length; i++) out[i]! += v[i]!;
  return out;
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/**
 * TextTiling over message embeddings: the similarity of the windows either side of every gap, then the
 * depth of each dip relative to the peaks around it. Returns the gap indexes (cut before message i)
 * whose depth passes the block's own cut-off.
 */
export function topicShiftCuts(vectors: readonly Float32Array[], c: SegmentConfig): number[] {
  const n = vectors.length;
  if (n < 2 * c.minMessages) return [];
  const sims: number[] = [];
  for (let i = 1; i < n; i++) {
    const left = vectors.slice(Math.max(0, i - c.window), i);
    const right = vectors.slice(i, Math.min(n, i + c.window));
    sims.push(cosine(meanVector(left), meanVector(right)));
  }
  const depth = sims.map((s, j) => {
    let l = s, r = s;
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
    const points = [0, ...cuts, n].sort((a, b) => a - b);
    const ok = points.every((p) => Math.abs(p - cand.at) >= c.minMessages);
    if (ok) cuts.push(cand.at);
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
 * Episode boundaries without an LLM: time gaps first, then topic shifts (when message vectors are given)
 * inside each block, then the size cap.
 */
export function segmentMessages(
  messages: readonly StoredMessage[],
  c: SegmentConfig,
  vectorsOf?: (block: Segment) => readonly Float32Array[] | null,
): Segment[] {
  const out: Segment[] = [];
  for (const block of splitByTimeGap(messages, c.maxGapMinutes)) {
    const vectors = block.length >= 2 * c.minMessages ? vectorsOf?.(block) ?? null : null;
    const cuts = vectors ? topicShiftCuts(vectors, c) : [];
    let from = 0;
    for (const at of [...cuts, block.length]) {
      out.push(...capSize(block.slice(from, at), c));
      from = at;
    }
  }
  return out;
}

export { wordCount };
