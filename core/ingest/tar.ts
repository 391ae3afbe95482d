import fs from 'node:fs';
import { NemoriError } from '../domain/errors.js';

/**
 * Reading one member of an uncompressed tar (Skype's export is `…_export.tar`) without unpacking it: the
 * headers are walked with seeks, and a member is read straight from its byte range. ustar and GNU long
 * names are understood; a header whose checksum does not add up ends the walk as a damaged archive.
 */

export interface TarEntry {
  name: string;
  /** Byte offset of the member's data and its size. */
  start: number;
  size: number;
}

const BLOCK = 512;

function field(h: Buffer, at: number, len: number): string {
  const s = h.subarray(at, at + len);
  const end = s.indexOf(0);
  return s.subarray(0, end < 0 ? len : end).toString('utf8');
}

function checksumOk(h: Buffer): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : h[i]!;
  return sum === parseInt(field(h, 148, 8).trim() || '0', 8);
}

/** The archive's regular files, or null when `file` is not a tar. */
export function tarEntriesSync(file: string): TarEntry[] | null {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const out: TarEntry[] = [];
    const h = Buffer.alloc(BLOCK);
    let at = 0;
    let longName: string | null = null;
    while (at + BLOCK <= size) {
      fs.readSync(fd, h, 0, BLOCK, at);
      if (h.every((b) => b === 0)) break; // end-of-archive blocks
      if (!checksumOk(h)) return out.length === 0 ? null : out;
      const length = parseInt(field(h, 124, 12).trim() || '0', 8);
      const type = String.fromCharCode(h[156]!);
      const data = at + BLOCK;
      if (type === 'L') {
        const buf = Buffer.alloc(length);
        fs.readSync(fd, buf, 0, length, data);
        longName = field(buf, 0, length);
      } else {
        const prefix = field(h, 345, 155);
        const name = longName ?? (prefix ? `${prefix}/${field(h, 0, 100)}` : field(h, 0, 100));
        longName = null;
        if (type === '0' || type === '\0') out.push({ name: name.replace(/^\.\//, ''), start: data, size: length });
      }
      at = data + Math.ceil(length / BLOCK) * BLOCK;
    }
    return out;
  } catch (e) {
    throw new NemoriError('INVALID_INPUT', `${file}: cannot read the archive (${(e as Error).message})`, { file });
  } finally {
    fs.closeSync(fd);
  }
}
