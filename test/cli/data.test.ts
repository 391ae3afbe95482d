import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNemori } from '../helpers/cli.js';
import { fixture, tempDir } from '../helpers/engine.js';

/**
 * `nemori data …` through the real command, on a machine as a person has it: no --home and no
 * NEMORI_HOME, so the data folder is the default one (under XDG_DATA_HOME) until it is moved.
 */
describe('nemori data', { timeout: 240_000 }, () => {
  it('moves the memory, finds it there on the next run, backs it up and restores the backup', async () => {
    const root = tempDir('nemori-cli-data-');
    const env = { XDG_DATA_HOME: path.join(root, 'share') };
    const nemori = async (...args: string[]) => {
      const r = await runNemori(['--json', ...args], env);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      return JSON.parse(r.stdout);
    };
    const episodes = async () => (await nemori('stats')).owners[0]?.episodes ?? 0;

    await nemori('import', fixture('import', 'two-days.json'));
    const before = await episodes();
    expect(before).toBeGreaterThan(0);
    const shown = await nemori('data');
    expect(shown).toMatchObject({ dataDir: path.join(root, 'share', 'nemori'), dataDirPinnedBy: null, canChange: true });

    const to = path.join(root, 'elsewhere');
    expect((await nemori('data', 'move', to)).startup.dataDir).toBe(to);
    expect(fs.existsSync(path.join(root, 'share', 'nemori', 'db'))).toBe(false);
    expect(await episodes()).toBe(before);
    expect((await nemori('data')).dataDir).toBe(to);

    const backup = await nemori('data', 'backup');
    expect(path.dirname(backup.file)).toBe(path.join(to, 'backups'));
    await nemori('knowledge', 'upsert', 'person:Ana', 'moved to Porto');
    const restored = await nemori('data', 'restore', backup.file);
    expect(restored.restored).toBe(backup.file);
    expect((await nemori('knowledge', 'list')).facts).toEqual([]);
    expect((await nemori('data', 'backups')).backups.map((b: { file: string }) => b.file)).toEqual(
      expect.arrayContaining([backup.file, restored.safetyBackup]),
    );

    // --home pins the folder for the run: the command says so rather than move it.
    const pinned = await runNemori(['--home', to, 'data', 'move', path.join(root, 'third')], env);
    expect(pinned.code).toBe(1);
    expect(pinned.stderr).toMatch(/set by --home for this run/);
  });

  it('shows where the memory lives, lists and writes backups without loading (or downloading) the embedding model', async () => {
    const home = tempDir('nemori-cli-data-show-');
    // Downloads allowed: a command that loaded the model would try the network here and warn that it could not.
    const env = { NEMORI_ALLOW_DOWNLOAD: '1' };
    for (const args of [['data'], ['data', 'backups'], ['data', 'backup']]) {
      const r = await runNemori(['--home', home, ...args], env);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/download|embedding model/i);
    }
  });
});
