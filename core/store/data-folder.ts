import fs from 'node:fs';
import path from 'node:path';

/**
 * The data folder on disk: what a memory consists of, whether a folder can take one, and carrying
 * it from one folder to another. Plain file work; the store must be closed while it moves.
 */

/** The database's folder inside the data folder. */
export const STORE_FOLDER = 'db';
/** What a Nemori data folder holds: the database, downloaded models, backups. */
export const MEMORY_ENTRIES = [STORE_FOLDER, 'models', 'backups'] as const;

/** Where a data folder whose store is `storeDir` keeps its backups: where `backup` writes unless told otherwise, and Settings lists. */
export function backupFolder(storeDir: string): string {
  return path.join(path.dirname(storeDir), 'backups');
}

const BACKUP_NAME = /^nemori-backup-.*\.tar\.gz(\.enc)?$/;

export interface BackupFileInfo {
  file: string;
  bytes: number;
  /** When it was written (its file's modification time). */
  at: string;
  encrypted: boolean;
}

/** The backups in `folder`, newest first. */
export function listBackupFiles(folder: string): BackupFileInfo[] {
  if (!fs.existsSync(folder)) return [];
  return fs
    .readdirSync(folder)
    .filter((n) => BACKUP_NAME.test(n))
    .map((n) => {
      const stat = fs.statSync(path.join(folder, n));
      return { file: path.join(folder, n), bytes: stat.size, at: stat.mtime.toISOString(), encrypted: n.endsWith('.enc') };
    })
    .sort((a, b) => b.at.localeCompare(a.at));
}

/** Why a memory cannot go to, or be opened in, a folder (the window words it in the person's language). */
export const FOLDER_PROBLEMS = ['is-current', 'inside-current', 'not-a-folder', 'not-empty', 'other-files', 'not-writable'] as const;
export type FolderProblem = (typeof FOLDER_PROBLEMS)[number];

export interface FolderCheck {
  folder: string;
  exists: boolean;
  empty: boolean;
  holdsMemory: boolean;
  isCurrent: boolean;
  cannotMove: FolderProblem | null;
  cannotOpen: FolderProblem | null;
}

/** The engine's own words for a problem, in the error a refused change throws. */
export function describeFolderProblem(problem: FolderProblem, folder: string): string {
  switch (problem) {
    case 'is-current':
      return `the memory is already kept in ${folder}`;
    case 'inside-current':
      return `${folder} is inside the current data folder`;
    case 'not-a-folder':
      return `${folder} is a file, not a folder`;
    case 'not-empty':
      return `${folder} is not empty: choose an empty or a new folder`;
    case 'other-files':
      return `${folder} holds other files and no Nemori memory: choose an empty folder or one with a memory`;
    case 'not-writable':
      return `Nemori cannot write to ${folder}`;
  }
}

