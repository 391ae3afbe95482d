import type { Embedder } from '../embed/embedder.js';

/**
 * The vectors of the last queries, per model. A companion's loadContext searches its facts and then
 * its episodes with the same opening message, and a query that names a date searches that period
 * again: one question was embedded two to four times, each a model run of tens of milliseconds on a
 * laptop's CPU. Kept as promises, so searches asking at once share one run; a failure is not kept.
 */
const RECENT = 32;
const recentByModel = new WeakMap<Embedder, Map<string, Promise<Float32Array>>>();

export function queryVector(embedder: Embedder, text: string): Promise<Float32Array> {
  let recent = recentByModel.get(embedder);
  if (!recent) recentByModel.set(embedder, (recent = new Map()));
  const known = recent.get(text);
  if (known) {
    // Most recently used last, so the oldest is the first to go.
    recent.delete(text);
    recent.set(text, known);
    return known;
  }
  const vector = embedder.embed([text], 'query').then((vs) => vs[0]!);
  recent.set(text, vector);
  if (recent.size > RECENT) recent.delete(recent.keys().next().value!);
  const kept = recent;
  vector.catch(() => {
    if (kept.get(text) === vector) kept.delete(text);
  });
  return vector;
}
