import { stemmer } from 'stemmer';
import { afterEach, describe, expect, it } from 'vitest';
import type { Embedder } from '../../core/embed/embedder.js';
import { isEmbedError } from '../../core/embed/errors.js';
import { resolveModelSource } from '../../core/embed/model-source.js';
import { DEFAULT_MODEL_ID, getModelSpec } from '../../core/embed/model-specs.js';
import { loadedPipelines, openEmbedder } from '../../core/embed/transformers-embedder.js';
import { STOPWORDS } from '../fixtures/tiny-model/concepts.js';
import { cosine, PARAPHRASE_PAIRS, TINY_MODEL_DIR, tinyModelOptions } from '../fixtures/tiny-model/index.js';
import { startModelMirror } from '../helpers/model-mirror.js';

const open: Embedder[] = [];
async function openTiny(extra: Parameters<typeof tinyModelOptions>[0] = {}): Promise<Embedder> {
  const embedder = await openEmbedder(tinyModelOptions(extra));
  open.push(embedder);
  return embedder;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.dispose()));
});

function norm(v: Float32Array): number {
  return Math.sqrt(v.reduce((s, x) => s + x * x, 0));
}

describe('TransformersEmbedder on the tiny model', () => {
  it('loads through the local-model path with remote loading off, without touching the network', async () => {
    const source = await resolveModelSource(tinyModelOptions());
    expect(source.kind).toBe('dir');
    expect(source.dir).toBe(TINY_MODEL_DIR);

    // Downloading allowed and a mirror named: a folder model is still read from disk only.
    const mirror = await startModelMirror();
    try {
      const embedder = await openTiny({ allowDownload: true, mirror: mirror.url });
      expect(embedder.modelId).toBe('nemori-tiny');
      await embedder.embed(['hello world'], 'passage');
      expect(mirror.requests).toEqual([]);
    } finally {
      await mirror.close();
    }
  });

  it('loads without a native image library: transformers.js gets a stand-in that refuses images', async () => {
    const embedder = await openTiny();
    const [v] = await embedder.embed(['hello world'], 'passage');
    expect(v).toHaveLength(embedder.dimensions);
    // The package transformers.js imports as `sharp` (package.json "overrides"); the real one would make an image pipeline here.
    const { default: sharp } = await import('sharp');
    expect(() => sharp()).toThrow(/text only/);
  });

  it('returns one unit-length 384-dimensional vector per text, in input order', async () => {
    const embedder = await openTiny();
    const texts = ['a much longer sentence about hiking in the mountains with friends', 'short', '', '我喜欢爬山'];
    const vectors = await embedder.embed(texts, 'passage');
    expect(embedder.dimensions).toBe(384);
    expect(vectors).toHaveLength(texts.length);
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(384);
      expect(v.every(Number.isFinite)).toBe(true);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
    // Order is kept even though texts are batched by length internally.
    const [alone] = await embedder.embed(['short'], 'passage');
    expect(cosine(alone!, vectors[1]!)).toBeCloseTo(1, 6);
    expect(await embedder.embed([], 'query')).toEqual([]);
  });

  it('gives the same vectors in batches as one by one', async () => {
    const texts = PARAPHRASE_PAIRS.flatMap((p) => [p.a, p.b, p.unrelated]);
    const batched = await (await openTiny({ batchSize: 4 })).embed(texts, 'passage');
    const single = await (await openTiny({ batchSize: 1 })).embed(texts, 'passage');
    texts.forEach((_, i) => {
      const a = batched[i]!;
      const b = single[i]!;
      expect(Math.max(...a.map((x, j) => Math.abs(x - (b[j] ?? 0))))).toBeLessThan(1e-5);
    });
  });

  it.each(PARAPHRASE_PAIRS.map((p) => [p.id, p] as const))('puts paraphrases closer than unrelated text (%s)', async (_id, pair) => {
    const embedder = await openTiny();
    const [a, b, unrelated] = await embedder.embed([pair.a, pair.b, pair.unrelated], 'passage');
    const paraphrase = cosine(a!, b!);
    expect(paraphrase).toBeGreaterThan(cosine(a!, unrelated!) + 0.2);
    expect(paraphrase).toBeGreaterThan(cosine(b!, unrelated!) + 0.2);
  });

  it('has paraphrase pairs that share no content word, so only vectors can match them', () => {
    // Terms as a lexical index sees them: stemmed words, one term per CJK character, stopwords dropped.
    const glue = new Set(STOPWORDS);
    const terms = (text: string): Set<string> =>
      new Set((text.toLowerCase().match(/\p{Script=Han}|[\p{L}\p{N}]+/gu) ?? []).filter((t) => !glue.has(t)).map((t) => stemmer(t)));
    for (const pair of PARAPHRASE_PAIRS) {
      const shared = [...terms(pair.a)].filter((t) => terms(pair.b).has(t));
      expect(shared, pair.id).toEqual([]);
    }
  });

  it('keeps words outside the vocabulary apart instead of mapping them all to one vector', async () => {
    const embedder = await openTiny();
    const [a, b, c] = await embedder.embed(
      ['xylophone quartet rehearsal', 'zygote mitochondria enzyme', 'blorptastic frumious bandersnatch'],
      'passage',
    );
    expect(cosine(a!, b!)).toBeLessThan(0.9);
    expect(cosine(a!, c!)).toBeLessThan(0.9);
    expect(cosine(b!, c!)).toBeLessThan(0.9);
  });

  it('adds no prefix for the tiny model, while multilingual-e5 gets query:/passage:', async () => {
    const embedder = await openTiny();
    const [q] = await embedder.embed(['cats and dogs'], 'query');
    const [p] = await embedder.embed(['cats and dogs'], 'passage');
    expect(cosine(q!, p!)).toBeCloseTo(1, 6);
    expect(getModelSpec(DEFAULT_MODEL_ID)).toMatchObject({ queryPrefix: 'query: ', passagePrefix: 'passage: ' });
  });
});

