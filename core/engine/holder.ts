/**
 * The holder of a data folder: the one process that has its store open (PGlite must never be opened
 * twice) and answers every other process on a loopback port. It says where in the holder file,
 * `<home>/db/engine.json` (owner-only, written whole by rename, removed when it closes):
 *
 *   { "pid", "port", "token", "version": { "app", "schema" }, "home", "startedAt", "state": "open" | "closing" }
 *
 * A program finds the port and the token there and calls operations with `Authorization: Bearer <token>`
 * (core/http/holder-protocol.ts). `state` turns to `closing` while the holder finishes the calls it is
 * running before it lets go of the folder: a newcomer then waits for the lock rather than calling it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { STORE_FOLDER } from '../store/data-folder.js';
import { defaultMigrationsDir } from '../store/migrate.js';

export const HOLDER_FILE = 'engine.json';

/** Where the holder of `home` says how to reach it. */
export const holderFileOf = (home: string) => path.join(home, STORE_FOLDER, HOLDER_FILE);
/** The data folder's lock (core/store/lock.ts), as the store takes it. */
export const lockFileOf = (home: string) => path.join(home, STORE_FOLDER, 'nemori.lock');

/** What a process speaks: the app's version and the newest schema it knows. Two processes share a folder only when both agree. */
export const EngineVersion = z.object({ app: z.string().min(1), schema: z.number().int().min(0) });
export type EngineVersion = z.infer<typeof EngineVersion>;

/** Who holds a folder, as its holder file and its ping (`GET /api/ping`) say. */
export const HolderIdentity = z.object({
  pid: z.number().int().positive(),
  version: EngineVersion,
  /** The data folder it holds (absolute). */
  home: z.string().min(1),
  startedAt: z.string(),
});
export type HolderIdentity = z.infer<typeof HolderIdentity>;

export const HolderFile = HolderIdentity.extend({
  port: z.number().int().min(1).max(65_535),
  /** The bearer token of its loopback service: 32 random bytes, base64url. */
  token: z.string().min(16),
  /**
   * The token companions are given (MCP over HTTP): memory operations only, never a path on disk or a
   * setting. Absent in a holder file written by a Nemori from before companion tokens.
   */
  companionToken: z.string().min(16).optional(),
  state: z.enum(['open', 'closing']),
});
export type HolderFile = z.infer<typeof HolderFile>;

/** Enough of a holder file written by another version of Nemori to name it in an error. */
const ForeignHolderFile = z.looseObject({ pid: z.number().int().positive(), version: z.unknown().optional() });

/** The app's version: the nearest package.json of ours above this file (the source tree, the bundle, the packaged app). */
function packageVersion(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'nemori-desktop' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      /* none here: one folder up */
    }
    const up = path.dirname(dir);
    if (up === dir) return '0.0.0';
    dir = up;
  }
}

/** The newest migration this code carries (the store's schema after it opens). */
function codeSchemaVersion(): number {
  try {
    return Math.max(
      0,
      ...fs
        .readdirSync(defaultMigrationsDir)
        .filter((f) => /^\d{3}_.+\.sql$/.test(f))
        .map((f) => Number(f.slice(0, 3))),
    );
  } catch {
    return 0;
  }
}

let own: EngineVersion | null = null;
/** This process's version. */
export function engineVersion(): EngineVersion {
  own ??= { app: packageVersion(), schema: codeSchemaVersion() };
  return own;
}

export const sameVersion = (a: EngineVersion, b: EngineVersion) => a.app === b.app && a.schema === b.schema;

/** "0.2.0", or "0.2.0 (schema 6)" when the app versions match and only the schemas differ. */
export function describeVersions(theirs: EngineVersion, ours: EngineVersion): [string, string] {
  if (theirs.app !== ours.app) return [theirs.app, ours.app];
  return [`${theirs.app} (schema ${theirs.schema})`, `${ours.app} (schema ${ours.schema})`];
}

export type HolderFileRead =
  | { kind: 'none' }
  | { kind: 'ours'; holder: HolderFile }
  /** Written by another version of Nemori (another shape): only its pid and what it says its version is. */
  | { kind: 'foreign'; pid: number; version: string | null };

export function readHolderFile(home: string): HolderFileRead {
  let text: string;
  try {
    text = fs.readFileSync(holderFileOf(home), 'utf8');
  } catch {
    return { kind: 'none' };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: 'none' };
  }
  const parsed = HolderFile.safeParse(json);
  if (parsed.success) return { kind: 'ours', holder: parsed.data };
  const foreign = ForeignHolderFile.safeParse(json);
  if (!foreign.success) return { kind: 'none' };
  const v = foreign.data.version;
  const version =
    typeof v === 'string'
      ? v
      : v && typeof v === 'object' && typeof (v as { app?: unknown }).app === 'string'
        ? (v as { app: string }).app
        : null;
  return { kind: 'foreign', pid: foreign.data.pid, version };
}

/** Renames over a file another process may be reading (Windows refuses that for a moment). */
function renameOver(from: string, to: string): void {
  for (let attempt = 0; ; attempt++) {
    try {
      fs.renameSync(from, to);
      return;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (attempt >= 20 || (code !== 'EPERM' && code !== 'EACCES' && code !== 'EBUSY')) throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}

/** Writes the holder file whole: readers see the previous one or this one, never a part. */
export function writeHolderFile(home: string, holder: HolderFile): void {
  const file = holderFileOf(home);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(HolderFile.parse(holder), null, 2)}\n`, { mode: 0o600 });
  // The mode of a file that existed under the temporary name is not changed by writeFileSync.
  fs.chmodSync(tmp, 0o600);
  renameOver(tmp, file);
}

/** Removes the holder file if it still is ours (its token), never one a newer holder wrote. */
export function removeHolderFile(home: string, token: string): void {
  const read = readHolderFile(home);
  if (read.kind === 'ours' && read.holder.token === token) fs.rmSync(holderFileOf(home), { force: true });
}

/** Whether two paths name one folder (a symlink, `..`, a trailing slash, case on case-blind disks). */
export function sameFolder(a: string, b: string): boolean {
  const real = (p: string) => {
    try {
      return fs.realpathSync.native(p);
    } catch {
      return path.resolve(p);
    }
  };
  return real(a) === real(b);
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
