import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../core/engine/open-engine.js';
import { CLEAN_CLOSE_FILE } from '../../core/store/store.js';
import { fixture, tempDir } from '../helpers/engine.js';

const ownerId = 'me';

async function importedStore() {
  const home = tempDir('nemori-health-');
  const engine = await openEngine({ home, embedder: null });
  await engine.call('importFiles', { ownerId, paths: [fixture('import', 'two-days.json')] });
  return { home, engine };
}

/**
 * `health` used to say `ok: true` whatever the indexes held. It now checks them against the episodes,
 * and messages and episodes against each other; an open puts right what it can and says what it could not.
 */
describe('health checks what it reports', { timeout: 120_000 }, () => {
  it('finds episodes missing from the keyword index, and the next open rebuilds it', async () => {
    const { home, engine } = await importedStore();
    expect(await engine.call('health', { deep: true })).toMatchObject({ ok: true, problems: [], deep: true });
    const [first] = (await engine.call('listEpisodes', { ownerId })).episodes;
    // The index loses an episode that still exists (what a rebuild killed part way used to leave).
    await engine.context.store.transaction((r) => r.bm25.remove(ownerId, [first!.id]));
    const sick = await engine.call('health', {});
    expect(sick.ok).toBe(false);
    expect(sick.checked).toBe(true);
    expect(sick.problems).toEqual([expect.objectContaining({ ownerId, check: 'keyword-index', count: 1 })]);
    // A screen that shows no problems asks without the checks: counts and status, nothing found or looked for.
    const unchecked = await engine.call('health', { checks: false });
    expect(unchecked).toMatchObject({ checked: false, problems: [], owners: sick.owners, database: { status: 'ok' } });
    await engine.close();
    // ...and was killed: no record of a clean close.
    fs.rmSync(path.join(home, 'db', CLEAN_CLOSE_FILE));

    const warnings: string[] = [];
    const reopened = await openEngine({ home, embedder: null, warn: (w) => warnings.push(w) });
    try {
      expect(warnings).toEqual([
        expect.stringMatching(/^repaired: me: the keyword index was missing 1 of \d+ episodes, held 0 deleted ones; rebuilt it$/),
      ]);
      expect(await reopened.call('health', {})).toMatchObject({ ok: true, problems: [] });
      const found = await reopened.call('search', { ownerId, query: first!.title, mode: 'bm25' });
      expect(found.results.map((r) => r.id)).toContain(first!.id);
    } finally {
      await reopened.close();
    }
  });

  it('compares every keyword posting with its episode’s own copy only when asked to go deep (a whole-store read)', async () => {
    const { home, engine } = await importedStore();
    await engine.close();
    // One posting of one episode's own copy changed behind the store: the lists and the episode disagree.
    const db = await PGlite.create({ dataDir: path.join(home, 'db', 'pg'), extensions: { vector } });
    await db.exec(`UPDATE bm25_docs SET impacts[1] = impacts[1] + 0.5 WHERE ctid = (SELECT min(ctid) FROM bm25_docs)`);
    await db.close();
    const reopened = await openEngine({ home, embedder: null });
    try {
      expect(await reopened.call('health', {})).toMatchObject({ ok: true, problems: [] });
      const deep = await reopened.call('health', { deep: true });
      expect(deep.ok).toBe(false);
      expect(deep.problems).toEqual([
        expect.objectContaining({ ownerId, check: 'keyword-index', count: 2, message: expect.stringContaining('2 postings out of place') }),
      ]);
    } finally {
      await reopened.close();
    }
  });

  it('does not count again after a clean close: only a store something touched since is checked at open', async () => {
    const { home, engine } = await importedStore();
    const [first] = (await engine.call('listEpisodes', { ownerId })).episodes;
    // A fault written through the store itself and closed cleanly: the open trusts the close, health still sees it.
    await engine.context.store.transaction((r) => r.bm25.remove(ownerId, [first!.id]));
    await engine.close();
    const warnings: string[] = [];
    const trusted = await openEngine({ home, embedder: null, warn: (w) => warnings.push(w) });
    try {
      expect(trusted.context.store.untouchedSinceClose).toBe(true);
      expect(warnings).toEqual([]);
      expect((await trusted.call('health', {})).problems).toEqual([expect.objectContaining({ check: 'keyword-index', count: 1 })]);
    } finally {
      await trusted.close();
    }
    // Opened and closed by another program: the database moved on from the recorded close, so it is checked.
    const other = await PGlite.create({ dataDir: path.join(home, 'db', 'pg'), extensions: { vector } });
    await other.exec(`CREATE TABLE scratch (x int); DROP TABLE scratch`);
    await other.close();
    const checked = await openEngine({ home, embedder: null, warn: (w) => warnings.push(w) });
    try {
      expect(checked.context.store.untouchedSinceClose).toBe(false);
      expect(warnings).toEqual([expect.stringMatching(/^repaired: me: the keyword index was missing 1 of \d+ episodes/)]);
    } finally {
      await checked.close();
    }
  });

  it('finds messages pointing at a missing episode (written behind the foreign keys) and makes them pending again', async () => {
    const { home, engine } = await importedStore();
    const [first] = (await engine.call('listEpisodes', { ownerId })).episodes;
    await engine.close();
    // What two writers at once left behind in the issue: an episode gone, its messages still pointing at it.
    const db = await PGlite.create({ dataDir: path.join(home, 'db', 'pg'), extensions: { vector } });
    await db.exec(`SET session_replication_role = replica; DELETE FROM episodes WHERE id = '${first!.id}'`);
    await db.close();

    const warnings: string[] = [];
    const reopened = await openEngine({ home, embedder: null, warn: (w) => warnings.push(w) });
    try {
      expect(warnings).toEqual(
        expect.arrayContaining([expect.stringMatching(/^repaired: me: \d+ messages pointed at episodes that are gone/)]),
      );
      expect(await reopened.call('health', {})).toMatchObject({ ok: true, problems: [] });
      await reopened.call('rebuildIndexes', { ownerId });
      const episodes = (await reopened.call('listEpisodes', { ownerId })).episodes;
      expect(episodes.some((e) => e.start === first!.start)).toBe(true);
    } finally {
      await reopened.close();
    }
  });
});
