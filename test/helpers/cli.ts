import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const bin = path.join(import.meta.dirname, '..', '..', 'bin', 'nemori.mjs');
const run = promisify(execFile);

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
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], { env: { ...clean, NEMORI_ALLOW_DOWNLOAD: '0', ...env } });
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
