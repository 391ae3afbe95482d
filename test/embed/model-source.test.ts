import { cp, mkdtemp, open, rm, stat, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MANIFEST_FILE, readManifest } from '../../core/embed/model-manifest.js';
import { openDefaultEngine } from '../../core/engine/open-default.js';
import { probeEmbedder, resolveModelSource } from '../../core/embed/model-source.js';
import { DEFAULT_MODEL_ID } from '../../core/embed/model-specs.js';
import { loadedPipelines, openEmbedder } from '../../core/embed/transformers-embedder.js';
import { TINY_MODEL_DIR, tinyModelOptions } from '../fixtures/tiny-model/index.js';
import { failure } from './embed-failure.js';

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'nemori-embed-source-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** A private copy of the tiny model that a test may damage. */
async function copyOfTinyModel(name: string, { withManifest = true } = {}): Promise<string> {
  const dir = join(tmp, name, 'nemori-tiny');
  await cp(TINY_MODEL_DIR, dir, { recursive: true });
  if (!withManifest) await rm(join(dir, MANIFEST_FILE));
  return dir;
}

async function flipByte(path: string): Promise<void> {
  const { size } = await stat(path);
  const handle = await open(path, 'r+');
  try {
    const byte = Buffer.alloc(1);
    const at = Math.floor(size / 2);
    await handle.read(byte, 0, 1, at);
    byte[0] = (byte[0] ?? 0) ^ 0xff;
    await handle.write(byte, 0, 1, at);
  } finally {
    await handle.close();
  }
}

describe('finding the model', () => {
  it('fails with MODEL_UNAVAILABLE and an actionable message when NEMORI_MODEL_DIR points nowhere', async () => {
    const missing = join(tmp, 'no-such-folder');
    const error = await failure(openEmbedder({ modelId: 'nemori-tiny', environment: { NEMORI_MODEL_DIR: missing } }));
    expect(error.code).toBe('MODEL_UNAVAILABLE');
    expect(error.message).toContain('nemori-tiny');
    expect(error.message).toContain(missing);
    expect(error.message).toContain('NEMORI_MODEL_DIR');
    expect(loadedPipelines()).toHaveLength(0);
  });

  it('names the missing files of an incomplete model folder', async () => {
    const dir = await copyOfTinyModel('incomplete');
    await rm(join(dir, 'onnx'), { recursive: true });
    const error = await failure(openEmbedder(tinyModelOptions({ modelDir: dir })));
    expect(error.code).toBe('MODEL_UNAVAILABLE');
    expect(error.message).toContain('onnx/model.onnx');
  });

  it('explains that the default model is not downloaded and remote loading is off', async () => {
    const dataDir = join(tmp, 'data-no-download');
    const error = await failure(openEmbedder({ dataDir, environment: {} }));
    expect(error.code).toBe('MODEL_UNAVAILABLE');
    expect(error.message).toContain(`embedding model ${DEFAULT_MODEL_ID} is not downloaded and remote loading is off`);
    expect(error.message).toContain('NEMORI_MODEL_DIR');
    expect(error.message).toContain(join(dataDir, 'models'));
  });

  it('takes NEMORI_MODEL_DIR from the environment, as the model folder or a folder holding <modelId>/', async () => {
    const direct = await resolveModelSource({ modelId: 'nemori-tiny', environment: { NEMORI_MODEL_DIR: TINY_MODEL_DIR } });
    const parent = await resolveModelSource({
      modelId: 'nemori-tiny',
      environment: { NEMORI_MODEL_DIR: dirname(TINY_MODEL_DIR) },
    });
    for (const source of [direct, parent]) {
      expect(source).toMatchObject({ kind: 'dir', dir: TINY_MODEL_DIR, remoteHost: undefined, ownsDir: false });
    }
  });

  it('uses a model bundled with the app when present and falls through when it is not', async () => {
    const bundled = await resolveModelSource({ modelId: 'nemori-tiny', bundledDir: dirname(TINY_MODEL_DIR), environment: {} });
    expect(bundled).toMatchObject({ kind: 'dir', dir: TINY_MODEL_DIR, ownsDir: false });

    const emptyBundle = join(tmp, 'empty-resources-models');
    const dataDir = join(tmp, 'fallthrough-data');
    const remote = await resolveModelSource({ bundledDir: emptyBundle, dataDir, allowDownload: true, environment: {} });
    expect(remote).toMatchObject({ kind: 'remote', dir: join(dataDir, 'models', DEFAULT_MODEL_ID) });
  });

  it('rejects options that make no sense with INVALID_OPTIONS', async () => {
    const badMirror = await failure(openEmbedder(tinyModelOptions({ mirror: 'ftp://example.invalid' })));
    expect(badMirror.code).toBe('INVALID_OPTIONS');
    const badEnvMirror = await failure(resolveModelSource({ modelId: 'nemori-tiny', environment: { NEMORI_HF_MIRROR: 'not a url' } }));
    expect(badEnvMirror.code).toBe('INVALID_OPTIONS');
    expect(badEnvMirror.message).toContain('NEMORI_HF_MIRROR');
  });
});

