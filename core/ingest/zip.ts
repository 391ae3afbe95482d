import fs from 'node:fs';
import { PassThrough, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import yauzl from 'yauzl';
import { NemoriError } from '../domain/errors.js';

/**
 * The one place importers touch zip archives (ChatGPT, Slack and WhatsApp exports). Entries are read as
 * streams straight out of the archive: nothing is extracted to disk and a large member never sits in
 * memory unless a caller asks for it with `readZipEntry`.
 */

export interface ZipEntryInfo {
  /** Path inside the archive, always with forward slashes. */
  name: string;
  /** Uncompressed size in bytes. */
  size: number;
  compressedSize: number;
  /** Byte offset of the entry's local header in the archive: where a person (or `zipinfo -v`) finds it. */
  offset: number;
}

/** An archive problem: names the archive (and member) and the byte offset when one is known. */
export function zipError(file: string, byte: number | null, problem: string, member?: string): NemoriError {
  const where = byte === null ? '' : ` byte ${byte}:`;
  const name = member ? `${file} (${member})` : file;
  return new NemoriError('IMPORT_PARSE', `${name}:${where} ${problem}`, {
    file,
    ...(member ? { member } : {}),
    ...(byte === null ? {} : { byte }),
  });
}

/** Zip files start with a local file header; an empty archive with only the end record. Used by `detect()`. */
export function looksLikeZip(head: string): boolean {
  return head.startsWith('PK\u0003\u0004') || head.startsWith('PK\u0005\u0006');
}

function describe(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  if (/end of central directory record signature not found/i.test(m))
    return 'not a zip archive, or the archive is truncated (no end-of-central-directory record)';
  return `broken zip archive (${m})`;
}

async function openZip(file: string): Promise<yauzl.ZipFile> {
  try {
    // lazyEntries: we walk the central directory ourselves and stop at the member we need.
    // autoClose off: we close exactly once, when the caller's stream is done.
    return await yauzl.openPromise(file, {
      lazyEntries: true,
      autoClose: false,
      decodeStrings: true,
      validateEntrySizes: true,
      strictFileNames: false,
    });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code) {
      throw new NemoriError('INVALID_INPUT', `${file}: cannot read (${(e as NodeJS.ErrnoException).code})`, { file });
    }
    let size: number | null = null;
    try {
      size = fs.statSync(file).size;
    } catch {
      // Stat failing after a successful open is a race we do not need to explain.
    }
    // yauzl looks for the end record at the end of the file: a missing or bad one is reported there.
    throw zipError(file, size, describe(e));
  }
}

function info(e: yauzl.Entry): ZipEntryInfo {
  return {
    name: e.fileName.replace(/\\/g, '/'),
    size: e.uncompressedSize,
    compressedSize: e.compressedSize,
    offset: e.relativeOffsetOfLocalHeader,
  };
}

/** Walks the central directory; `stop` returning true ends the walk early and returns that entry. */
async function walkEntries(
  file: string,
  zip: yauzl.ZipFile,
  stop: (e: ZipEntryInfo, raw: yauzl.Entry) => boolean,
): Promise<yauzl.Entry | null> {
  let cursor = 0;
  try {
    for await (const entry of zip.eachEntry()) {
      cursor++;
      if (stop(info(entry), entry)) return entry;
    }
    return null;
  } catch (e) {
    throw zipError(file, null, `central directory entry ${cursor + 1}: ${describe(e)}`);
  }
}

/**
 * A member's decompressed bytes. Data errors (a truncated or corrupt member) surface as a stream error
 * carrying the member's byte offset in the archive; `done` runs once the stream is finished or destroyed.
 */
async function memberStream(file: string, zip: yauzl.ZipFile, entry: yauzl.Entry, done: () => void): Promise<Readable> {
  const name = info(entry).name;
  if (entry.isEncrypted())
    throw zipError(file, entry.relativeOffsetOfLocalHeader, 'the member is encrypted; export it again without a password', name);
  let raw: Readable;
  try {
    raw = await zip.openReadStreamPromise(entry);
  } catch (e) {
    throw zipError(file, entry.relativeOffsetOfLocalHeader, describe(e), name);
  }
  const out = new PassThrough();
  raw.on('error', (e) => out.destroy(zipError(file, entry.relativeOffsetOfLocalHeader, `cannot decompress: ${e.message}`, name)));
  out.on('close', () => {
    raw.destroy();
    done();
  });
  raw.pipe(out);
  return out;
}

