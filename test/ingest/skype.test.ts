import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../core/ingest/detect-format.js';
import { skypeImport, skypeText } from '../../core/ingest/skype.js';
import { fixture } from '../helpers/engine.js';
import { writeTemp } from './chat-helpers.js';
import { lines, readAll } from './read-all.js';

const file = fixture('ingest', 'skype', 'messages.json');

/** A ustar archive of `entries`, as Skype's export is. */
function tar(entries: Array<{ name: string; data: Buffer }>): Buffer {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const h = Buffer.alloc(512);
    h.write(e.name, 0, 100, 'utf8');
    h.write('0000644\0', 100);
    h.write('0000000\0', 108);
    h.write('0000000\0', 116);
    h.write(`${e.data.length.toString(8).padStart(11, '0')}\0`, 124);
    h.write('00000000000\0', 136);
    h.write('        ', 148);
    h.write('0', 156);
    h.write('ustar\0' + '00', 257);
    let sum = 0;
    for (const b of h) sum += b;
    h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    blocks.push(h, e.data, Buffer.alloc((512 - (e.data.length % 512)) % 512));
  }
  return Buffer.concat([...blocks, Buffer.alloc(1024)]);
}

describe('Skype export', () => {
  it('reads conversations oldest first: names, the person as user, pictures as attachments; calls and joins skipped', async () => {
    expect((await detectFormat(file)).id).toBe('skype');
    const { conversations, warnings } = await readAll(skypeImport, file);
    expect(warnings).toEqual([]);
    expect(conversations).toHaveLength(2);
    const [dm, group] = conversations as [(typeof conversations)[0], (typeof conversations)[0]];
    expect(dm).toMatchObject({ source: 'skype', externalId: '8:live:zhao.min', title: '赵敏', metadata: { skipped: 1 } });
    expect(lines(dm)).toEqual([
      '2023-11-14T22:13:20.000Z +0 赵敏 [other]: 周末一起看电影吗？',
      '2023-11-14T22:15:00.500Z +0 Lin Wei [user]: Tom & Jerry at 8pm?',
      '2023-11-14T22:18:20.000Z +0 赵敏 [other]: ',
    ]);
    expect(dm.messages.map((m) => m.externalId)).toEqual(['1700000000000', '1700000100000', '1700000300000']);
    expect(dm.messages[2]!.attachments).toEqual([{ kind: 'image', name: 'west-lake.jpg' }]);
    expect(group).toMatchObject({
      externalId: '19:abc123@thread.skype',
      title: '大学同学 Class of 2015',
      metadata: { group: true, skipped: 1 },
    });
    expect(lines(group)).toEqual(['2020-09-13T12:26:40.000Z +0 Chen Jie [other]: old news聚会定在十月']);
  });

  it('reads messages.json straight from the export .tar', async () => {
    const archive = writeTemp(
      '8_live_linwei_export.tar',
      tar([
        { name: 'media/west-lake.jpg', data: Buffer.alloc(700, 1) },
        { name: 'messages.json', data: fs.readFileSync(file) },
      ]),
    );
    expect((await detectFormat(archive)).id).toBe('skype');
    const { conversations } = await readAll(skypeImport, archive);
    expect(conversations.map((c) => c.messages.length)).toEqual([3, 1]);
  });

  it('refuses an impossible time with the file and the line, inside the tar too', async () => {
    const bad = fs.readFileSync(file, 'utf8').replace('2023-11-14T22:15:00.500Z', '2023-11-31T22:15:00.500Z');
    const line = bad.split('\n').findIndex((l) => l.includes('2023-11-31')) + 1;
    await expect(readAll(skypeImport, writeTemp('messages.json', bad))).rejects.toThrow(
      new RegExp(`messages\\.json: line ${line}, column \\d+ \\(byte \\d+\\): message 3: originalarrivaltime: .*not a real date`),
    );
    const archive = writeTemp('x_export.tar', tar([{ name: 'messages.json', data: Buffer.from(bad) }]));
    await expect(readAll(skypeImport, archive)).rejects.toThrow(new RegExp(`x_export\\.tar \\(messages\\.json\\): line ${line}, `));
  });

  it('turns Skype HTML into the text the chat shows', () => {
    expect(skypeText('a<br/>b &lt;3 &#128512; <ss type="smile">:)</ss>')).toBe('a\nb <3 😀 :)');
    expect(skypeText('<legacyquote>[1:02] Bob: </legacyquote>hi')).toBe('hi');
  });
});
