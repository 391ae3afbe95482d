import fs from 'node:fs';
import os from 'node:os';
import { NemoriError } from '../domain/errors.js';

/**
 * PGlite does not lock its data directory (pglite#1106), and two processes writing one directory
 * corrupt it. We hold an exclusive lock file for as long as the store is open.
 */
export interface DirLock {
  release(): void;
}

interface LockInfo {
  pid: number;
  host: string;
  since: string;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLock(file: string): LockInfo | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as LockInfo;
  } catch {
    return null;
  }
}

export function acquireLock(file: string): DirLock {
  const mine: LockInfo = { pid: process.pid, host: os.hostname(), since: new Date().toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify(mine), { flag: 'wx' });
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          const held = readLock(file);
          if (held?.pid === process.pid) fs.rmSync(file, { force: true });
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const held = readLock(file);
      const stale = !held || (held.host === mine.host && !isAlive(held.pid));
      if (!stale) {
        throw new NemoriError(
          'STORE_LOCKED',
          `the memory store is in use by another Nemori process (pid ${held.pid} on ${held.host}, since ${held.since}); ` +
            `close it first, or delete ${file} if that process is gone`,
          { pid: held.pid, host: held.host, lockFile: file },
        );
      }
      // The holder died without cleaning up (crash, kill -9): take the lock over.
      fs.rmSync(file, { force: true });
    }
  }
  throw new NemoriError('STORE_LOCKED', `could not take the lock ${file}`);
}