/** Every file in the archive (directories left out), in central-directory order. */
export async function listZipEntries(file: string): Promise<ZipEntryInfo[]> {
  const zip = await openZip(file);
  try {
    const out: ZipEntryInfo[] = [];
    await walkEntries(file, zip, (e) => {
      if (!e.name.endsWith('/')) out.push(e);
      return false;
    });
    return out;
  } finally {
    zip.close();
  }
}

/**
 * Streams one member, decompressed. The archive stays open until the stream ends or is destroyed (a
 * caller that stops early must destroy it).
 */
export async function zipEntryStream(file: string, name: string): Promise<Readable> {
  const zip = await openZip(file);
  let closed = false;
  const close = () => {
    if (!closed) {
      closed = true;
      zip.close();
    }
  };
  try {
    const entry = await walkEntries(file, zip, (e) => e.name === name);
    if (!entry) throw zipError(file, null, `the archive has no file named "${name}"`);
    return await memberStream(file, zip, entry, close);
  } catch (e) {
    close();
    throw e;
  }
}

/** One member fully in memory: only for the small ones (users.json, channels.json, a chat.txt). */
export async function readZipEntry(file: string, name: string): Promise<Buffer> {
  return collect(await zipEntryStream(file, name));
}

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * An archive opened once for many members: Slack exports have a file per channel per day, and re-opening
 * the archive and re-walking its central directory for each would be quadratic. Close it when done;
 * yauzl keeps the file open until member streams already handed out have finished.
 */
export interface ZipReader {
  /** Files only, in central-directory order. */
  entries: ZipEntryInfo[];
  stream(name: string): Promise<Readable>;
  read(name: string): Promise<Buffer>;
  close(): void;
}

export async function openZipReader(file: string): Promise<ZipReader> {
  const zip = await openZip(file);
  const byName = new Map<string, yauzl.Entry>();
  const entries: ZipEntryInfo[] = [];
  try {
    await walkEntries(file, zip, (e, raw) => {
      if (!e.name.endsWith('/')) {
        entries.push(e);
        byName.set(e.name, raw);
      }
      return false;
    });
  } catch (e) {
    zip.close();
    throw e;
  }
  let closed = false;
  const reader: ZipReader = {
    entries,
    async stream(name) {
      const entry = byName.get(name);
      if (!entry) throw zipError(file, null, `the archive has no file named "${name}"`);
      return memberStream(file, zip, entry, () => {});
    },
    async read(name) {
      return collect(await reader.stream(name));
    },
    close() {
      if (!closed) {
        closed = true;
        zip.close();
      }
    },
  };
  return reader;
}

interface CentralEntry {
  name: string;
  method: number;
  compressedSize: number;
  offset: number;
}

