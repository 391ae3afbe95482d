/**
 * Encrypted backups: restored with the right passphrase; a wrong passphrase, a missing one and a file
 * with one flipped byte are refused with their own message before anything is touched.
 */
import fs from 'node:fs';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openAppEngine, type AppEngine } from '../../core/engine/app-engine.js';
import { resolveStartup } from '../../core/engine/startup.js';
import { fixture, tempDir } from '../helpers/engine.js';

const OWNER = 'me';
const PASS = 'correct horse battery staple';

const root = tempDir('nemori-sealed-');
const env = { XDG_DATA_HOME: path.join(root, 'share'), NEMORI_ALLOW_DOWNLOAD: '0', NEMORI_MODEL_DIR: path.join(root, 'no-models') };
let engine: AppEngine | undefined;
afterAll(async () => {
  await engine?.close();
});

const episodes = async (e: AppEngine) => (await e.call('stats', { ownerId: OWNER })).owners[0]?.episodes ?? 0;

describe('an encrypted backup', { timeout: 240_000 }, () => {
  it('restores with its passphrase and refuses a wrong one, none, or a changed file, changing nothing', async () => {
    engine = await openAppEngine({ startup: resolveStartup(undefined, env), env, warn: () => {} });
    const e = engine;
    await e.call('importFiles', { ownerId: OWNER, paths: [fixture('import', 'two-days.json')] });
    const atBackup = await episodes(e);
    const backup = await e.call('backup', { passphrase: PASS });
    expect(backup).toMatchObject({ encrypted: true });
    expect(backup.file).toMatch(/\.tar\.gz\.enc$/);
    const sealed = fs.readFileSync(backup.file);
    // No gzip inside to be read: the bytes after the header are ciphertext, where gzip's magic bytes turn
    // up by chance in a file of megabytes, but nothing inflates from any of them.
    const gzipMagic = Buffer.from([0x1f, 0x8b, 0x08]);
    for (let at = sealed.indexOf(gzipMagic); at >= 0; at = sealed.indexOf(gzipMagic, at + 1))
      expect(() => gunzipSync(sealed.subarray(at))).toThrow();
    expect(sealed.includes(Buffer.from('Zermatt'))).toBe(false);
    expect((await e.call('listBackups', {})).backups).toEqual([expect.objectContaining({ file: backup.file, encrypted: true })]);

    await e.call('importFiles', { ownerId: OWNER, paths: [path.join(import.meta.dirname, '..', 'e2e', 'fixtures', 'spring-week.json')] });
    const later = await episodes(e);
    expect(later).toBeGreaterThan(atBackup);

    const flipped = path.join(root, 'flipped.tar.gz.enc');
    const bytes = Buffer.from(sealed);
    bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
    fs.writeFileSync(flipped, bytes);
    await expect(e.call('restoreBackup', { file: backup.file, passphrase: 'not the passphrase' })).rejects.toThrow(
      /wrong passphrase for nemori-backup-.*\(nothing was changed\)/,
    );
    await expect(e.call('restoreBackup', { file: backup.file })).rejects.toThrow(/is encrypted: give its passphrase/);
    await expect(e.call('restoreBackup', { file: flipped, passphrase: PASS })).rejects.toThrow(
      /flipped\.tar\.gz\.enc was changed or damaged after it was written/,
    );
    // Nothing was touched: the memory as it was, no safety backup written, nothing staged left behind.
    expect(await episodes(e)).toBe(later);
    expect((await e.call('listBackups', {})).backups).toHaveLength(1);
    const dataDir = (await e.call('getStartup', {})).dataDir!;
    expect(fs.readdirSync(dataDir).filter((n) => n.includes('restoring'))).toEqual([]);

    const restored = await e.call('restoreBackup', { file: backup.file, passphrase: PASS });
    expect(await episodes(e)).toBe(atBackup);
    // The memory replaced is kept, sealed with the same passphrase.
    expect(restored.safetyBackup).toMatch(/\.tar\.gz\.enc$/);
    await e.call('restoreBackup', { file: restored.safetyBackup, passphrase: PASS });
    expect(await episodes(e)).toBe(later);
  });
});
