import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { nemoriAt } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { CLEAN_CLOSE_FILE } from '../../core/store/store.js';

/**
 * `nemori data restore` with files that are not backups, in a real process: PGlite's loader used to
 * leave a rejected promise behind a file that is not gzip, so after printing the right error Node died
 * of an unhandled rejection (`incorrect header check`) and left the data folder's lock behind.
 */
describe('restoring a file that is not a backup', { timeout: 120_000 }, () => {
  it('says so, exits cleanly, and leaves the store, its lock and no staging folder behind', async () => {
    const home = tempDir('nemori-restore-junk-');
    const files = path.join(tempDir('nemori-restore-files-'));
    const binary = path.join(files, 'photo.jpg');
    fs.writeFileSync(binary, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)));
    const text = path.join(files, 'passwd');
    fs.writeFileSync(text, 'root:x:0:0:root:/root:/bin/bash\n'.repeat(20));
    const gzipped = path.join(files, 'notes.tar.gz');
    fs.writeFileSync(gzipped, zlib.gzipSync('plain words, gzipped\n'));

    for (const file of [text, binary, gzipped]) {
      const r = await nemoriAt(home, '--no-llm', 'data', 'restore', file);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(`${path.basename(file)} is not a Nemori backup`);
      expect(r.stderr).not.toMatch(/Z_DATA_ERROR|incorrect header check|triggerUncaughtException/);
      // The process closed the store (cleanly: it says so): its lock is released, nothing was staged beside it.
      expect(fs.readdirSync(path.join(home, 'db')).sort()).toEqual([CLEAN_CLOSE_FILE, 'pg']);
    }
    const health = await nemoriAt(home, '--no-llm', '--json', 'health');
    expect(health.code, health.stderr).toBe(0);
    expect(JSON.parse(health.stdout)).toMatchObject({ ok: true });
  });
});
