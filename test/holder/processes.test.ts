/**
 * Many processes, one memory — with real processes: a long-running engine holds a data folder while
 * `nemori` commands and programs use it through it; the holder is killed (-9) and the next process
 * takes over; three programs feed one holder at once; a holder of another version is refused.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { holderFileOf, lockFileOf } from '../../core/engine/holder.js';
import { openEngine } from '../../core/engine/open-engine.js';
import { nemoriAt, progressSteps, spawnNemori } from '../helpers/cli.js';
import { fixture, manyConversationsFile, tempDir } from '../helpers/engine.js';

const here = import.meta.dirname;

interface Child {
  child: ChildProcessWithoutNullStreams;
  lines: string[];
  /** Resolves with the first line matching `pattern` (already printed or to come). */
  line(pattern: RegExp): Promise<string>;
  exited: Promise<number | null>;
  stderr(): string;
}

const children: Child[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.child.kill('SIGKILL');
});

function start(script: string, args: string[]): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, script), ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('NEMORI_'))),
  });
  const lines: string[] = [];
  const waiting: { pattern: RegExp; resolve: (l: string) => void }[] = [];
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  createInterface({ input: child.stdout }).on('line', (l) => {
    lines.push(l);
    for (const w of waiting.filter((w) => w.pattern.test(l))) {
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve(l);
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const c: Child = {
    child,
    lines,
    exited,
    stderr: () => stderr,
    line: (pattern) =>
      new Promise((resolve, reject) => {
        const seen = lines.find((l) => pattern.test(l));
        if (seen) return resolve(seen);
        waiting.push({ pattern, resolve });
        void exited.then((code) => reject(new Error(`${script} exited (${code}) before printing ${pattern}: ${stderr}`)));
      }),
  };
  children.push(c);
  return c;
}

/** A long-running engine holding `home` (optionally claiming another app version); resolves once it answers. */
async function holdFolder(home: string, version?: string): Promise<Child & { pid: number }> {
  const holder = start('hold-engine.ts', [home, ...(version ? [version] : [])]);
  const ready = JSON.parse(await holder.line(/^\{/)) as { role: string; pid: number };
  expect(ready).toEqual({ role: 'holder', pid: holder.child.pid });
  return Object.assign(holder, { pid: ready.pid });
}

const note = (home: string, pid: number) => `using the Nemori app that holds ${home} (pid ${pid})`;
const messagesIn = (stats: { owners: { ownerId: string; messages: number }[] }, owner: string) =>
  stats.owners.find((o) => o.ownerId === owner)?.messages ?? 0;

describe('many processes, one memory', { timeout: 600_000 }, () => {
  it('lets commands search, count and import through the engine that holds the folder', async () => {
    const home = tempDir('nemori-held-');
    const holder = await holdFolder(home);

    const imported = await nemoriAt(home, 'import', fixture('import', 'two-days.json'));
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain(note(home, holder.pid));
    expect(imported.stdout).toContain('8 new messages');

    const found = await nemoriAt(home, 'search', '--mode', 'bm25', 'Gornergrat', 'boots');
    expect(found.code, found.stderr).toBe(0);
    expect(found.stderr).toContain(note(home, holder.pid));
    expect(found.stdout).toMatch(/1\. /);

    const stats = await nemoriAt(home, '--json', 'stats');
    expect(stats.code, stats.stderr).toBe(0);
    expect(stats.stderr).toContain(note(home, holder.pid));
    expect(stats.stderr).not.toContain('STORE_LOCKED');
    // stdout is the JSON and nothing else.
    expect(messagesIn(JSON.parse(stats.stdout), 'default')).toBe(8);

    // The holder never let go meanwhile.
    expect(JSON.parse(fs.readFileSync(holderFileOf(home), 'utf8'))).toMatchObject({ pid: holder.pid, state: 'open' });
    holder.child.kill('SIGTERM');
    expect(await holder.exited).toBe(0);
    expect(fs.existsSync(holderFileOf(home))).toBe(false);
    expect(fs.existsSync(lockFileOf(home))).toBe(false);
  });

  it('an import run through the holder and stopped by SIGTERM is stopped there, and prints what it stored', async () => {
    const home = tempDir('nemori-held-stop-');
    const holder = await holdFolder(home);
    const file = manyConversationsFile(300);
    const run = spawnNemori(['--home', home, '--json', '--progress', 'json', 'import', file]);
    // A client now, its import running at the holder: stopped once the holder reports a conversation stored.
    const stored = () => progressSteps(run.stderr()).some((s) => s.phase === 'import' && s.done > 0);
    while (!stored()) await new Promise((r) => setTimeout(r, 50));
    expect(run.stderr()).toContain(note(home, holder.pid));
    run.child.kill('SIGTERM');
    expect(await run.exited, run.stderr()).toBe(143);
    const report = JSON.parse(run.stdout()) as { cancelled: boolean; files: { messagesAdded: number }[] };
    expect(report.cancelled).toBe(true);
    const stats = await nemoriAt(home, '--json', 'stats');
    expect(messagesIn(JSON.parse(stats.stdout), 'default')).toBe(report.files[0]!.messagesAdded);
    expect(report.files[0]!.messagesAdded).toBeGreaterThan(0);
    expect(report.files[0]!.messagesAdded).toBeLessThan(300 * 5);
  });

  it('takes over from a holder killed with -9: the next command holds the folder and finds everything acknowledged', async () => {
    const home = tempDir('nemori-killed-');
    const holder = await holdFolder(home);
    const imported = await nemoriAt(home, '--json', 'import', fixture('import', 'two-days.json'));
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ files: [{ messagesAdded: 8 }] });

    holder.child.kill('SIGKILL');
    await holder.exited;
    // What the dead holder left: its holder file and its lock, naming a process that is gone.
    expect(JSON.parse(fs.readFileSync(holderFileOf(home), 'utf8'))).toMatchObject({ pid: holder.pid });
    expect(JSON.parse(fs.readFileSync(lockFileOf(home), 'utf8'))).toMatchObject({ pid: holder.pid });

    const stats = await nemoriAt(home, '--json', 'stats');
    expect(stats.code, stats.stderr).toBe(0);
    expect(stats.stderr).not.toContain('using the Nemori app');
    expect(messagesIn(JSON.parse(stats.stdout), 'default')).toBe(8);
    const found = await nemoriAt(home, '--json', 'search', '--mode', 'bm25', 'Gornergrat', 'boots');
    expect(JSON.parse(found.stdout).results).toHaveLength(1);
    // That command was the holder, and let go when it finished.
    expect(fs.existsSync(holderFileOf(home))).toBe(false);
    expect(fs.existsSync(lockFileOf(home))).toBe(false);
  });

  it('takes 900 messages from three programs at once through one holder, each exactly once', async () => {
    const home = tempDir('nemori-three-');
    const holder = await holdFolder(home);
    // 60 conversations × 5 messages each; the last one is sent twice (a program retrying on its own).
    const feeders = ['a', 'b', 'c'].map((label) => start('ingest-client.ts', [home, label, '60', '5', 'resend-last']));
    expect(await Promise.all(feeders.map((f) => f.exited))).toEqual([0, 0, 0]);
    for (const f of feeders) {
      expect(f.lines).toHaveLength(61);
      expect(
        f.lines.every((l) => l.endsWith(`client ${holder.pid}`)),
        f.lines.join('\n'),
      ).toBe(true);
    }
    const stats = await nemoriAt(home, '--json', 'stats', '--owner', 'shared');
    expect(JSON.parse(stats.stdout).owners).toEqual([expect.objectContaining({ ownerId: 'shared', conversations: 180, messages: 900 })]);

    holder.child.kill('SIGTERM');
    expect(await holder.exited).toBe(0);
    // The store opens cleanly afterwards, with the same memory.
    const engine = await openEngine({ home, embedder: null });
    try {
      expect((await engine.call('health', {})).database.status).toBe('ok');
      expect((await engine.call('stats', { ownerId: 'shared' })).owners[0]).toMatchObject({ conversations: 180, messages: 900 });
    } finally {
      await engine.close();
    }
  });

  it('carries on when its holder dies mid-session: the program becomes the holder and sends again only what is safe', async () => {
    const home = tempDir('nemori-handover-');
    const holder = await holdFolder(home);
    const feeder = start('ingest-client.ts', [home, 'late', '30', '5']);
    await feeder.line(/^ok 5 client /);
    holder.child.kill('SIGKILL');
    expect(await feeder.exited, feeder.stderr()).toBe(0);
    // Each conversation acknowledged once, the last ones by the program itself as the new holder.
    expect(feeder.lines.map((l) => Number(l.split(' ')[1]))).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(feeder.lines.at(-1)).toBe(`ok 30 holder ${feeder.child.pid}`);
    const stats = await nemoriAt(home, '--json', 'stats', '--owner', 'shared');
    expect(JSON.parse(stats.stdout).owners).toEqual([expect.objectContaining({ conversations: 30, messages: 150 })]);
  });

  it('refuses a holder of another version with a clear error', async () => {
    const home = tempDir('nemori-versions-');
    const holder = await holdFolder(home, '0.2.0');
    const version = (JSON.parse(fs.readFileSync(path.join(here, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
    const r = await nemoriAt(home, 'stats');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Nemori 0.2.0 holds this data folder; this is ${version} — close that one (pid ${holder.pid})`);
    const json = await nemoriAt(home, '--json', 'stats');
    expect(JSON.parse(json.stdout)).toMatchObject({
      error: { code: 'STORE_LOCKED', message: expect.stringContaining('Nemori 0.2.0 holds this data folder') },
    });
    // Nothing was opened beside it.
    expect(JSON.parse(fs.readFileSync(lockFileOf(home), 'utf8'))).toMatchObject({ pid: holder.pid });
  });
});
