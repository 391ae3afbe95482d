import { createHash } from 'node:crypto';
import type { Embedder } from '../embed/embedder.js';

/**
 * The vectors of the last queries, per model. A companion's loadContext searches its facts and then
 * its episodes with the same opening message, and a query that names a date searches that period
 * again: one question was embedded two to four times, each a model run of tens of milliseconds on a
 * laptop's CPU. Kept as promises, so searches asking at once share one run; a failure is not kept.
 * Keyed by a digest of the text: what a person typed (a pasted key, say) is not kept for the life of
 * the process.
 */
const RECENT = 32;
const recentByModel = new WeakMap<Embedder, Map<string, Promise<Float32Array>>>();

export function queryVector(embedder: Embedder, text: string): Promise<Float32Array> {
  let recent = recentByModel.get(embedder);
  if (!recent) recentByModel.set(embedder, (recent = new Map()));
  const key = createHash('sha256').update(text).digest('base64');
  const known = recent.get(key);
  if (known) {
    // Most recently used last, so the oldest is the first to go.
    recent.delete(key);
    recent.set(key, known);
    return known;
  }
  const vector = embedder.embed([text], 'query').then((vs) => vs[0]!);
  recent.set(key, vector);
  if (recent.size > RECENT) recent.delete(recent.keys().next().value!);
  const kept = recent;
  vector.catch(() => {
    if (kept.get(key) === vector) kept.delete(key);
  });
  return vector;
}
