import fs from 'node:fs';
import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  randomBytes,
  scrypt,
  timingSafeEqual,
  type CipherGCM,
  type DecipherGCM,
} from 'node:crypto';
import { Transform } from 'node:stream';
import { NemoriError } from '../domain/errors.js';

/**
 * Files sealed with a passphrase (encrypted backups and exports): AES-256-GCM, the key from scrypt
 * (memory-hard: each guess costs 128 MiB and a fraction of a second). The layout, all of it covered by
 * the authentication tag:
 *
 *   "NEMORI-SEALED\n"  magic (14 bytes)
 *   uint32 BE          length of the header
 *   header             JSON {"v":1,"kdf":"scrypt","N","r","p","salt","cipher":"aes-256-gcm","iv","check"}
 *   ciphertext
 *   tag                16 bytes
 *
 * `check` is an HMAC made with a second key derived beside the encryption key: it tells a wrong
 * passphrase from a file changed after it was written, and it is as costly to guess as the key.
 */

const MAGIC = Buffer.from('NEMORI-SEALED\n', 'utf8');
const TAG_BYTES = 16;
const KDF = { N: 2 ** 17, r: 8, p: 1 };

interface Header {
  v: 1;
  kdf: 'scrypt';
  N: number;
  r: number;
  p: number;
  salt: string;
  cipher: 'aes-256-gcm';
  iv: string;
  check: string;
}

/** Whether these bytes are a sealed file (the start is enough). */
export function isSealed(bytes: Uint8Array): boolean {
  return bytes.length >= MAGIC.length && Buffer.from(bytes.subarray(0, MAGIC.length)).equals(MAGIC);
}

/** Whether a file is sealed (its first bytes say so); false when it cannot be read. */
export function isSealedFile(file: string): boolean {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const head = Buffer.alloc(MAGIC.length);
      return isSealed(head.subarray(0, fs.readSync(fd, head, 0, head.length, 0)));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return false;
  }
}

function deriveKeys(passphrase: string, salt: Buffer, h: Pick<Header, 'N' | 'r' | 'p'>): Promise<{ key: Buffer; check: Buffer }> {
  return new Promise((resolve, reject) =>
    scrypt(passphrase.normalize('NFC'), salt, 64, { N: h.N, r: h.r, p: h.p, maxmem: 256 * h.N * h.r + 1024 * 1024 }, (e, k) =>
      e ? reject(e) : resolve({ key: k.subarray(0, 32), check: k.subarray(32) }),
    ),
  );
}

const checkOf = (checkKey: Buffer) => createHmac('sha256', checkKey).update('nemori sealed file').digest();

function requirePassphrase(passphrase: string): void {
  if (passphrase.length === 0) throw new NemoriError('INVALID_INPUT', 'give a passphrase (it cannot be empty)');
}

/** A new key and header for sealing: the bytes that go before the ciphertext, and the cipher. */
async function sealer(passphrase: string): Promise<{ prefix: Buffer; cipher: CipherGCM }> {
  requirePassphrase(passphrase);
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const { key, check } = await deriveKeys(passphrase, salt, KDF);
  const header: Header = {
    v: 1,
    kdf: 'scrypt',
    ...KDF,
    salt: salt.toString('base64'),
    cipher: 'aes-256-gcm',
    iv: iv.toString('base64'),
    check: checkOf(check).toString('base64'),
  };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(headerBytes.length);
  const prefix = Buffer.concat([MAGIC, length, headerBytes]);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(prefix);
  return { prefix, cipher };
}

export async function seal(plain: Uint8Array, passphrase: string): Promise<Buffer> {
  const { prefix, cipher } = await sealer(passphrase);
  return Buffer.concat([prefix, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
}

/** `seal` as a stream: what goes through comes out sealed, in the layout `seal` gives (and `unseal` opens). */
export async function sealing(passphrase: string): Promise<Transform> {
  const { prefix, cipher } = await sealer(passphrase);
  let begun = false;
  const begin = (t: Transform) => {
    if (!begun) t.push(prefix);
    begun = true;
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      begin(this);
      done(null, cipher.update(chunk));
    },
    flush(done) {
      begin(this);
      this.push(cipher.final());
      done(null, cipher.getAuthTag());
    },
  });
}

