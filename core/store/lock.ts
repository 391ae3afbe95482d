import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { NemoriError } from '../domain/errors.js';

/**
 * PGlite does not lock its data directory (pglite#1106), and two processes writing one directory
 * corrupt it. We hold an exclusive lock file for as long as the store is open.
 *
 * How it stays exclusive, even when several processes start at once against a lock left by one that
 * died (kill -9, a crash):
 * - A lock file appears with its whole content or not at all: it is written under a private name and
 *   hard-linked to `nemori.lock`, which fails if the name exists (atomic, like O_EXCL). So a reader never
 *   sees a half-written lock, and a missing file means "try again", never "stale".
 * - A stale lock (its holder's pid is not running on this host) is removed only inside a takeover gate,
 *   a file created the same way whose name is derived from the stale lock's exact content: everyone who
 *   found the same stale lock races for the same gate, exactly one creates it, and inside it checks that
 *   the lock still is that stale one before replacing it. A gate whose own owner died is never removed by
 *   others (that could hit a live one): they pass to the gate one level up. The winner removes the gates
 *   once its own lock is in place.
 * - The holder removes the lock only while it still holds its own content (pid, time and a nonce).
 * Lock and gate files are readable by their owner only (0600).
 */
export interface DirLock {
  /** The lock file this lock holds. */
  readonly file: string;
  release(): void;
}

interface LockInfo {
  pid: number;
  host: string;
  since: string;
  /** The holder answers other processes on loopback (core/engine/connect.ts): it publishes where, soon after taking the lock. */
  serves?: true;
}

/** A lock file as read: its exact text (compared, never edited), what it says, and its age. */
interface Seen {
  raw: string;
  info: LockInfo | null;
  ageMs: number;
}

/** A lock file with no readable content this old was left by a writer that died mid-write (older Nemori). */
const UNREADABLE_STALE_MS = 5_000;
/** How long a process waits for another one's takeover (milliseconds of work) before giving up. */
const DEFAULT_WAIT_MS = 10_000;
/** Gates one level up per owner that died inside; more than this many deaths in a row is not a race. */
const MAX_GATE_LEVELS = 32;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4));
/** A short synchronous pause (the lock is taken synchronously, before any database work). */
function sleep(ms: number): void {
  Atomics.wait(pause, 0, 0, ms);
}

function parse(raw: string): LockInfo | null {
  try {
    const v = JSON.parse(raw) as Partial<LockInfo>;
    if (typeof v.pid !== 'number' || typeof v.host !== 'string') return null;
    return { pid: v.pid, host: v.host, since: String(v.since ?? ''), ...(v.serves === true ? { serves: true as const } : {}) };
  } catch {
    return null;
  }
}

/** The file's content and age, read through one descriptor; null when there is no such file (any more). */
function readSeen(file: string): Seen | null {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  try {
    const stat = fs.fstatSync(fd);
    const raw = fs.readFileSync(fd, 'utf8');
    return { raw, info: parse(raw), ageMs: Date.now() - stat.mtimeMs };
  } finally {
    fs.closeSync(fd);
  }
}

const LINK_UNSUPPORTED = new Set(['EPERM', 'ENOTSUP', 'ENOSYS', 'EOPNOTSUPP', 'EXDEV', 'EINVAL']);

/**
 * Creates `file` holding `content`, or returns false when the name is taken. The name appears with the
 * whole content (a hard link to a private file). Where the file system has no hard links (FAT), an
 * exclusive create and write: a reader may then briefly see it empty, which it treats as "being written".
 */
