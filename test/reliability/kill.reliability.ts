/**
 * kill -9 at random points of import, rebuild, forget and restore, in real `nemori` processes; after
 * every kill the store is opened again and `health --deep` must find it whole: nothing acknowledged
 * lost, nothing twice, the indexes agreeing with the episodes (an open may repair, and says so).
 *
 * `npm run test:reliability` runs it (with test/store/lock-race.test.ts: 300 rounds of processes racing
 * for a dead holder's lock). NEMORI_RELIABILITY_ROUNDS scales the kills: 2 (default) → 22 kill
 * attempts, 1 → 11; 0 is the smoke subset .ci/run runs: one kill in each of import, rebuild, forget, restore.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/engine.js';
import { at, attempts, json, killedAfter, timed, whole } from './processes.js';

/** A chat export of `n` conversations of 6 messages, one topic word each (Nemori's JSON). */
function exportFile(dir: string, name: string, n: number, from = 0): string {
  const file = path.join(dir, name);
  const t0 = Date.parse('2024-01-01T09:00:00Z');
  const topics = ['sailing', 'pottery', 'chess', 'violin', 'gardening', 'Zorbaville'];
  fs.writeFileSync(
    file,
    JSON.stringify({
      conversations: Array.from({ length: n }, (_, c) => ({
        id: `c${from + c}`,
        messages: Array.from({ length: 6 }, (_, m) => ({
          id: `c${from + c}-m${m}`,
          // Ben's "ok" twice in one minute: two messages, both kept.
          speaker: m % 2 && m !== 5 ? 'Ana' : 'Ben',
          text: m >= 4 ? 'ok' : `day ${from + c}: ${topics[(from + c) % topics.length]} again, part ${m}`,
          timestamp: new Date(t0 + (from + c) * 86_400_000 + Math.min(m, 4) * 60_000).toISOString(),
        })),
      })),
    }),
  );
  return file;
}

describe('kill -9 at random points', { timeout: 1_800_000 }, () => {
  it('never loses, doubles or corrupts anything', async () => {
    const files = tempDir('nemori-reliability-files-');
    const main = exportFile(files, 'main.json', 60);
    const total = { messages: 60 * 6, conversations: 60 };
    const kills: Record<string, number> = { import: 0, rebuild: 0, forget: 0, restore: 0 };

    // How long each operation runs uninterrupted here, to kill it somewhere inside.
    const scratch = tempDir('nemori-reliability-scratch-');
    const importMs = await timed(scratch, 'import', main);
    const clean = await whole(scratch);
    expect(clean).toMatchObject(total);
    const rebuildMs = await timed(scratch, 'rebuild');

    const home = tempDir('nemori-reliability-');
    for (let i = 0; i < attempts(4); i++) {
      if ((await killedAfter(home, ['import', main], at(300, importMs))) === 'killed') kills.import!++;
      const now = await whole(home);
      expect(now.messages).toBeLessThanOrEqual(total.messages);
    }
    await json(home, 'import', main);
    expect(await whole(home)).toMatchObject({ ...total, episodes: clean.episodes });

    for (let i = 0; i < attempts(3); i++) {
      if ((await killedAfter(home, ['rebuild'], at(300, rebuildMs))) === 'killed') kills.rebuild!++;
      expect(await whole(home)).toMatchObject({ ...total, episodes: clean.episodes });
      const found = await json<{ results: unknown[] }>(home, 'search', 'pottery', '--mode', 'bm25');
      expect(found.results.length).toBeGreaterThan(0);
    }

    const forgetMs = await timed(scratch, 'forget', 'about', 'Zorbaville');
    for (let i = 0; i < attempts(2); i++) {
      if ((await killedAfter(home, ['forget', 'about', 'Zorbaville'], at(300, forgetMs))) === 'killed') kills.forget!++;
      expect(await whole(home)).toMatchObject(total);
    }
    await json(home, 'forget', 'about', 'Zorbaville');
    expect(await whole(home)).toMatchObject(total);
    expect((await json<{ results: unknown[] }>(home, 'search', 'Zorbaville', '--mode', 'bm25')).results).toEqual([]);

    // Restore: the store afterwards is the one before or the backup, never neither.
    const backup = await json<{ file: string }>(home, 'data', 'backup');
    await json(home, 'import', exportFile(files, 'more.json', 10, 500));
    const before = await whole(home);
    const restoreMs = await timed(scratch, 'data', 'restore', (await json<{ file: string }>(scratch, 'data', 'backup')).file);
    for (let i = 0; i < attempts(2); i++) {
      if ((await killedAfter(home, ['data', 'restore', backup.file], at(300, restoreMs))) === 'killed') kills.restore!++;
      const now = await whole(home);
      expect([total.messages, before.messages]).toContain(now.messages);
      // Killed after its swap, a restore leaves the old store aside: the next open removes it.
      expect(fs.readdirSync(home).filter((f) => f.includes('restor'))).toEqual([]);
    }

    const n = Object.values(kills).reduce((a, b) => a + b, 0);
    console.log(JSON.stringify({ kills, total: n, importMs, rebuildMs, forgetMs, restoreMs }));
    // Most runs are killed (a run may finish before its kill comes: then it is a clean run).
    const planned = attempts(4) + attempts(3) + attempts(2) * 2;
    expect(n).toBeGreaterThanOrEqual(Math.floor(planned * 0.6));
  });
});
