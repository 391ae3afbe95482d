/**
 * One contender of the lock race (lock-race.test.ts), kept alive across rounds so a round costs no
 * process start. Reads commands on stdin, one per line, and answers each on stdout:
 *   take <file>   → `held` | `locked` | `error <message>`   (tries to take the lock once)
 *   release       → `released`                              (lets go of the lock it holds)
 */
import { createInterface } from 'node:readline';
import { acquireLock, type DirLock } from '../../core/store/lock.js';

let held: DirLock | null = null;
const say = (line: string) => process.stdout.write(`${line}\n`);

createInterface({ input: process.stdin }).on('line', (line) => {
  const [command, file] = line.split(' ');
  if (command === 'take') {
    try {
      held = acquireLock(file!);
      say('held');
    } catch (e) {
      const code = (e as { code?: string }).code;
      say(code === 'STORE_LOCKED' ? 'locked' : `error ${(e as Error).message}`);
    }
  } else if (command === 'release') {
    held?.release();
    held = null;
    say('released');
  }
});
