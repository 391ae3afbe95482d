/**
 * The data folder's lock under a real race: several processes find the same stale lock (its holder
 * died) at the same moment and all try to take it over. Exactly one may win each round; two winners
 * would open PGlite twice on one folder and corrupt it.
 */
import { createHash } from 'node:crypto';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireLock } from '../../core/store/lock.js';
import { tempDir } from '../helpers/engine.js';

const WORKERS = 6;
const ROUNDS = 50; // × WORKERS contenders: 300 rounds of the race in all
const worker = path.join(import.meta.dirname, 'lock-race-worker.ts');
/** Above Linux's largest pid (2^22): never a live process. */
const DEAD_PID = 2 ** 22 + 4321;

interface Contender {
  child: ChildProcessWithoutNullStreams;
  ask(command: string): Promise<string>;
}

function startContender(): Contender {
  const child = spawn(process.execPath, ['--import', 'tsx', worker], { stdio: ['pipe', 'pipe', 'pipe'] });
  const waiting: { resolve: (line: string) => void; reject: (e: Error) => void }[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => waiting.shift()?.resolve(line));
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.once('exit', () => {
    for (const w of waiting.splice(0)) w.reject(new Error(`a contender exited: ${stderr}`));
  });
  return {
    child,
    ask(command) {
      return new Promise((resolve, reject) => {
        waiting.push({ resolve, reject });
        child.stdin.write(`${command}\n`);
      });
    },
  };
}

describe('the lock on a data folder', { timeout: 600_000 }, () => {
  let contenders: Contender[] = [];
  beforeAll(() => {
    contenders = Array.from({ length: WORKERS }, startContender);
  });
  afterAll(() => {
    for (const c of contenders) c.child.kill();
  });

  it('is taken over from a dead holder by exactly one of the processes racing for it', async () => {
    const dir = tempDir('nemori-lock-race-');
    const file = path.join(dir, 'nemori.lock');
    let rounds = 0;
    let twoHolders = 0;
    let noHolder = 0;
    const errors: string[] = [];
    for (let round = 0; round < ROUNDS * WORKERS; round += WORKERS) {
      for (let r = 0; r < WORKERS; r++) {
        // A lock left by a process that died (kill -9): same host, a pid that is not running.
        fs.writeFileSync(
          file,
          JSON.stringify({ pid: DEAD_PID, host: os.hostname(), since: new Date(Date.now() - 1000 * (round + r)).toISOString() }),
        );
        const answers = await Promise.all(contenders.map((c) => c.ask(`take ${file}`)));
        rounds++;
        const holders = contenders.filter((_, i) => answers[i] === 'held');
        if (holders.length > 1) twoHolders++;
        if (holders.length === 0) noHolder++;
        errors.push(...answers.filter((a) => a.startsWith('error')));
        for (const h of holders) await h.ask('release');
      }
    }
    expect(errors).toEqual([]);
    expect(rounds).toBe(ROUNDS * WORKERS);
    expect(twoHolders).toBe(0);
    expect(noHolder).toBe(0);
    // Whatever the takeovers used to agree among themselves is gone with them.
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('passes over a takeover whose owner died inside it, and cleans up after both', () => {
    const dir = tempDir('nemori-lock-gate-');
    const file = path.join(dir, 'nemori.lock');
    const stale = JSON.stringify({ pid: DEAD_PID, host: os.hostname(), since: '2020-01-01T00:00:00.000Z' });
    fs.writeFileSync(file, stale);
    // A taker killed inside its gate: the gate stays, naming a process that is gone.
    const key = createHash('sha256').update(stale).digest('hex').slice(0, 16);
    fs.writeFileSync(`${file}.takeover-${key}-0`, JSON.stringify({ pid: DEAD_PID + 1, host: os.hostname(), since: 'then' }));
    const lock = acquireLock(file);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ pid: process.pid });
    expect(fs.readdirSync(dir)).toEqual(['nemori.lock']);
    // Owner-only, like everything that names the holder.
    if (process.platform !== 'win32') expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    lock.release();
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('never removes a lock that is no longer its own', () => {
    const dir = tempDir('nemori-lock-own-');
    const file = path.join(dir, 'nemori.lock');
    const lock = acquireLock(file);
    // Thought dead and taken over meanwhile (a suspended laptop): the file is someone else's now.
    const other = JSON.stringify({ pid: process.pid, host: os.hostname(), since: 'later', nonce: 'theirs' });
    fs.writeFileSync(file, other);
    lock.release();
    expect(fs.readFileSync(file, 'utf8')).toBe(other);
  });
});
