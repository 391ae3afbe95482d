import { describe, expect, it } from 'vitest';
import { nemoriAt } from '../helpers/cli.js';
import { fixture, tempDir } from '../helpers/engine.js';

const nemori = nemoriAt;
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
    // Reasons are stored as data; the command line still reads them out as a sentence.
    expect(human.stdout).toMatch(/decay score \d+ ≥ 500 \(trash threshold\): \d+ days without recall, importance 0\.\d\d, recalled 0×/);
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