function createWith(file: string, content: string): boolean {
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  fs.writeFileSync(tmp, content, { mode: 0o600, flag: 'wx' });
  try {
    fs.linkSync(tmp, file);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    if (code === 'EEXIST') return false;
    if (!LINK_UNSUPPORTED.has(code)) throw e;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  try {
    fs.writeFileSync(file, content, { mode: 0o600, flag: 'wx' });
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

type Verdict = 'live' | 'stale' | 'unsure';

/** Whether what a lock (or gate) file says belongs to a running process. Another host's lock is always live. */
function judge(seen: Seen, host: string): Verdict {
  if (!seen.info) return seen.ageMs > UNREADABLE_STALE_MS ? 'stale' : 'unsure';
  if (seen.info.host !== host) return 'live';
  return isAlive(seen.info.pid) ? 'live' : 'stale';
}

function lockedError(file: string, info: LockInfo | null): NemoriError {
  if (!info) return new NemoriError('STORE_LOCKED', `could not take the lock ${file}`, { lockFile: file });
  return new NemoriError(
    'STORE_LOCKED',
    `the memory store is in use by another Nemori process (pid ${info.pid} on ${info.host}, since ${info.since}); ` +
      `close it first, or delete ${file} if that process is gone`,
    { pid: info.pid, host: info.host, lockFile: file },
  );
}

/**
 * Replaces the stale lock `seen` with `mine`, inside the gate for that stale lock. 'taken' when the lock is
 * now ours; 'again' when the caller should look at the lock afresh (someone else took it, or is taking it).
 */
function takeOver(file: string, seen: Seen, mine: string, me: LockInfo): 'taken' | 'again' {
  const key = createHash('sha256').update(seen.raw).digest('hex').slice(0, 16);
  const gate = (level: number) => `${file}.takeover-${key}-${level}`;
  for (let level = 0; level < MAX_GATE_LEVELS; level++) {
    if (createWith(gate(level), JSON.stringify(me))) {
      try {
        const now = readSeen(file);
        // Gone: a taker that died between removing it and writing its own. Whoever creates it first has it.
        if (now === null) return createWith(file, mine) ? 'taken' : 'again';
        if (now.raw !== seen.raw) return 'again';
        fs.rmSync(file, { force: true });
        return createWith(file, mine) ? 'taken' : 'again';
      } finally {
        // Our own gate and those below it, whose owners died: this stale lock is dealt with.
        for (let l = level; l >= 0; l--) fs.rmSync(gate(l), { force: true });
      }
    }
    const owner = readSeen(gate(level));
    // Removed just now: that takeover is over; look at the lock again.
    if (owner === null) return 'again';
    // Someone is taking it over right now (or has just written its gate): wait for them.
    if (judge(owner, me.host) !== 'stale') return 'again';
    // Its owner died inside the gate: one level up.
  }
  return 'again';
}

/**
 * Takes the lock `file`, or throws STORE_LOCKED naming the process that holds it. A lock whose holder
 * died is taken over (by exactly one of the processes trying at that moment).
 */
export function acquireLock(file: string, o: { waitMs?: number; serves?: boolean } = {}): DirLock {
  const me: LockInfo = { pid: process.pid, host: os.hostname(), since: new Date().toISOString() };
  const mine = JSON.stringify({ ...me, ...(o.serves ? { serves: true } : {}), nonce: randomBytes(12).toString('hex') });
  const deadline = Date.now() + (o.waitMs ?? DEFAULT_WAIT_MS);
  let last: Seen | null = null;
  for (;;) {
    if (createWith(file, mine)) return held(file, mine);
    const seen = readSeen(file);
    if (seen !== null) {
      last = seen;
      const verdict = judge(seen, me.host);
      if (verdict === 'live') throw lockedError(file, seen.info);
      if (verdict === 'stale' && takeOver(file, seen, mine, me) === 'taken') return held(file, mine);
    }
    if (Date.now() > deadline) throw lockedError(file, last?.info ?? null);
    sleep(1 + Math.random() * 4);
  }
}

function held(file: string, mine: string): DirLock {
  let released = false;
  return {
    file,
    release() {
      if (released) return;
      released = true;
      // Only our own lock: after a takeover (we were thought dead) the file is someone else's.
      if (readSeen(file)?.raw === mine) fs.rmSync(file, { force: true });
    },
  };
}

/** What the lock file says about its holder, without taking it; null when there is no readable lock. */
export function readLockHolder(file: string): (LockInfo & { ageMs: number; alive: boolean }) | null {
  const seen = readSeen(file);
  if (!seen?.info) return null;
  return { ...seen.info, ageMs: seen.ageMs, alive: judge(seen, os.hostname()) === 'live' };
}