const isInside = (child: string, parent: string) => {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

/** The nearest folder that exists at or above `folder` (where a new one would be created). */
function existingAncestor(folder: string): string {
  let at = folder;
  while (!fs.existsSync(at) && path.dirname(at) !== at) at = path.dirname(at);
  return at;
}

function writable(folder: string): boolean {
  try {
    fs.accessSync(existingAncestor(folder), fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a memory can be moved to `folder`, or opened (or started) there. `appFolder` is the default
 * data folder: on macOS and Windows the app keeps its own files there too (Electron's profile), so only
 * a memory's parts count as content in it.
 */
export function checkFolder(folderIn: string, current: string | null, appFolder: string | null = null): FolderCheck {
  const folder = path.resolve(folderIn);
  const exists = fs.existsSync(folder);
  if (exists && !fs.statSync(folder).isDirectory()) {
    return { folder, exists, empty: false, holdsMemory: false, isCurrent: false, cannotMove: 'not-a-folder', cannotOpen: 'not-a-folder' };
  }
  const ours = appFolder !== null && path.resolve(appFolder) === folder;
  const entries = exists
    ? fs.readdirSync(folder).filter((n) => !n.startsWith('.') && (!ours || (MEMORY_ENTRIES as readonly string[]).includes(n)))
    : [];
  const holdsMemory = entries.includes(STORE_FOLDER);
  const isCurrent = current !== null && path.resolve(current) === folder;
  const notWritable = writable(folder) ? null : 'not-writable';
  const inside = current !== null && isInside(folder, current);
  return {
    folder,
    exists,
    empty: entries.length === 0,
    holdsMemory,
    isCurrent,
    cannotMove: isCurrent ? 'is-current' : inside ? 'inside-current' : entries.length > 0 ? 'not-empty' : notWritable,
    cannotOpen: isCurrent ? 'is-current' : inside ? 'inside-current' : holdsMemory || entries.length === 0 ? notWritable : 'other-files',
  };
}

/** Copies every part of the memory in `from` to `to` (created). Returns what was copied. */
export function copyMemory(from: string, to: string): string[] {
  fs.mkdirSync(to, { recursive: true });
  const copied: string[] = [];
  for (const name of MEMORY_ENTRIES) {
    const source = path.join(from, name);
    if (!fs.existsSync(source)) continue;
    fs.cpSync(source, path.join(to, name), { recursive: true, errorOnExist: true, force: false, preserveTimestamps: true });
    copied.push(name);
  }
  return copied;
}

/** Removes the named parts of a memory; returns the paths it could not remove (the caller says so). */
export function removeMemory(folder: string, names: readonly string[]): string[] {
  const left: string[] = [];
  for (const name of names) {
    const p = path.join(folder, name);
    try {
      fs.rmSync(p, { recursive: true, force: true });
    } catch {
      left.push(p);
    }
  }
  return left;
}

/**
 * A memory is private: the data folder, everything in it and every backup are readable by the person
 * only. New files get it from the process's umask (PGlite and the backup writer create files with the
 * default modes, 0666 under the common umask 0022: world-readable WAL with message text); what an
 * older version or another umask left is tightened here, at every open.
 */
export function makePrivate(folder: string): void {
  try {
    process.umask(0o077);
  } catch {
    // Worker threads cannot change the umask; the walk below still fixes what exists.
  }
  const walk = (p: string) => {
    const st = fs.lstatSync(p, { throwIfNoEntry: false });
    if (!st || st.isSymbolicLink()) return;
    if (st.isDirectory()) {
      if ((st.mode & 0o777) !== 0o700) fs.chmodSync(p, 0o700);
      for (const name of fs.readdirSync(p)) walk(path.join(p, name));
    } else if ((st.mode & 0o077) !== 0) {
      fs.chmodSync(p, st.mode & 0o700);
    }
  };
  if (fs.existsSync(folder)) walk(folder);
}

/**
 * Stores set aside by a restore running in this process. The restore reopens the store while it still
 * needs its aside (to put it back if that open fails); any other aside is what a restore killed after
 * its swap left behind.
 */
const asidesInUse = new Set<string>();

/**
 * Beside the database folder while a backup is restored (core/engine/app-engine.ts): the backup
 * unpacked, and the store set aside, kept until `done` (after the restore removed or put back its aside).
 */
export function restoreStaging(db: string, at: number): { staged: string; aside: string; done: () => void } {
  const aside = `${db}.before-restore-${at}`;
  asidesInUse.add(path.resolve(aside));
  return { staged: `${db}.restoring-${at}`, aside, done: () => asidesInUse.delete(path.resolve(aside)) };
}

/**
 * A restore killed part way leaves its folders beside the database — and, killed between its two
 * renames, no database at all, which the next open would take for a new, empty memory. Puts back the
 * store that was set aside when nothing took its place, and removes unpacked backups left over. A
 * store set aside behind a finished swap is left for `removeRestoredAsides`, once the restored store
 * has opened. Called with the lock held.
 */
export function finishInterruptedRestore(db: string): void {
  const parent = path.dirname(db);
  if (!fs.existsSync(parent)) return;
  const base = path.basename(db);
  for (const name of fs.readdirSync(parent).sort()) {
    const p = path.join(parent, name);
    if (name.startsWith(`${base}.restoring-`)) fs.rmSync(p, { recursive: true, force: true });
    else if (name.startsWith(`${base}.before-restore-`) && !fs.existsSync(path.join(db, 'pg')) && fs.existsSync(path.join(p, 'pg'))) {
      fs.renameSync(path.join(p, 'pg'), path.join(db, 'pg'));
      fs.rmSync(p, { recursive: true, force: true });
    }
  }
}

/**
 * Removes the stores that restores killed after their swap set aside (the restored store opened, so
 * the swap is complete; the restore backed the old store up before swapping). A restore still running
 * in this process keeps its own. Called with the lock held, once the store has opened and migrated.
 */
export function removeRestoredAsides(db: string): void {
  const parent = path.dirname(db);
  const base = path.basename(db);
  if (!fs.existsSync(path.join(db, 'pg'))) return;
  for (const name of fs.readdirSync(parent)) {
    const p = path.join(parent, name);
    if (name.startsWith(`${base}.before-restore-`) && !asidesInUse.has(path.resolve(p))) fs.rmSync(p, { recursive: true, force: true });
  }
}
