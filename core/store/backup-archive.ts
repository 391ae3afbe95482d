import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { NemoriError } from '../domain/errors.js';
import { openSealedBackup } from './backup-crypto.js';

/**
 * Reading a backup file before PGlite sees it. PGlite's own loader decompresses through a stream whose
 * write errors nobody awaits: a file that is not gzip ends the process with an unhandled rejection
 * (`incorrect header check`) after the caller has already caught the failure. So the archive is checked
 * and decompressed here, and PGlite gets a plain tar it only has to unpack.
 */

const gunzip = promisify(zlib.gunzip);
const BLOCK = 512;

const notABackup = (file: string, why: string) =>
  new NemoriError('INVALID_INPUT', `${path.basename(file)} is not a Nemori backup (${why})`);

/** The entry names of a tar archive, or null when the bytes are not one (a header's checksum is wrong). */
function tarEntryNames(tar: Uint8Array): string[] | null {
  const text = (from: number, to: number) => Buffer.from(tar.subarray(from, to)).toString('latin1').replace(/\0.*$/s, '');
  const names: string[] = [];
  for (let at = 0; at + BLOCK <= tar.length;) {
    const header = tar.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) return names;
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : (header[i] ?? 0);
    if (parseInt(text(at + 148, at + 156).trim(), 8) !== sum) return null;
    const prefix = text(at + 345, at + 500);
    names.push(prefix ? `${prefix}/${text(at, at + 100)}` : text(at, at + 100));
    const size = parseInt(text(at + 124, at + 136).trim() || '0', 8);
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
  return names.length ? names : null;
}

/**
 * The backup in `file` (opened with `passphrase` when it is encrypted) as an uncompressed tar of a Postgres data folder, ready for PGlite's
 * `loadDataDir`. Anything else — a missing or special file, text, a broken or foreign archive — is an
 * INVALID_INPUT (or NOT_FOUND) error that names the file; nothing here can fail unhandled.
 */
export async function readBackupArchive(file: string, passphrase?: string): Promise<Blob> {
  let bytes: Buffer;
  try {
    // A FIFO or a device would block the read for ever, a folder cannot be read: only regular files.
    if (!fs.statSync(file).isFile()) throw notABackup(file, 'it is not a regular file');
    bytes = await fs.promises.readFile(file);
  } catch (e) {
    if (e instanceof NemoriError) throw e;
    throw new NemoriError('NOT_FOUND', `cannot read the backup ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  // An encrypted backup is opened first: a wrong passphrase or a changed file stops here (core/store/backup-crypto.ts).
  bytes = await openSealedBackup(bytes, passphrase, path.basename(file));
  // readFile and gunzip hand out Buffers over plain ArrayBuffers (never shared memory).
  let tar = bytes as Uint8Array<ArrayBuffer>;
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      tar = (await gunzip(bytes)) as Uint8Array<ArrayBuffer>;
    } catch {
      throw notABackup(file, 'its compressed data is damaged');
    }
  }
  const names = tarEntryNames(tar);
  if (!names) throw notABackup(file, 'it is not a database archive');
  if (!names.some((n) => n.replace(/^\/+/, '') === 'PG_VERSION')) throw notABackup(file, 'it is an archive, but not of a database');
  return new Blob([tar]);
}
