import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { fixture, tempDir } from '../helpers/engine.js';

const bin = path.join(import.meta.dirname, '..', '..', 'bin', 'nemori.mjs');
const run = promisify(execFile);

/** Runs the real `nemori` command; never reaches the network (model download off). */
async function nemori(home: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, '--home', home, ...args], {
      env: { ...process.env, NEMORI_ALLOW_DOWNLOAD: '0', NEMORI_MODEL_DIR: '', NEMORI_HOME: '' },
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}
const json = async (home: string, ...args: string[]) => {
  const r = await nemori(home, '--json', ...args);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

// Each step starts a real process (tsx + PGlite start-up).
describe('nemori forget / trash / archive / episodes mark', { timeout: 300_000 }, () => {
  it('marks, previews, forgets, lists and restores from the command line', async () => {
    const home = tempDir();
    await json(home, 'import', fixture('import', 'two-days.json'));
    const { episodes } = await json(home, 'episodes', 'list');
    const lisbon = episodes.find((e: { content: string }) => e.content.includes('Lisbon'));
    expect(lisbon).toBeDefined();

    expect(await json(home, 'episodes', 'mark', lisbon.id, '--not-important')).toMatchObject({ id: lisbon.id, marked: false });
    const later = new Date(Date.now() + 200 * 86_400_000).toISOString().slice(0, 10);
    const dry = await json(home, 'forget', 'run', '--dry-run', '--now', later);
    expect(dry).toMatchObject({ dryRun: true, moved: { trashed: 1 } });
    expect(dry.moves[0]).toMatchObject({ id: lisbon.id, to: 'trash' });

    const human = await nemori(home, 'forget', 'run', '--now', later);
    expect(human.stdout).toContain('trashed 1');
    expect(human.stdout).toContain(lisbon.id);
    expect((await json(home, 'trash', 'list')).items.map((x: { id: string }) => x.id)).toEqual([lisbon.id]);
    expect((await json(home, 'search', 'Lisbon', '--mode', 'bm25')).results).toEqual([]);

    const restored = await json(home, 'trash', 'restore', lisbon.id);
    expect(restored).toMatchObject({ id: lisbon.id, from: 'trash', tier: 'active' });
    expect((await json(home, 'search', 'Lisbon', '--mode', 'bm25')).results[0].id).toBe(lisbon.id);

    const about = await json(home, 'forget', 'about', 'Lisbon', '--dry-run');
    expect(about).toMatchObject({ dryRun: true, memories: [{ id: lisbon.id }] });
    const bad = await nemori(home, 'episodes', 'mark', lisbon.id);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--important/);
  });
});
