/** Real `nemori` processes for the crash suites: run one and kill it, run one for its JSON, check a store whole. */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { expect } from 'vitest';
import type { ProgressEvent } from '../../core/engine/open-engine.js';
import { nemoriAt, progressStep } from '../helpers/cli.js';

const bin = path.join(import.meta.dirname, '..', '..', 'bin', 'nemori.mjs');

const ROUNDS = Number(process.env.NEMORI_RELIABILITY_ROUNDS ?? 2);
/** How many kill attempts an operation gets: `n` per round, one in the smoke subset (NEMORI_RELIABILITY_ROUNDS=0). */
export const attempts = (n: number) => (ROUNDS > 0 ? n * ROUNDS : 1);

/** `nemori --home HOME …args` (no LLM, no download), its stderr piped or not, and how it ended: killed by SIGKILL or finished. */
function started(home: string, args: string[], stderr: 'ignore' | 'pipe'): { child: ChildProcess; ended: Promise<'killed' | 'finished'> } {
  const child = spawn(process.execPath, [bin, '--home', home, '--no-llm', ...args], {
    env: { ...process.env, NEMORI_ALLOW_DOWNLOAD: '0', NEMORI_HOME: '', NEMORI_MODEL_DIR: '' },
    stdio: ['ignore', 'ignore', stderr],
  });
  const ended = new Promise<'killed' | 'finished'>((resolve) =>
    child.on('exit', (_code, signal) => resolve(signal === 'SIGKILL' ? 'killed' : 'finished')),
  );
  return { child, ended };
}

/** Starts `nemori --home HOME …args` and kills it with SIGKILL after `ms` (or lets it finish first). */
export async function killedAfter(home: string, args: string[], ms: number): Promise<'killed' | 'finished'> {
  const { child, ended } = started(home, args, 'ignore');
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  return ended.finally(() => clearTimeout(timer));
}

/**
 * Starts `nemori --home HOME --progress json …args` and kills it with SIGKILL as soon as it reports a step
 * `when` accepts (or lets it finish first): each step is reported once it is stored.
 */
export function killedWhen(home: string, args: string[], when: (step: ProgressEvent) => boolean): Promise<'killed' | 'finished'> {
  const { child, ended } = started(home, ['--progress', 'json', ...args], 'pipe');
  readline.createInterface({ input: child.stderr! }).on('line', (line) => {
    const step = progressStep(line);
    if (step && when(step)) child.kill('SIGKILL');
  });
  return ended;
}

export async function json<T>(home: string, ...args: string[]): Promise<T> {
  const r = await nemoriAt(home, '--no-llm', '--json', ...args);
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout) as T;
}

export interface Health {
  ok: boolean;
  problems: { message: string }[];
  owners: { messages: number; episodes: number; conversations: number }[];
}

/** Opens the store again and checks it deeply: the only acceptable answer is ok. */
export async function whole(home: string): Promise<Health['owners'][number]> {
  const h = await json<Health>(home, 'health', '--deep');
  expect(h.problems.map((p) => p.message)).toEqual([]);
  expect(h.ok).toBe(true);
  return h.owners[0] ?? { messages: 0, episodes: 0, conversations: 0 };
}

/** A random point in [from, to) ms. */
export const at = (from: number, to: number) => Math.floor(from + Math.random() * (to - from));

export async function timed(home: string, ...args: string[]): Promise<number> {
  const t = performance.now();
  await json(home, ...args);
  return performance.now() - t;
}
