/**
 * The model runs in a worker thread: the engine's thread stays free while it embeds, the vectors are
 * the ones transformers.js gives on this thread, and a thread that dies or is ended fails the calls
 * waiting on it instead of leaving them waiting.
 */
import { env, pipeline, type FeatureExtractionPipeline, type Tensor } from '@huggingface/transformers';
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { meanPool } from '../../core/embed/mean-pool.js';
import { resolveModelSource } from '../../core/embed/model-source.js';
import { TINY_MODEL_ID } from '../../core/embed/model-specs.js';
import { startModelWorker } from '../../core/embed/model-worker.js';
import { openEmbedder } from '../../core/embed/transformers-embedder.js';
import { TINY_MODEL_DIR, tinyModelOptions } from '../fixtures/tiny-model/index.js';
import { failure } from './embed-failure.js';

const embedder = await openEmbedder(tinyModelOptions({ batchSize: 4096 }));
afterAll(() => embedder.dispose());

/** `n` different texts of about `words` words each. */
function longTexts(n: number, words: number): string[] {
  const vocabulary = ['hiking', 'mountain', 'coffee', 'weekend', 'river', 'garden', 'music', 'train', 'city', 'dinner'];
  return Array.from({ length: n }, (_, i) =>
    Array.from({ length: words }, (_, w) => vocabulary[(i * 7 + w * 3 + (w >> 2)) % vocabulary.length]).join(' '),
  );
}

/** The old way: the pipeline on this thread, texts batched by length, pooled by meanPool. */
async function onThisThread(pipe: FeatureExtractionPipeline, texts: readonly string[]): Promise<Float32Array[]> {
  const order = texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length);
  const inputs = pipe.tokenizer(
    order.map((i) => texts[i]!),
    { padding: true, truncation: true },
  );
  const outputs = (await pipe.model(inputs)) as Record<string, Tensor>;
  const hidden = outputs.last_hidden_state!;
  const pooled = meanPool(
    hidden.data as Float32Array,
    inputs.attention_mask.data as BigInt64Array,
    hidden.dims as [number, number, number],
  );
  const out = new Array<Float32Array>(texts.length);
  order.forEach((original, row) => (out[original] = pooled[row]!));
  return out;
}

describe('the model in its worker thread', () => {
  it('leaves this thread free while it embeds: a chain of 200 event-loop turns finishes first', async () => {
    const events: string[] = [];
    // One model run of 2,000 long texts (batch size 4,096): on this thread it would hold the event loop throughout.
    const embedding = embedder.embed(longTexts(2000, 120), 'passage').then(() => events.push('embedded'));
    let turns = 0;
    await new Promise<void>((resolve) => {
      const turn = () => {
        if (++turns === 200) {
          events.push('200 turns');
          resolve();
        } else setImmediate(turn);
      };
      setImmediate(turn);
    });
    await embedding;
    expect(events).toEqual(['200 turns', 'embedded']);
  });

  it('runs a request of one batch between the batches of a longer one: a query is not held up by an import', async () => {
    const batched = await openEmbedder(tinyModelOptions({ batchSize: 8 }));
    try {
      const done: string[] = [];
      const alone = await batched.embed(['when is the dentist?'], 'query');
      // 250 model runs of 8 texts, then a query (the thread has the two requests in that order).
      const bulk = batched.embed(longTexts(2000, 60), 'passage').then((v) => {
        done.push('bulk');
        return v;
      });
      const query = batched.embed(['when is the dentist?'], 'query').then((v) => {
        done.push('query');
        return v;
      });
      const [bulkVectors, queryVectors] = await Promise.all([bulk, query]);
      expect(done).toEqual(['query', 'bulk']);
      // Both as they would be alone.
      expect(Array.from(queryVectors[0]!)).toEqual(Array.from(alone[0]!));
      expect(bulkVectors).toHaveLength(2000);
      expect(Array.from(bulkVectors[7]!)).toEqual(Array.from((await batched.embed(longTexts(2000, 60), 'passage'))[7]!));
    } finally {
      await batched.dispose();
    }
  });

  it('gives exactly the vectors transformers.js gives on this thread', async () => {
    env.allowLocalModels = true;
    env.allowRemoteModels = false;
    env.localModelPath = dirname(TINY_MODEL_DIR);
    const pipe = await pipeline('feature-extraction', TINY_MODEL_ID, { dtype: 'fp32', device: 'cpu', local_files_only: true });
    try {
      const texts = ['I adore hiking in the mountains', 'short', '', '我喜欢爬山', ...longTexts(20, 30)];
      const here = await onThisThread(pipe, texts);
      const there = await embedder.embed(texts, 'passage');
      expect(there).toHaveLength(texts.length);
      there.forEach((v, i) => expect(Array.from(v), texts[i]).toEqual(Array.from(here[i]!)));
    } finally {
      await pipe.dispose();
    }
  });

  it('ends the thread with the last embedder of its model: the call waiting on it fails, as does every later one', async () => {
    // Its own copy of the model: one folder, one thread, not shared with `embedder`. Ended again and
    // again at other points of its runs, one text each: the process must live through every one.
    const copy = join(mkdtempSync(join(tmpdir(), 'nemori-model-copy-')), TINY_MODEL_ID);
    cpSync(TINY_MODEL_DIR, copy, { recursive: true });
    for (const wait of [0, 1, 3, 7, 15, 30]) {
      const own = await openEmbedder(tinyModelOptions({ modelDir: copy, batchSize: 1 }));
      const waiting = failure(own.embed(longTexts(500, 60), 'passage'));
      await new Promise((resolve) => setTimeout(resolve, wait));
      await own.dispose();
      expect((await waiting).code).toBe('EMBEDDER_DISPOSED');
      expect((await failure(own.embed(['again'], 'query'))).code).toBe('EMBEDDER_DISPOSED');
    }
    expect(await embedder.embed(['the other model goes on'], 'query')).toHaveLength(1);
  });

  it('ends the thread only between two model runs: the run under way finishes first', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nemori-worker-log-'));
    const source = { ...(await resolveModelSource(tinyModelOptions())), dir };
    const worker = await startModelWorker(source, { entry: new URL('./fixtures/recording-worker.mjs', import.meta.url) });
    const waiting = failure(worker.embed(['hello'], 32));
    await worker.terminate();
    expect((await waiting).code).toBe('EMBEDDER_DISPOSED');
    expect(readFileSync(join(dir, 'log'), 'utf8').trim().split('\n')).toEqual(['run started', 'run finished', 'asked to end']);
  });

  it.each([
    ['throws', 'the model runtime fell over'],
    ['exits', 'exit code 3'],
  ])('turns a thread that dies (%s) into EMBEDDER_CRASHED for the call waiting and every later one', async (how, why) => {
    const source = { ...(await resolveModelSource(tinyModelOptions())), modelId: how };
    let crashes = 0;
    const worker = await startModelWorker(source, {
      entry: new URL('./fixtures/dying-worker.mjs', import.meta.url),
      onCrash: () => crashes++,
    });
    const first = await failure(worker.embed(['hello'], 32));
    expect(first.code).toBe('EMBEDDER_CRASHED');
    expect(first.message).toContain(why);
    expect(first.message).toContain(how);
    expect((await failure(worker.embed(['hello again'], 32))).code).toBe('EMBEDDER_CRASHED');
    expect(crashes).toBe(1);
    await worker.terminate();
  });
});
