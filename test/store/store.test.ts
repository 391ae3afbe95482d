import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store } from '../../core/store/store.js';
import { openEngine } from '../../core/api/engine.js';
import { fixture, tempDir, useRealStoreStartup } from '../helpers/engine.js';

useRealStoreStartup();

describe('the store on disk', () => {
  it('refuses a second open of the same folder, naming the holder', async () => {
    const dir = tempDir();
    const first = await Store.open({ dir });
    try {
      await expect(Store.open({ dir })).rejects.toMatchObject({
        code: 'STORE_LOCKED',
        message: expect.stringContaining(`pid ${process.pid}`),
      });
    } finally {
      await first.close();
    }
    // Closing releases the lock.
    const again = await Store.open({ dir });
    await again.close();
    expect(fs.existsSync(path.join(dir, 'nemori.lock'))).toBe(false);
  });

  it('takes over a lock left by a process that died', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'nemori.lock'), JSON.stringify({ pid: 2 ** 22 + 12345, host: (await import('node:os')).hostname(), since: '2020-01-01' }));
    const s = await Store.open({ dir });
    await s.close();
  });

  it('keeps everything across close and reopen, with migrations applied once', async () => {
    const home = tempDir();
    const a = await openEngine({ home, embedder: null });
    await a.call('importFiles', { ownerId: 'me', paths: [fixture('import', 'two-days.json')] });
    const stats = await a.call('stats', {});
    await a.close();
    const b = await openEngine({ home, embedder: null });
    try {
      expect(await b.call('stats', {})).toEqual(stats);
      const health = await b.call('health', {});
      const migrations = fs.readdirSync(path.join(import.meta.dirname, '..', '..', 'core', 'store', 'migrations')).filter((f) => f.endsWith('.sql'));
      expect(health.database).toMatchObject({ status: 'ok', schemaVersion: migrations.length });
      expect(health.database.sizeBytes).toBeGreaterThan(0);
      expect((await b.call('search', { ownerId: 'me', query: 'Gornergrat boots', mode: 'bm25' })).results).toHaveLength(1);
    } finally {
      await b.close();
    }
  });

  it('writes a backup that a new store can be opened from', async () => {
    const dir = tempDir();
    const s = await Store.open({ dir });
    const file = path.join(dir, 'backup.tar.gz');
    await s.backup(file);
    await s.close();
    expect(fs.statSync(file).size).toBeGreaterThan(1000);
  });
});