describe('checksums', () => {
  it('detects a corrupted model file before loading it', async () => {
    const dir = await copyOfTinyModel('corrupt');
    await flipByte(join(dir, 'onnx', 'model.onnx'));
    const error = await failure(openEmbedder(tinyModelOptions({ modelDir: dir })));
    expect(error.code).toBe('MODEL_CHECKSUM_MISMATCH');
    expect(error.message).toContain('onnx/model.onnx');
    expect(error.message).toContain(dir);
    expect(loadedPipelines()).toHaveLength(0);
  });

  it('detects a truncated file from its recorded size', async () => {
    const dir = await copyOfTinyModel('truncated');
    await truncate(join(dir, 'tokenizer.json'), 100);
    const error = await failure(openEmbedder(tinyModelOptions({ modelDir: dir })));
    expect(error.code).toBe('MODEL_CHECKSUM_MISMATCH');
    expect(error.message).toContain('tokenizer.json');
  });

  it('treats a damaged manifest as a failed verification, not as "no manifest"', async () => {
    const dir = await copyOfTinyModel('bad-manifest');
    await truncate(join(dir, MANIFEST_FILE), 10);
    const error = await failure(openEmbedder(tinyModelOptions({ modelDir: dir })));
    expect(error.code).toBe('MODEL_CHECKSUM_MISMATCH');
    expect(error.message).toContain(MANIFEST_FILE);
  });

  it('checks pinned checksums when the folder has no manifest', async () => {
    const dir = await copyOfTinyModel('pinned', { withManifest: false });
    const wrong = await failure(openEmbedder(tinyModelOptions({ modelDir: dir, checksums: { 'onnx/model.onnx': '0'.repeat(64) } })));
    expect(wrong.code).toBe('MODEL_CHECKSUM_MISMATCH');

    const right = (await readManifest(TINY_MODEL_DIR))?.files['onnx/model.onnx']?.sha256;
    const embedder = await openEmbedder(tinyModelOptions({ modelDir: dir, checksums: { 'onnx/model.onnx': right ?? '' } }));
    expect((await embedder.embed(['pinned and verified'], 'passage'))[0]).toHaveLength(384);
    await embedder.dispose();
    // A folder we do not own is never written to.
    await expect(stat(join(dir, MANIFEST_FILE))).rejects.toThrow();
  });

  it('refuses a folder whose manifest says it holds another model', async () => {
    const dir = await copyOfTinyModel('other-model');
    const error = await failure(openEmbedder({ modelId: 'someone/other-model', modelDir: dir, environment: {} }));
    expect(error.code).toBe('MODEL_UNAVAILABLE');
    expect(error.message).toContain('holds embedding model nemori-tiny');
  });
});

describe('probeEmbedder', () => {
  it('reports an available model without loading it', async () => {
    const probe = await probeEmbedder(tinyModelOptions());
    expect(probe).toMatchObject({
      available: true,
      modelId: 'nemori-tiny',
      source: 'dir',
      location: TINY_MODEL_DIR,
      dimensions: 384,
      needsDownload: false,
      verifiable: true,
    });
    expect(loadedPipelines()).toHaveLength(0);
  });

  it('reports a missing model with the reason', async () => {
    const probe = await probeEmbedder({ environment: {} });
    expect(probe).toMatchObject({ available: false, modelId: DEFAULT_MODEL_ID, source: 'none', dimensions: 384 });
    expect(probe.reason).toContain('remote loading is off');
  });

  it('names the model it could not load when an engine opens without it (Settings and `nemori data` show it)', async () => {
    const engine = await openDefaultEngine({
      home: join(tmp, 'no-model-home'),
      embeddings: 'auto',
      env: { NEMORI_ALLOW_DOWNLOAD: '0', NEMORI_MODEL_DIR: join(tmp, 'nowhere') },
      warn: () => {},
    });
    try {
      expect((await engine.call('health', { checks: false })).embedding).toMatchObject({ available: false, modelId: DEFAULT_MODEL_ID });
      expect((await engine.call('getStartup', {})).embeddingModel).toBe(DEFAULT_MODEL_ID);
    } finally {
      await engine.close();
    }
  });

  it('reports a model that will be downloaded on first use', async () => {
    const dataDir = join(tmp, 'probe-data');
    const probe = await probeEmbedder({
      dataDir,
      allowDownload: true,
      environment: { NEMORI_HF_MIRROR: 'https://mirror.example/' },
    });
    expect(probe).toMatchObject({
      available: true,
      source: 'remote',
      needsDownload: true,
      location: join(dataDir, 'models', DEFAULT_MODEL_ID),
    });
    expect(probe.reason).toContain('https://mirror.example/');
  });
});
