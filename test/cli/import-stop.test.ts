/**
 * `nemori import --json` stopped by SIGTERM (a service manager, `timeout`, a closing terminal) stops once
 * what is under way is stored, prints its report with `"cancelled": true` and exits 143 (128 + 15);
 * the report's counts are what the store holds, and importing again finishes the rest.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { holderFileOf } from '../../core/engine/holder.js';
import { CLI_BUNDLE_ENV } from '../helpers/cli-bundle.js';
import { nemoriAt } from '../helpers/cli.js';
import { manyConversationsFile, tempDir } from '../helpers/engine.js';

const bin = path.join(import.meta.dirname, '..', '..', 'bin', 'nemori.mjs');
/** Enough that storing them takes seconds: the stop lands while they are stored (or, on a fast machine, after). */
const CONVERSATIONS = 400;

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 50));
}

describe('an import stopped by SIGTERM', { timeout: 300_000 }, () => {
  it('prints its JSON report of what it stored, marked cancelled, and exits 143', async () => {
    const home = tempDir('nemori-stop-');
    const file = manyConversationsFile(CONVERSATIONS);
    // The store made first, so the import opens it at once.
    expect((await nemoriAt(home, 'stats')).code).toBe(0);
    const child = spawn(process.execPath, [process.env[CLI_BUNDLE_ENV] || bin, '--home', home, '--no-llm', '--json', 'import', file], {
      env: { ...process.env, NEMORI_ALLOW_DOWNLOAD: '0', NEMORI_HOME: '', NEMORI_MODEL_DIR: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // The store is open and the import under way (or about to be). Wherever the stop lands, the report
    // must say what the store holds.
    await until(() => fs.existsSync(holderFileOf(home)));
    await new Promise((r) => setTimeout(r, 5000));
    child.kill('SIGTERM');
    expect(await exited, stderr).toBe(143);

    const report = JSON.parse(stdout) as { cancelled: boolean; files: { messagesAdded: number }[] };
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
