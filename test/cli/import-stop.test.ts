/**
 * `nemori import --json` stopped by SIGTERM (a service manager, `timeout`, a closing terminal) stops once
 * what is under way is stored, prints its report with `"cancelled": true` and exits 143 (128 + 15);
 * the report's counts are what the store holds, and importing again finishes the rest.
 */
import { describe, expect, it } from 'vitest';
import { nemoriAt, progressSteps, spawnNemori } from '../helpers/cli.js';
import { manyConversationsFile, tempDir } from '../helpers/engine.js';

/** Enough that storing them takes seconds: the stop lands while they are stored. */
const CONVERSATIONS = 300;

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 50));
}

describe('an import stopped by SIGTERM', { timeout: 300_000 }, () => {
  it('prints its JSON report of what it stored, marked cancelled, and exits 143', async () => {
    const home = tempDir('nemori-stop-');
    const file = manyConversationsFile(CONVERSATIONS);
    // The store made first, so the import opens it at once.
    expect((await nemoriAt(home, 'stats')).code).toBe(0);
    const run = spawnNemori(['--home', home, '--no-llm', '--json', '--progress', 'json', 'import', file]);
    // Stopped once it says it stored its first conversation: the report must say what the store holds.
    await until(() => progressSteps(run.stderr()).some((s) => s.phase === 'import' && s.done > 0));
    run.child.kill('SIGTERM');
    expect(await run.exited, run.stderr()).toBe(143);
    // Every stage reported from the start, with the batch's total of messages (stdout keeps the report alone).
    expect(progressSteps(run.stderr()).slice(0, 3)).toMatchObject([
      { operation: 'importFiles', phase: 'import', done: 0, total: CONVERSATIONS * 5 },
      { operation: 'importFiles', phase: 'episodes', done: 0, total: CONVERSATIONS * 5, facts: { episodes: 0 } },
      { operation: 'importFiles', phase: 'embeddings', done: 0, total: 0 },
    ]);

    const report = JSON.parse(run.stdout()) as { cancelled: boolean; files: { messagesAdded: number }[] };
    expect(report.cancelled).toBe(true);
    const added = report.files.reduce((n, f) => n + f.messagesAdded, 0);
    expect(added).toBeGreaterThan(0);
    expect(added).toBeLessThan(CONVERSATIONS * 5);
    const stats = JSON.parse((await nemoriAt(home, '--json', 'stats')).stdout) as { owners: { messages: number }[] };
    expect(stats.owners[0]?.messages ?? 0).toBe(added);

    const rest = await nemoriAt(home, '--no-llm', '--json', 'import', file);
    expect(rest.code, rest.stderr).toBe(0);
    expect(JSON.parse(rest.stdout)).toMatchObject({ cancelled: false, files: [{ messagesAdded: CONVERSATIONS * 5 - added }] });
    const health = JSON.parse((await nemoriAt(home, '--json', 'health')).stdout) as { ok: boolean; owners: { messages: number }[] };
    expect(health).toMatchObject({ ok: true, owners: [{ messages: CONVERSATIONS * 5 }] });
    console.log(JSON.stringify({ storedBeforeStop: added }));
  });
});
