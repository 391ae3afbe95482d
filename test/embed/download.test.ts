/**
 * The download path, end to end, against a Hub-compatible mirror on 127.0.0.1 that serves
 * the tiny model (`/<model>/resolve/main/<file>`), as NEMORI_HF_MIRROR would point to.
 */
import { env } from '@huggingface/transformers';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MANIFEST_FILE, readManifest } from '../../core/embed/model-manifest.js';
import { resolveModelSource } from '../../core/embed/model-source.js';
import { loadedPipelines, openEmbedder, type ModelProgress } from '../../core/embed/transformers-embedder.js';
import { cosine, TINY_MODEL_DIR, tinyModelOptions } from '../fixtures/tiny-model/index.js';
import { startModelMirror, type ModelMirror } from '../helpers/model-mirror.js';
import { failure } from './embed-failure.js';

let server: ModelMirror;
let mirror: string;
let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'nemori-embed-download-'));
  server = await startModelMirror();
  mirror = server.url;
});

afterAll(async () => {
  await server.close();
  await rm(tmp, { recursive: true, force: true });
});

function downloadOptions(dataDir: string, extra: Parameters<typeof openEmbedder>[0] = {}): Parameters<typeof openEmbedder>[0] {
  return { modelId: 'nemori-tiny', dataDir, allowDownload: true, environment: { NEMORI_HF_MIRROR: mirror }, ...extra };
}

describe('downloading the model on first use', () => {
  it('downloads into <dataDir>/models with progress, records checksums, and later opens offline', async () => {
    const dataDir = join(tmp, 'first-use');
    const progress: ModelProgress[] = [];
    const embedder = await openEmbedder(downloadOptions(dataDir, { onProgress: (p) => progress.push(p) }));

    // Downloads land under the app's data dir, never in transformers.js' own cache in node_modules.
    const modelDir = join(dataDir, 'models', 'nemori-tiny');
    expect((await stat(join(modelDir, 'onnx', 'model.onnx'))).isFile()).toBe(true);
    expect(existsSync(join(env.cacheDir ?? '', 'nemori-tiny'))).toBe(false);
    const manifest = await readManifest(modelDir);
    expect(manifest).toEqual(await readManifest(TINY_MODEL_DIR));
    expect(server.requests.some((r) => r.endsWith('/onnx/model.onnx'))).toBe(true);
    expect(progress).toContainEqual({ status: 'done', file: 'onnx/model.onnx' });
    expect(progress.some((p) => p.status === 'progress' && p.total > 0)).toBe(true);

    const reference = await openEmbedder(tinyModelOptions());
    const [downloaded] = await embedder.embed(['I adore hiking in the mountains'], 'passage');
    const [committed] = await reference.embed(['I adore hiking in the mountains'], 'passage');
    expect(cosine(downloaded!, committed!)).toBeCloseTo(1, 6);
    await Promise.all([embedder.dispose(), reference.dispose()]);

    // Second open: downloading off, mirror untouched, files verified against the manifest.
    const seen = server.requests.length;
    const source = await resolveModelSource({ modelId: 'nemori-tiny', dataDir, environment: {} });
    expect(source.kind).toBe('cache');
    const offline = await openEmbedder({ modelId: 'nemori-tiny', dataDir, environment: {} });
    expect((await offline.embed(['back offline'], 'query'))[0]).toHaveLength(384);
    await offline.dispose();
    expect(server.requests.length).toBe(seen);
  });

  it('catches a downloaded file that was damaged afterwards, without the network', async () => {
    const dataDir = join(tmp, 'tampered');
    await (await openEmbedder(downloadOptions(dataDir))).dispose();
    const onnx = join(dataDir, 'models', 'nemori-tiny', 'onnx', 'model.onnx');
    const handle = await open(onnx, 'r+');
    await handle.write(Buffer.from([0x42]), 0, 1, 1000);
    await handle.close();

    const error = await failure(openEmbedder({ modelId: 'nemori-tiny', dataDir, environment: {} }));
    expect(error.code).toBe('MODEL_CHECKSUM_MISMATCH');
    expect(error.message).toContain('onnx/model.onnx');
    expect(error.message).toContain(`Delete ${join(dataDir, 'models', 'nemori-tiny')}`);
  });

  it('rejects and removes a download that does not match a known checksum, then recovers', async () => {
    const dataDir = join(tmp, 'bad-download');
    const pinned = (await readManifest(TINY_MODEL_DIR))?.files['onnx/model.onnx']?.sha256 ?? '';
    server.corruptOnnx = true;
    try {
      const error = await failure(openEmbedder(downloadOptions(dataDir, { checksums: { 'onnx/model.onnx': pinned } })));
      expect(error.code).toBe('MODEL_CHECKSUM_MISMATCH');
      expect(error.message).toContain('onnx/model.onnx');
    } finally {
      server.corruptOnnx = false;
    }
    const modelDir = join(dataDir, 'models', 'nemori-tiny');
    await expect(stat(join(modelDir, 'onnx', 'model.onnx'))).rejects.toThrow();
    await expect(stat(join(modelDir, MANIFEST_FILE))).rejects.toThrow();
    expect(loadedPipelines()).toHaveLength(0);

    // The mirror is fixed: the next open downloads again and succeeds.
    const embedder = await openEmbedder(downloadOptions(dataDir, { checksums: { 'onnx/model.onnx': pinned } }));
    expect((await embedder.embed(['fixed'], 'passage'))[0]).toHaveLength(384);
    await embedder.dispose();
  });

  it('reports an unreachable mirror as MODEL_UNAVAILABLE with what to try', async () => {
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((done) => closed.close(done));

    const error = await failure(
      openEmbedder({
        modelId: 'nemori-tiny',
        dataDir: join(tmp, 'unreachable'),
        allowDownload: true,
        mirror: `http://127.0.0.1:${port}/`,
        environment: {},
      }),
    );
    expect(error.code).toBe('MODEL_UNAVAILABLE');
    expect(error.message).toContain('could not download embedding model nemori-tiny');
    expect(error.message).toContain('NEMORI_HF_MIRROR');
    expect(loadedPipelines()).toHaveLength(0);
  });
});
