import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { ProgressEvent } from '../../core/engine/open-engine.js';

const bin = path.join(import.meta.dirname, '..', '..', 'bin', 'nemori.mjs');
const run = promisify(execFile);

/**
 * V8 compiles PGlite's WebAssembly quickly (Liftoff), then recompiles its hot functions with the
 * optimising compiler on background threads: ~0.6 s of CPU in every short `nemori` process, paid
 * back only by long ones. A 100× budget before tiering up leaves that to work that runs long enough
 * to need it. The program, and what it computes, are the same.
 */
const NODE_FLAGS = ['--wasm-tiering-budget=180000000'];

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real `nemori` command in a child process. It never reaches the network: model download is
 * off, and NEMORI_* settings of the shell running the tests are ignored unless passed in `env`.
 */
export async function runNemori(args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('NEMORI_')));
  try {
    const { stdout, stderr } = await run(process.execPath, [...NODE_FLAGS, bin, ...args], {
      env: { ...clean, NEMORI_ALLOW_DOWNLOAD: '0', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

/** `nemori --home HOME …` */
export function nemoriAt(home: string, ...args: string[]): Promise<CliResult> {
  return runNemori(['--home', home, ...args]);
}

export interface RunningNemori {
  child: ChildProcess;
  /** What it printed so far. */
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

/** Starts the real `nemori` command (as `runNemori` does) and leaves it running: for tests that signal it. */
export function spawnNemori(args: readonly string[], env: Record<string, string> = {}): RunningNemori {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('NEMORI_')));
  const child = spawn(process.execPath, [bin, ...args], {
    env: { ...clean, NEMORI_ALLOW_DOWNLOAD: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** One line of stderr as `--progress json` prints a step (one JSON object a line), or null for any other line. */
export const progressStep = (line: string): ProgressEvent | null => (line.startsWith('{') ? (JSON.parse(line) as ProgressEvent) : null);

/** Every step `--progress json` printed on stderr, between whatever else is said there. */
export const progressSteps = (stderr: string): ProgressEvent[] =>
  stderr.split('\n').flatMap((l) => {
    const step = progressStep(l);
    return step ? [step] : [];
  });
