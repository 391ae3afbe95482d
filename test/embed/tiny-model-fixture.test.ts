import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MANIFEST_FILE, readManifest } from '../../core/embed/model-manifest.js';
import { generateTinyModel, TINY_MODEL_FILES } from '../fixtures/tiny-model/generate.js';
import { TINY_MODEL_DIR } from '../fixtures/tiny-model/index.js';

const temp: string[] = [];
afterAll(async () => {
  await Promise.all(temp.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('the nemori-tiny fixture model', () => {
  it('is what the generator writes, byte for byte (regenerate after editing the generator)', async () => {
    const out = await mkdtemp(join(tmpdir(), 'nemori-tiny-'));
    temp.push(out);
    await generateTinyModel(out);
    for (const file of [...TINY_MODEL_FILES, MANIFEST_FILE]) {
      const fresh = await readFile(join(out, file));
      const committed = await readFile(join(TINY_MODEL_DIR, file));
      expect(fresh.equals(committed), `${file} differs from a fresh generation`).toBe(true);
    }
  });

  it('stays small enough to commit', async () => {
    let total = 0;
    for (const file of [...TINY_MODEL_FILES, MANIFEST_FILE]) total += (await stat(join(TINY_MODEL_DIR, file))).size;
    expect(total).toBeLessThan(1.5 * 1024 * 1024);
  });

  it('ships a manifest that lists every model file', async () => {
    const manifest = await readManifest(TINY_MODEL_DIR);
    expect(manifest?.modelId).toBe('nemori-tiny');
    expect(Object.keys(manifest?.files ?? {}).sort()).toEqual([...TINY_MODEL_FILES].sort());
  });
});