/** The central directory read synchronously (names, methods, offsets), or null when it cannot be. */
function centralDirectorySync(fd: number): CentralEntry[] | null {
  const size = fs.fstatSync(fd).size;
  const read = (pos: number, len: number): Buffer => {
    const buf = Buffer.alloc(len);
    const n = fs.readSync(fd, buf, 0, len, pos);
    return buf.subarray(0, n);
  };
  // End record: 22 bytes plus a comment of up to 65535 bytes, at the very end.
  const tailLen = Math.min(size, 22 + 0xffff);
  const tail = read(size - tailLen, tailLen);
  let eocd = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return null;
  let count = tail.readUInt16LE(eocd + 10);
  let cdSize = tail.readUInt32LE(eocd + 12);
  let cdOffset = tail.readUInt32LE(eocd + 16);
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
    // Zip64 (exports with many photos): the locator sits just before the end record.
    const locPos = size - tailLen + eocd - 20;
    if (locPos < 0) return null;
    const loc = read(locPos, 20);
    if (loc.readUInt32LE(0) !== 0x07064b50) return null;
    const rec = read(Number(loc.readBigUInt64LE(8)), 56);
    if (rec.length < 56 || rec.readUInt32LE(0) !== 0x06064b50) return null;
    count = Number(rec.readBigUInt64LE(32));
    cdSize = Number(rec.readBigUInt64LE(40));
    cdOffset = Number(rec.readBigUInt64LE(48));
  }
  // A central directory is ~80 bytes per member; refuse absurd sizes rather than allocate them.
  if (cdOffset + cdSize > size || cdSize > 256 * 1024 * 1024) return null;
  const cd = read(cdOffset, cdSize);
  const out: CentralEntry[] = [];
  let p = 0;
  for (let i = 0; i < count && p + 46 <= cd.length; i++) {
    if (cd.readUInt32LE(p) !== 0x02014b50) return null;
    const nameLen = cd.readUInt16LE(p + 28);
    const extraLen = cd.readUInt16LE(p + 30);
    const commentLen = cd.readUInt16LE(p + 32);
    const e: CentralEntry = {
      name: cd.toString('utf8', p + 46, p + 46 + nameLen).replace(/\\/g, '/'),
      method: cd.readUInt16LE(p + 10),
      compressedSize: cd.readUInt32LE(p + 20),
      offset: cd.readUInt32LE(p + 42),
    };
    // Zip64 extra field: the 64-bit values replace the 32-bit ones that are saturated, in this order.
    for (let x = p + 46 + nameLen; x + 4 <= p + 46 + nameLen + extraLen;) {
      const id = cd.readUInt16LE(x);
      const len = cd.readUInt16LE(x + 2);
      if (id === 0x0001) {
        let f = x + 4;
        if (cd.readUInt32LE(p + 24) === 0xffffffff) f += 8;
        if (e.compressedSize === 0xffffffff && f + 8 <= x + 4 + len) {
          e.compressedSize = Number(cd.readBigUInt64LE(f));
          f += 8;
        }
        if (e.offset === 0xffffffff && f + 8 <= x + 4 + len) e.offset = Number(cd.readBigUInt64LE(f));
      }
      x += 4 + len;
    }
    out.push(e);
    p += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

function withFd<T>(file: string, fn: (fd: number) => T | null): T | null {
  let fd: number | null = null;
  try {
    fd = fs.openSync(file, 'r');
    return fn(fd);
  } catch {
    return null;
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}

/**
 * Member names read synchronously from the central directory, for `detect()` (which is synchronous and
 * sees only the first 64 KiB, where an export's interesting member is rarely the first). Returns null
 * when the file is not a readable zip: detection then simply says no and the importer reports why.
 */
export function zipEntryNamesSync(file: string): string[] | null {
  return withFd(file, (fd) => centralDirectorySync(fd)?.map((e) => e.name) ?? null);
}

/**
 * The first bytes of one member, decompressed, as UTF-8 text, for `detect()`: ChatGPT and Claude both
 * export a `conversations.json` and only its content tells them apart. Null when the member is missing,
 * encrypted or compressed with something other than deflate.
 */
export function zipMemberHeadSync(file: string, name: string, bytes = 64 * 1024): string | null {
  return withFd(file, (fd) => {
    const entry = centralDirectorySync(fd)?.find((e) => e.name === name);
    if (!entry) return null;
    const header = Buffer.alloc(30);
    if (fs.readSync(fd, header, 0, 30, entry.offset) < 30 || header.readUInt32LE(0) !== 0x04034b50) return null;
    if (header.readUInt16LE(6) & 1) return null;
    const dataStart = entry.offset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
    // Deflate rarely compresses chat JSON better than 1:20; read enough compressed bytes for `bytes` out.
    const want = Math.min(entry.compressedSize === 0xffffffff ? bytes * 20 : entry.compressedSize, bytes * 20);
    const raw = Buffer.alloc(want);
    const n = fs.readSync(fd, raw, 0, want, dataStart);
    let data: Buffer;
    if (entry.method === 0) data = raw.subarray(0, Math.min(n, bytes));
    else if (entry.method === 8) {
      // A sync flush decodes what the partial input allows instead of failing on the missing end.
      data = zlib.inflateRawSync(raw.subarray(0, n), { finishFlush: zlib.constants.Z_SYNC_FLUSH }).subarray(0, bytes);
    } else return null;
    return data.toString('utf8');
  });
}

/**
 * Every file of an archive held in memory (a Nemori export, opened from its sealed file without a plain
 * copy on disk), by name. For small archives only: everything is read at once.
 */
export async function readZipBuffer(bytes: Buffer, name: string): Promise<Map<string, Buffer>> {
  let zip: yauzl.ZipFile;
  try {
    zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
      yauzl.fromBuffer(bytes, { lazyEntries: true, decodeStrings: true, validateEntrySizes: true }, (e, z) => (e ? reject(e) : resolve(z))),
    );
  } catch (e) {
    throw zipError(name, bytes.length, describe(e));
  }
  const out = new Map<string, Buffer>();
  try {
    for await (const entry of zip.eachEntry()) {
      if (entry.fileName.endsWith('/')) continue;
      const chunks: Buffer[] = [];
      for await (const c of await memberStream(name, zip, entry, () => {})) chunks.push(c as Buffer);
      out.set(info(entry).name, Buffer.concat(chunks));
    }
  } finally {
    zip.close();
  }
  return out;
}
