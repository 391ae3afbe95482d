import fs from 'node:fs';
import { NemoriError } from '../domain/errors.js';

/**
 * Where a command gets the passphrase that seals or opens a backup or an export, first that applies:
 * `--passphrase-stdin` (the first line of standard input, for scripts and password managers), the
 * environment variable NEMORI_PASSPHRASE, or a prompt on the terminal that does not echo (asked twice
 * when sealing, so a typo does not lock the file). Never a flag with the passphrase in it: flags are
 * visible in process lists.
 */

export const PASSPHRASE_ENV = 'NEMORI_PASSPHRASE';

export interface PassphraseFlags {
  passphraseStdin?: boolean;
}

function firstLineOfStdin(): string {
  const line = fs.readFileSync(0, 'utf8').split(/\r?\n/)[0] ?? '';
  if (!line) throw new NemoriError('INVALID_INPUT', '--passphrase-stdin: standard input held no passphrase');
  return line;
}

/** Reads a line from the terminal without echoing it. */
function prompt(question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const input = process.stdin;
    process.stderr.write(question);
    input.setRawMode(true);
    input.resume();
    input.setEncoding('utf8');
    let typed = '';
    const done = (e: Error | null) => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      process.stderr.write('\n');
      if (e) reject(e);
      else resolve(typed);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return done(null);
        if (ch === '\u0003') return done(new NemoriError('INVALID_INPUT', 'cancelled'));
        if (ch === '\u007f' || ch === '\b') typed = typed.slice(0, -1);
        else typed += ch;
      }
    };
    input.on('data', onData);
  });
}

export async function readPassphrase(o: PassphraseFlags, purpose: 'seal' | 'open', what: string): Promise<string> {
  if (o.passphraseStdin) return firstLineOfStdin();
  const fromEnv = process.env[PASSPHRASE_ENV];
  if (fromEnv) return fromEnv;
  if (!process.stdin.isTTY) {
    throw new NemoriError('INVALID_INPUT', `${what} needs a passphrase: set ${PASSPHRASE_ENV} or pass --passphrase-stdin`);
  }
  const first = await prompt(`passphrase for ${what}: `);
  if (purpose === 'open') return first;
  if ((await prompt('the same passphrase again: ')) !== first) throw new NemoriError('INVALID_INPUT', 'the two passphrases differ');
  return first;
}
