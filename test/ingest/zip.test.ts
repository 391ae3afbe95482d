import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  listZipEntries,
  looksLikeZip,
  openZipReader,
  readZipEntry,
  zipEntryNamesSync,
  zipEntryStream,
  zipMemberHeadSync,
} from '../../core/ingest/zip.js';
import { tempDir } from '../helpers/engine.js';
import { writeZip, zipBuffer } from './zip-writer.js';

const dir = tempDir('nemori-zip-');
const big = 'x'.repeat(200_000) + '终';
const archive = writeZip(path.join(dir, 'export.zip'), [
  { name: 'chat.html', data: '<html></html>', store: true },
  { name: 'files/', data: '', store: true },
  { name: '频道/2024-01-01.json', data: '[{"text":"你好"}]' },
  { name: 'conversations.json', data: big },
]);

describe('zip helper', () => {
  it('lists members without directories, with UTF-8 names', async () => {
    const entries = await listZipEntries(archive);
    expect(entries.map((e) => e.name)).toEqual(['chat.html', '频道/2024-01-01.json', 'conversations.json']);
    expect(entries[2]!.size).toBe(Buffer.byteLength(big));
    expect(zipEntryNamesSync(archive)).toEqual(['chat.html', 'files/', '频道/2024-01-01.json', 'conversations.json']);
  });

  it('reads and streams members decompressed', async () => {
    expect((await readZipEntry(archive, '频道/2024-01-01.json')).toString('utf8')).toBe('[{"text":"你好"}]');
    let text = '';
    for await (const chunk of await zipEntryStream(archive, 'conversations.json')) text += (chunk as Buffer).toString('latin1');
    expect(Buffer.from(text, 'latin1').toString('utf8')).toBe(big);
  });

  it('opens an archive once for many members', async () => {
    const zip = await openZipReader(archive);
    try {
      expect(zip.entries.map((e) => e.name)).toEqual(['chat.html', '频道/2024-01-01.json', 'conversations.json']);
      expect((await zip.read('chat.html')).toString()).toBe('<html></html>');
      expect((await zip.read('频道/2024-01-01.json')).toString()).toBe('[{"text":"你好"}]');
      await expect(zip.read('nope')).rejects.toThrow(/no file named "nope"/);
    } finally {
      zip.close();
    }
  });

  it('recognises zip heads and rejects non-zips', async () => {
    expect(looksLikeZip(fs.readFileSync(archive).subarray(0, 64).toString('utf8'))).toBe(true);
    const notZip = path.join(dir, 'not.zip');
    fs.writeFileSync(notZip, '{"hello": 1}');
    expect(zipEntryNamesSync(notZip)).toBeNull();
    await expect(listZipEntries(notZip)).rejects.toThrow(/not\.zip: byte 12: not a zip archive/);
  });

  it('names the archive and a byte offset for a truncated archive or member', async () => {
    const whole = fs.readFileSync(archive);
    const cut = path.join(dir, 'cut.zip');
    fs.writeFileSync(cut, whole.subarray(0, 100));
    await expect(listZipEntries(cut)).rejects.toThrow(/cut\.zip: byte 100: .*truncated/);

    // A member whose compressed bytes are damaged: the end record is intact, the data is not.
    const bad = zipBuffer([{ name: 'conversations.json', data: big }]);
    for (let i = 40; i < 60; i++) bad[i] = 0xff;
    const damaged = path.join(dir, 'damaged.zip');
    fs.writeFileSync(damaged, bad);
    await expect(readZipEntry(damaged, 'conversations.json')).rejects.toThrow(
      /damaged\.zip \(conversations\.json\): byte 0: cannot decompress/,
    );
    await expect(readZipEntry(archive, 'missing.json')).rejects.toThrow(/export\.zip: the archive has no file named "missing\.json"/);
  });
});

describe('zip detection helpers', () => {
  it('reads the head of a deflated member synchronously', () => {
    const head = zipMemberHeadSync(archive, 'conversations.json', 100);
    expect(head).toBe('x'.repeat(100));
    expect(zipMemberHeadSync(archive, 'chat.html')).toBe('<html></html>');
    expect(zipMemberHeadSync(archive, 'missing.json')).toBeNull();
  });
});
