/**
 * `nemori import --json` stopped by SIGTERM (a service manager, `timeout`, a closing terminal) stops once
 * what is under way is stored, prints its report with `"cancelled": true` and exits 143 (128 + 15);
 * the report's counts are what the store holds, and importing again finishes the rest.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { holderFileOf } from '../../core/engine/holder.js';
import { nemoriAt, spawnNemori } from '../helpers/cli.js';
import { manyConversationsFile, tempDir } from '../helpers/engine.js';

/** Enough that storing them takes seconds: the stop lands while they are stored (or, on a fast machine, after). */
const CONVERSATIONS = 1200;

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 50));
}

describe('an import stopped by SIGTERM', { timeout: 300_000 }, () => {
  it('prints its JSON report of what it stored, marked cancelled, and exits 143', async () => {
    const home = tempDir('nemori-stop-');
    const file = manyConversationsFile(CONVERSATIONS);
    // The store made first, so the import opens it at once.
    expect((await nemoriAt(home, 'stats')).code).toBe(0);
    const run = spawnNemori(['--home', home, '--no-llm', '--json', 'import', file]);
    // The store is open and the import under way (or about to be). Wherever the stop lands, the report
    // must say what the store holds.
    await until(() => fs.existsSync(holderFileOf(home)));
    await new Promise((r) => setTimeout(r, 5000));
    run.child.kill('SIGTERM');
    expect(await run.exited, run.stderr()).toBe(143);

    const report = JSON.parse(run.stdout()) as { cancelled: boolean; files: { messagesAdded: number }[] };
    expect(report.cancelled).toBe(true);
    const added = report.files.reduce((n, f) => n + f.messagesAdded, 0);
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