/** The header of a sealed file of `size` bytes, read from its first bytes (`head`). */
function readHeader(head: Buffer, size: number, name: string): { header: Header; prefix: Buffer } {
  const damaged = () => new NemoriError('INVALID_INPUT', `${name} is damaged: its encryption header cannot be read`);
  if (size < MAGIC.length + 4 + TAG_BYTES || head.length < MAGIC.length + 4) throw damaged();
  const length = head.readUInt32BE(MAGIC.length);
  const end = MAGIC.length + 4 + length;
  if (end + TAG_BYTES > size || end > head.length) throw damaged();
  let header: Header;
  try {
    header = JSON.parse(head.subarray(MAGIC.length + 4, end).toString('utf8')) as Header;
  } catch {
    throw damaged();
  }
  const sane =
    header.v === 1 &&
    header.kdf === 'scrypt' &&
    header.cipher === 'aes-256-gcm' &&
    [header.N, header.r, header.p].every((x) => Number.isInteger(x) && x > 0) &&
    header.N <= 2 ** 20 &&
    header.r <= 16 &&
    header.p <= 4 &&
    [header.salt, header.iv, header.check].every((x) => typeof x === 'string');
  if (!sane) throw damaged();
  return { header, prefix: head.subarray(0, end) };
}

/** The key of a sealed file, once the passphrase is known right; and how to decipher it. */
async function opener(
  head: Buffer,
  size: number,
  passphrase: string,
  name: string,
): Promise<{ prefix: Buffer; decipher: () => DecipherGCM }> {
  requirePassphrase(passphrase);
  const { header, prefix } = readHeader(head, size, name);
  const { key, check } = await deriveKeys(passphrase, Buffer.from(header.salt, 'base64'), header);
  const expected = Buffer.from(header.check, 'base64');
  const actual = checkOf(check);
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) {
    throw new NemoriError('INVALID_INPUT', `wrong passphrase for ${name} (nothing was changed)`);
  }
  return {
    prefix,
    decipher: () => createDecipheriv('aes-256-gcm', key, Buffer.from(header.iv, 'base64')).setAAD(prefix),
  };
}

const changed = (name: string) =>
  new NemoriError(
    'INVALID_INPUT',
    `${name} was changed or damaged after it was written: it fails its integrity check and cannot be trusted (nothing was changed)`,
  );

/**
 * The plain bytes of a sealed file; nothing is written. A wrong passphrase and a file changed after it
 * was sealed (one flipped byte anywhere) are both refused, each with its own message.
 */
export async function unseal(sealed: Buffer, passphrase: string, name: string): Promise<Buffer> {
  const { prefix, decipher } = await opener(sealed, sealed.length, passphrase, name);
  const d = decipher().setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  try {
    return Buffer.concat([d.update(sealed.subarray(prefix.length, sealed.length - TAG_BYTES)), d.final()]);
  } catch {
    throw changed(name);
  }
}

/**
 * `unseal` for a file of any size: the whole file is checked first, reading it through (a wrong
 * passphrase, a changed file: refused before anything is made of it), then its plain bytes are given
 * as a stream, read again.
 */
export async function unsealFile(file: string, passphrase: string, name: string): Promise<AsyncGenerator<Buffer>> {
  const size = fs.statSync(file).size;
  const fd = fs.openSync(file, 'r');
  let head: Buffer;
  let tag: Buffer;
  try {
    head = Buffer.alloc(Math.min(size, 64 * 1024));
    head = head.subarray(0, fs.readSync(fd, head, 0, head.length, 0));
    tag = Buffer.alloc(TAG_BYTES);
    fs.readSync(fd, tag, 0, TAG_BYTES, Math.max(0, size - TAG_BYTES));
  } finally {
    fs.closeSync(fd);
  }
  const { prefix, decipher } = await opener(head, size, passphrase, name);
  async function* plain(): AsyncGenerator<Buffer> {
    const d = decipher().setAuthTag(tag);
    for await (const part of fs.createReadStream(file, { start: prefix.length, end: size - TAG_BYTES - 1 })) yield d.update(part as Buffer);
    yield d.final();
  }
  try {
    const check = plain();
    while (!(await check.next()).done);
  } catch {
    throw changed(name);
  }
  return plain();
}

/** A backup's bytes as written: sealed with the passphrase when there is one. */
export async function sealBackup(plain: Buffer, passphrase: string | undefined): Promise<Buffer> {
  return passphrase === undefined ? plain : seal(plain, passphrase);
}
