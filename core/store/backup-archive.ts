import fs from 'node:fs';
import path from 'node:path';
import { pipeline as streamPipeline, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { NemoriError } from '../domain/errors.js';
import { isSealedFile, sealing, unsealFile } from './backup-crypto.js';

/**
 * A backup file: a gzipped tar of the database's data folder, sealed when it has a passphrase.
 *
 * Written here from the folder on disk, a file at a time, so that memory stays flat however big the
 * store is (PGlite's own dump builds the whole tar in memory, then its gzip: 2.2 times the store).
 * Read here the same way, into a folder PGlite then opens: its own loader holds the archive in memory
 * (four times the store at its peak) and decompresses through a stream whose write errors nobody
 * awaits, so a file that is not gzip ended the process with an unhandled rejection (`incorrect header
 * check`) after the caller had already caught the failure. The archive is the one PGlite's dump writes
 * and its loader reads.
 */

const BLOCK = 512;

const notABackup = (file: string, why: string) =>
  new NemoriError('INVALID_INPUT', `${path.basename(file)} is not a Nemori backup (${why})`);

/**
 * The plain bytes of the backup in `file`, opened with `passphrase` when it is encrypted (a wrong
 * passphrase or a changed file is refused here, before anything is made of it). A missing or special
 * file is a NOT_FOUND or INVALID_INPUT error that names it.
 */
export async function openBackupArchive(file: string, passphrase?: string): Promise<AsyncIterable<Buffer>> {
  try {
    // A FIFO or a device would block the read for ever, a folder cannot be read: only regular files.
    if (!fs.statSync(file).isFile()) throw notABackup(file, 'it is not a regular file');
    fs.accessSync(file, fs.constants.R_OK);
  } catch (e) {
    if (e instanceof NemoriError) throw e;
    throw new NemoriError('NOT_FOUND', `cannot read the backup ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (!isSealedFile(file)) return fs.createReadStream(file);
  const name = path.basename(file);
  if (passphrase === undefined) throw new NemoriError('INVALID_INPUT', `${name} is encrypted: give its passphrase to restore it`);
  return unsealFile(file, passphrase, name);
}

/** The bytes decompressed when they are gzip (its first two bytes say so), as they are otherwise. */
async function* gunzipped(source: AsyncIterable<Buffer>, file: string): AsyncGenerator<Buffer> {
  const it = source[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) return;
  async function* all(): AsyncGenerator<Buffer> {
    yield first.value;
    for (let n = await it.next(); !n.done; n = await it.next()) yield n.value;
  }
  if (first.value[0] !== 0x1f || first.value[1] !== 0x8b) return yield* all();
  const out = streamPipeline(Readable.from(all()), zlib.createGunzip(), () => {});
  try {
    for await (const part of out) yield part as Buffer;
  } catch {
    throw notABackup(file, 'its compressed data is damaged');
  }
}

/** Reads a stream of bytes in the sizes asked for. */
function byteReader(source: AsyncIterable<Buffer>) {
  const it = source[Symbol.asyncIterator]();
  let held: Buffer = Buffer.alloc(0);
  const more = async () => {
    const n = await it.next();
    if (n.done) return false;
    held = held.length ? Buffer.concat([held, n.value]) : n.value;
    return true;
  };
  const take = (n: number) => {
    const out = held.subarray(0, n);
    held = held.subarray(out.length);
    return out;
  };
  return {
    /** Exactly `n` bytes, or null at the end. */
    async exactly(n: number): Promise<Buffer | null> {
      while (held.length < n) if (!(await more())) return null;
      return take(n);
    },
    /** Some bytes, at most `n`, or null at the end. */
    async upTo(n: number): Promise<Buffer | null> {
      if (held.length === 0 && !(await more())) return null;
      return take(n);
    },
  };
}

/**
 * Unpacks the backup's bytes (`openBackupArchive`) into the folder `into`, a part at a time: a Postgres
 * data folder for PGlite to open. Bytes that are not such an archive — text, a broken or foreign one,
 * names that would leave the folder — are an INVALID_INPUT error that names `file`, after which `into`
 * may hold part of it: the caller removes it.
 */
export async function unpackBackupArchive(bytes: AsyncIterable<Buffer>, into: string, file: string): Promise<void> {
  const notADatabase = () => notABackup(file, 'it is not a database archive');
  const r = byteReader(gunzipped(bytes, file));
  let entries = 0;
  let version = false;
  fs.mkdirSync(into, { recursive: true, mode: 0o700 });
  for (;;) {
    const header = await r.exactly(BLOCK);
    if (header === null || header.every((b) => b === 0)) break;
    const text = (from: number, to: number) => header.subarray(from, to).toString('latin1').replace(/\0.*$/s, '');
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : header[i]!;
    if (parseInt(text(148, 156).trim(), 8) !== sum) throw notADatabase();
    const prefix = text(345, 500);
    const name = (prefix ? `${prefix}/${text(0, 100)}` : text(0, 100)).replace(/^\/+/, '');
    const size = parseInt(text(124, 136).trim() || '0', 8);
    const type = text(156, 157) || '0';
    const target = path.resolve(into, name);
    const inside = path.relative(into, target);
    if (!Number.isSafeInteger(size) || size < 0 || inside.startsWith('..') || path.isAbsolute(inside)) throw notADatabase();
    // A folder is made; a file is made in its folder; another entry (an extended header) makes nothing.
    if (type === '0' || type === '5') fs.mkdirSync(type === '5' ? target : path.dirname(target), { recursive: true, mode: 0o700 });
    const fd = type === '0' ? fs.openSync(target, 'w', 0o600) : null;
    try {
      // A file's bytes go to it; another entry's (an extended header) are passed over.
      for (let left = size + ((BLOCK - (size % BLOCK)) % BLOCK), written = 0; left > 0;) {
        const part = await r.upTo(Math.min(left, 1 << 20));
        if (part === null) throw notADatabase();
        if (fd !== null && written < size) written += fs.writeSync(fd, part, 0, Math.min(part.length, size - written));
        left -= part.length;
      }
    } finally {
      if (fd !== null) fs.closeSync(fd);
    }
    entries++;
    version ||= name === 'PG_VERSION';
  }
  if (entries === 0) throw notADatabase();
  if (!version) throw notABackup(file, 'it is an archive, but not of a database');
}

/**
 * A ustar header in the dialect PGlite's loader reads back (tinytar's): a name from the data folder's
 * root with a leading slash, a folder without a trailing one, no owner.
 */
function tarHeader(name: string, o: { size: number; mode: number; mtime: Date; folder: boolean }): Buffer {
  if (Buffer.byteLength(name) > 100) throw new Error(`${name}: too long a name for the backup's archive`);
  const h = Buffer.alloc(BLOCK);
  const octal = (n: number, width: number, at: number) => h.write(`${n.toString(8).padStart(width - 1, '0')}\0`, at, width, 'latin1');
  h.write(name, 0, 100, 'utf8');
  octal(o.mode & 0o7777, 8, 100);
  octal(0, 8, 108);
  octal(0, 8, 116);
  octal(o.size, 12, 124);
  octal(Math.floor(o.mtime.getTime() / 1000), 12, 136);
  h.write(o.folder ? '5' : '0', 156, 1, 'latin1');
  h.write('ustar\x0000', 257, 8, 'latin1');
  // The checksum is the sum of the header's bytes with its own field as spaces.
  h.write('        ', 148, 8, 'latin1');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'latin1');
  return h;
}

/** The tar of a folder, in blocks: each file read in parts of at most 1 MB, exactly the size its header says. */
async function* tarOf(root: string, under = ''): AsyncGenerator<Buffer> {
  for (const name of fs.readdirSync(path.join(root, under)).sort()) {
    const rel = `${under}/${name}`;
    const full = path.join(root, rel);
    const stat = fs.lstatSync(full);
    if (stat.isDirectory()) {
      yield tarHeader(rel, { size: 0, mode: stat.mode, mtime: stat.mtime, folder: true });
      yield* tarOf(root, rel);
    } else if (stat.isFile()) {
      yield tarHeader(rel, { size: stat.size, mode: stat.mode, mtime: stat.mtime, folder: false });
      const fd = fs.openSync(full, 'r');
      try {
        for (let at = 0; at < stat.size;) {
          const part = Buffer.alloc(Math.min(1 << 20, stat.size - at));
          const n = fs.readSync(fd, part, 0, part.length, at);
          if (n === 0) throw new Error(`${full} got shorter while it was backed up`);
          yield part.subarray(0, n);
          at += n;
        }
      } finally {
        fs.closeSync(fd);
      }
      if (stat.size % BLOCK) yield Buffer.alloc(BLOCK - (stat.size % BLOCK));
    } else {
      throw new Error(`${full}: a database folder holds only files and folders`);
    }
  }
  if (under === '') yield Buffer.alloc(2 * BLOCK);
}

/** A backup being written, beside the name it will have. */
const PARTIAL = /^nemori-backup-.*\.partial-\d+$/;

/**
 * Writes the data folder `dataDir` (which nothing may change meanwhile) to `file` as a backup, sealed
 * with `passphrase` when there is one, readable by the person only. Written beside it first: a backup
 * that fails leaves no file, and what a killed one left there is removed (the store writes one backup
 * at a time).
 */
export async function writeBackupArchive(dataDir: string, file: string, passphrase?: string): Promise<void> {
  const folder = path.dirname(file);
  for (const name of fs.readdirSync(folder)) if (PARTIAL.test(name)) fs.rmSync(path.join(folder, name), { force: true });
  const partial = `${file}.partial-${process.pid}`;
  try {
    await pipeline([
      Readable.from(tarOf(dataDir)),
      zlib.createGzip(),
      ...(passphrase === undefined ? [] : [await sealing(passphrase)]),
      fs.createWriteStream(partial, { mode: 0o600 }),
    ]);
    fs.renameSync(partial, file);
  } catch (e) {
    fs.rmSync(partial, { force: true });
    throw e;
  }
}