describe('pipeline sharing', () => {
  it('reuses one pipeline for the same model, even when opened concurrently', async () => {
    const [a, b] = await Promise.all([openTiny(), openTiny()]);
    const c = await openTiny({ batchSize: 2 });
    const loaded = loadedPipelines().filter((p) => p.modelId === 'nemori-tiny');
    expect(loaded).toHaveLength(1);
    expect(loaded[0]).toMatchObject({ dir: TINY_MODEL_DIR, refs: 3, source: 'dir', dtype: 'fp32' });
    const [va] = await a!.embed(['same pipeline'], 'passage');
    const [vc] = await c.embed(['same pipeline'], 'passage');
    expect(cosine(va!, vc!)).toBeCloseTo(1, 6);
    await b!.dispose();
    expect(loadedPipelines()[0]?.refs).toBe(2);
  });

  it('releases the pipeline when the last embedder is disposed', async () => {
    const a = await openEmbedder(tinyModelOptions());
    const b = await openEmbedder(tinyModelOptions());
    await a.dispose();
    await a.dispose(); // idempotent: must not release b's reference
    expect(loadedPipelines()).toHaveLength(1);
    await b.dispose();
    expect(loadedPipelines()).toHaveLength(0);

    const error = await a.embed(['after dispose'], 'query').catch((e: unknown) => e);
    expect(isEmbedError(error, 'EMBEDDER_DISPOSED')).toBe(true);

    // A later open loads a fresh pipeline that works.
    const again = await openTiny();
    expect((await again.embed(['back again'], 'query'))[0]).toHaveLength(384);
  });

  it('rejects a nonsensical batch size with INVALID_OPTIONS', async () => {
    const error = await openEmbedder(tinyModelOptions({ batchSize: 0 })).catch((e: unknown) => e);
    expect(isEmbedError(error, 'INVALID_OPTIONS')).toBe(true);
    expect(loadedPipelines()).toHaveLength(0);
  });
});
