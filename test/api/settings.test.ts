import fs from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../core/engine/open-engine.js';
import { openMemoryEngine, tempDir } from '../helpers/engine.js';

describe('the app settings', () => {
  it('persist in the store, apply at once, and lie under the options the host opened the engine with', async () => {
    const home = tempDir();
    const first = await openEngine({ home, embedder: null });
    expect(await first.call('getEngineSettings', {})).toEqual({
      forgetting: { enabled: true, archiveThreshold: 100, trashThreshold: 500, trashRetentionDays: 30 },
      knowledge: { maxFacts: 10_000, maxTokens: 1_000_000 },
      privacy: expect.objectContaining({ enabled: true, patterns: [] }),
      dataDir: home,
    });
    const set = await first.call('setEngineSettings', {
      forgetting: { trashRetentionDays: 7, archiveThreshold: 150 },
      knowledge: { maxFacts: 2 },
    });
    expect(set.forgetting).toEqual({ enabled: true, archiveThreshold: 150, trashThreshold: 500, trashRetentionDays: 7 });
    // Applied now: the third fact evicts the least valuable one.
    for (const k of ['a', 'b'])
      await first.call('upsertKnowledge', { key: `fact:${k}`, value: `fact ${k}`, metadata: { importance: 0.2 } });
    expect((await first.call('upsertKnowledge', { key: 'fact:c', value: 'fact c' })).evicted).toHaveLength(1);
    // A threshold pair that makes no sense is refused and changes nothing.
    await expect(first.call('setEngineSettings', { forgetting: { trashThreshold: 120, archiveThreshold: 200 } })).rejects.toThrow(
      /trash threshold must be above the archive threshold/,
    );
    expect((await first.call('getEngineSettings', {})).forgetting.archiveThreshold).toBe(150);
    await first.close();

    const again = await openEngine({ home, embedder: null });
    expect(await again.call('getEngineSettings', {})).toMatchObject({
      forgetting: { archiveThreshold: 150, trashRetentionDays: 7 },
      knowledge: { maxFacts: 2 },
    });
    await again.close();
    // Explicit options (a test, a benchmark, a flag) win over what was saved.
    const explicit = await openEngine({ home, embedder: null, config: { forgetting: { trashRetentionDays: 90 } } });
    expect((await explicit.call('getEngineSettings', {})).forgetting).toMatchObject({ archiveThreshold: 150, trashRetentionDays: 90 });
    await explicit.close();
  });

  it('backs up the whole store into a file that opens as the same database', async () => {
    const home = tempDir();
    const engine = await openEngine({ home, embedder: null });
    await engine.call('upsertKnowledge', { key: 'person:alice', value: 'Alice lives in Lisbon' });
    const out = await engine.call('backup', {});
    await engine.close();
    expect(out.file.startsWith(`${home}/backups/nemori-backup-`)).toBe(true);
    expect(out.bytes).toBe(fs.statSync(out.file).size);
    const copy = await PGlite.create({ loadDataDir: new Blob([fs.readFileSync(out.file)]), extensions: { vector } });
    const r = await copy.query<{ value: string }>(`SELECT value FROM semantic_nodes WHERE key = 'person:alice'`);
    expect(r.rows).toEqual([{ value: 'Alice lives in Lisbon' }]);
    await copy.close();

    const memory = await openMemoryEngine();
    await expect(memory.call('backup', {})).rejects.toThrow(/name a folder/);
    await memory.close();
  });
});
