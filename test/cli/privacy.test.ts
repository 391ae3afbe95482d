import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNemori } from '../helpers/cli.js';
import { fixture, tempDir } from '../helpers/engine.js';

/**
 * Encrypted backups and the open export through the real command: the passphrase from NEMORI_PASSPHRASE,
 * a clear refusal when there is none and no terminal to ask on, and an export read back by `nemori import`.
 */
describe('nemori data backup --encrypt, export and import', { timeout: 240_000 }, () => {
  it('seals with the passphrase from the environment, refuses without one, and carries the memory to another folder', async () => {
    const root = tempDir('nemori-cli-privacy-');
    const home = path.join(root, 'home');
    const pass = { NEMORI_PASSPHRASE: 'correct horse battery' };
    const nemori = async (args: string[], env: Record<string, string> = {}) => {
      const r = await runNemori(['--json', '--home', home, ...args], env);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      return JSON.parse(r.stdout);
    };

    const imported = await nemori(['import', fixture('import', 'two-days.json')]);
    expect(imported.redacted).toBe(0);
    const refused = await runNemori(['--home', home, 'data', 'backup', '--encrypt']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/needs a passphrase: set NEMORI_PASSPHRASE or pass --passphrase-stdin/);

    const backup = await nemori(['data', 'backup', '--encrypt'], pass);
    expect(backup).toMatchObject({ encrypted: true });
    expect(fs.readFileSync(backup.file).subarray(0, 14).toString()).toBe('NEMORI-SEALED\n');

    const file = path.join(root, 'memory.nemori');
    const exported = await nemori(['export', file, '--encrypt'], pass);
    expect(exported).toMatchObject({ file, encrypted: true });
    const other = path.join(root, 'other');
    const wrong = await runNemori(['--home', other, 'import', file], { NEMORI_PASSPHRASE: 'not it at all' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/wrong passphrase for memory\.nemori/);
    const r = await runNemori(['--json', '--home', other, 'import', file], pass);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).counts).toEqual(exported.counts);
    const stats = JSON.parse((await runNemori(['--json', '--home', other, 'stats'])).stdout);
    expect(stats.owners[0].episodes).toBe(exported.counts.episodes);
  });
});
