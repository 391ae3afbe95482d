import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { whatsappFormat } from '../../core/ingest/whatsapp.js';
import { newOwner, openMemoryEngine, tempDir } from '../helpers/engine.js';
import { headOf, ingestFixture, readOne, rows, writeTemp } from './chat-helpers.js';
import { writeZip } from './zip-writer.js';

// Time-zone rule: WhatsApp writes the phone's wall clock with no zone. Each message is read in the
// importer's `timeZone` (IANA; default: this machine's), DST-aware per message. The tests name the zone.

const emmaTxt = ingestFixture('whatsapp', 'WhatsApp Chat with Emma.txt');
const weberTxt = ingestFixture('whatsapp', 'WhatsApp Chat - Familie Weber', '_chat.txt');
const xiaomingTxt = ingestFixture('whatsapp', '与小明的 WhatsApp 聊天.txt');
const luciaTxt = ingestFixture('whatsapp', 'Chat de WhatsApp con Lucía.txt');

describe('WhatsApp Android export (en-US: month first, 12-hour clock with U+202F before PM)', () => {
  it('reads speakers, exact instants across the New York DST change, multi-line text, media and edits', async () => {
    const { conversation: c, warnings } = await readOne(whatsappFormat({ timeZone: 'America/New_York' }), emmaTxt);
    expect(warnings).toEqual([]);
    expect(c).toMatchObject({ source: 'whatsapp', externalId: 'Emma', title: 'Emma', participants: ['Emma', 'Alex'] });
    // The encryption notice and the deleted message are not messages.
    expect(c.metadata).toMatchObject({ skipped: 2, platform: 'android', dateOrder: 'mdy', timeZone: 'America/New_York' });
    expect(rows(c)).toEqual([
      ['2024-03-10T04:58:00.000Z', -300, 'Emma', 'Are you still up? The flight to Lisbon got moved to Sunday morning.'],
      ['2024-03-10T04:59:00.000Z', -300, 'Alex', 'Yes! Which terminal?'],
      [
        '2024-03-10T05:01:00.000Z',
        -300,
        'Emma',
        'Terminal 4.\nGate opens at 6.\nBring the blue suitcase, the zipper on the red one is broken.',
      ],
      // 02:00 EST → 03:00 EDT on 10 March 2024.
      ['2024-03-10T07:15:00.000Z', -240, 'Alex', ''],
      ['2024-03-10T13:30:00.000Z', -240, 'Emma', 'Boarding now!'],
      ['2024-03-10T13:32:00.000Z', -240, 'Emma', 'Have a safe flight'],
      // Out of order in the file: kept in file order (the engine sorts by time).
      ['2024-03-10T13:20:00.000Z', -240, 'Alex', "Sent from the taxi earlier: don't forget the charger"],
      ['2024-03-13T23:05:00.000Z', -240, 'Emma', 'Landed in Lisbon. The hotel is right by the tram 28 stop.'],
    ]);
    expect(c.messages[3]!.attachments).toEqual([{ kind: 'other' }]);
    expect(c.messages[4]!.attachments).toEqual([{ kind: 'image', name: 'IMG-20240310-WA0001.jpg', mimeType: 'image/jpeg' }]);
    expect(c.messages[5]!.metadata).toEqual({ edited: true });
    expect(c.messages.every((m) => m.role === 'other')).toBe(true);
  });

  it('links media that sit next to the chat file (recorded, not copied)', async () => {
    const dir = tempDir();
    const txt = path.join(dir, 'WhatsApp Chat with Emma.txt');
    fs.copyFileSync(emmaTxt, txt);
    fs.writeFileSync(path.join(dir, 'IMG-20240310-WA0001.jpg'), Buffer.from([0xff, 0xd8, 0xff, 0xd9]));
    const { conversation: c } = await readOne(whatsappFormat({ timeZone: 'UTC' }), txt);
    expect(c.messages[4]!.attachments).toEqual([
      { kind: 'image', name: 'IMG-20240310-WA0001.jpg', mimeType: 'image/jpeg', uri: path.join(dir, 'IMG-20240310-WA0001.jpg') },
    ]);
  });
});

describe('WhatsApp iOS export (day first, 24-hour, seconds, U+200E marks)', () => {
  it('skips group events attributed to the group, calls and leaves; reads Berlin times across the autumn change', async () => {
    const { conversation: c } = await readOne(whatsappFormat({ timeZone: 'Europe/Berlin' }), weberTxt);
    // _chat.txt takes its name from the folder the export was unpacked into.
    expect(c).toMatchObject({ externalId: 'Familie Weber', participants: ['Jonas', '+49 170 1234567', 'Oma'] });
    expect(c.metadata).toMatchObject({ skipped: 5, platform: 'ios', dateOrder: 'dmy' });
    expect(rows(c)).toEqual([
      ['2024-10-26T21:52:03.000Z', 120, 'Jonas', 'Danke Oma! Remember the clocks go back tonight.'],
      ['2024-10-26T23:30:00.000Z', 120, '+49 170 1234567', 'Who is bringing the Apfelkuchen on Sunday?'],
      // 03:00 CEST → 02:00 CET on 27 October 2024.
      ['2024-10-27T02:30:45.000Z', 60, 'Oma', ''],
      ['2024-10-27T02:31:10.000Z', 60, 'Oma', 'The recipe from my mother, page 42.\nIt needs 6 apples,\nnot 4.'],
      ['2024-10-27T07:02:13.000Z', 60, 'Jonas', ''],
    ]);
    expect(c.messages[2]!.attachments).toEqual([{ kind: 'image', name: '00000012-PHOTO-2024-10-27-03-30-45.jpg', mimeType: 'image/jpeg' }]);
    expect(c.messages[4]!.attachments).toEqual([{ kind: 'image' }]);
  });

  it('reads the export zip: _chat.txt inside, media linked to their entries, chat named after the zip', async () => {
    const zip = path.join(tempDir(), 'WhatsApp Chat - Familie Weber.zip');
    writeZip(zip, [
      { name: '_chat.txt', data: fs.readFileSync(weberTxt) },
      { name: '00000012-PHOTO-2024-10-27-03-30-45.jpg', data: Buffer.from([0xff, 0xd8, 0xff, 0xd9]), store: true },
    ]);
    const format = whatsappFormat({ timeZone: 'Europe/Berlin' });
    expect(format.detect({ path: zip, head: headOf(zip) })).toBe(true);
    const { conversation: c } = await readOne(format, zip);
    expect(c.externalId).toBe('Familie Weber');
    expect(c.messages).toHaveLength(5);
    expect(c.messages[2]!.attachments[0]).toMatchObject({ kind: 'image', uri: `${zip}#00000012-PHOTO-2024-10-27-03-30-45.jpg` });
    expect(c.messages[2]!.sentAt.toISOString()).toBe('2024-10-27T02:30:45.000Z');
  });

  it('reads an Android export zip named after the chat', async () => {
    const zip = path.join(tempDir(), 'WhatsApp Chat with Emma.zip');
    writeZip(zip, [
      { name: 'IMG-20240310-WA0001.jpg', data: Buffer.from([0xff, 0xd8, 0xff, 0xd9]), store: true },
      { name: 'WhatsApp Chat with Emma.txt', data: fs.readFileSync(emmaTxt) },
    ]);
    const { conversation: c } = await readOne(whatsappFormat({ timeZone: 'America/New_York' }), zip);
    expect(c.externalId).toBe('Emma');
    expect(c.messages).toHaveLength(8);
    expect(c.messages[4]!.attachments[0]!.uri).toBe(`${zip}#IMG-20240310-WA0001.jpg`);
  });
  it('iOS marks polls, shared locations and documents with U+200E too: those stay messages', async () => {
    const L = '\u200e';
    const file = writeTemp(
      'WhatsApp Chat - Trip.txt',
      [
        `[02/08/2024, 18:00:00] Trip: ${L}Mia changed the group description`,
        `[02/08/2024, 18:01:00] Mia: ${L}POLL:`,
        `${L}Where do we eat on Saturday?`,
        `${L}OPTION: Tapas bar (2 votes)`,
        `[02/08/2024, 18:02:00] Leo: ${L}Location: https://maps.google.com/?q=41.38,2.17`,
        `[02/08/2024, 18:03:00] Mia: Itinerary.pdf • ${L}3 pages ${L}document omitted`,
        `[02/08/2024, 18:04:00] Leo changed the subject from "Trip" to "Trip: Barcelona"`,
      ].join('\n'),
    );
    const { conversation: c } = await readOne(whatsappFormat({ timeZone: 'Europe/Madrid', dateOrder: 'dmy' }), file);
    expect(c.metadata).toMatchObject({ skipped: 2 });
    expect(c.messages.map((m) => [m.speaker, m.text, m.attachments])).toEqual([
      ['Mia', 'POLL:\nWhere do we eat on Saturday?\nOPTION: Tapas bar (2 votes)', []],
      ['Leo', 'Location: https://maps.google.com/?q=41.38,2.17', []],
      ['Mia', '', [{ kind: 'file' }]],
    ]);
  });
});

describe('WhatsApp in other locales', () => {
  it('Chinese Android: year first, 上午/下午 12-hour clock, Beijing time', async () => {
    const { conversation: c } = await readOne(whatsappFormat({ timeZone: 'Asia/Shanghai' }), xiaomingTxt);
    expect(c).toMatchObject({ externalId: '小明', participants: ['小明', '李华'] });
    expect(c.metadata).toMatchObject({ skipped: 1, dateOrder: 'ymd' });
    expect(rows(c)).toEqual([
      ['2023-12-31T13:41:00.000Z', 480, '小明', '新年快乐！明天去爬香山吗？'],
      ['2023-12-31T13:45:00.000Z', 480, '李华', '好啊，早上八点在东门见。'],
      ['2023-12-31T15:59:00.000Z', 480, '小明', '记得带保温杯，山上很冷\n还有手套'],
      // 上午12:00 is midnight.
      ['2023-12-31T16:00:00.000Z', 480, '李华', ''],
      ['2024-01-01T00:05:00.000Z', 480, '小明', '我到东门了'],
      // 下午12:30 is half past noon.
      ['2024-01-01T04:30:00.000Z', 480, '李华', '山顶人好多'],
    ]);
    expect(c.messages[3]!.attachments).toEqual([{ kind: 'other' }]);
  });

  it('Spanish Android: "p. m." with narrow and ordinary no-break spaces, day first, Madrid time', async () => {
    const { conversation: c } = await readOne(whatsappFormat({ timeZone: 'Europe/Madrid' }), luciaTxt);
    expect(c).toMatchObject({ externalId: 'Lucía', participants: ['Lucía', 'Diego'] });
    // Encryption notice and "Lucía añadió a Marta".
    expect(c.metadata).toMatchObject({ skipped: 2, dateOrder: 'dmy' });
    expect(rows(c)).toEqual([
      ['2023-12-31T20:41:00.000Z', 60, 'Lucía', '¿Vienes a cenar las uvas?'],
      ['2023-12-31T20:43:00.000Z', 60, 'Diego', 'Sí, llevo el cava'],
      ['2023-12-31T23:05:00.000Z', 60, 'Lucía', '¡Feliz año nuevo!'],
      ['2023-12-31T23:06:00.000Z', 60, 'Diego', ''],
    ]);
  });

  it('day/month order: the file decides when it can; otherwise the locale, with a warning', async () => {
    const file = writeTemp(
      'WhatsApp Chat with Sam.txt',
      '[03/04/2024, 10:00:00] Sam: The meeting moved to the small room\n[05/04/2024, 11:00:00] Kim: ok\n',
    );
    const gb = await readOne(whatsappFormat({ timeZone: 'UTC', locale: 'en-GB' }), file);
    expect(gb.conversation.messages[0]!.sentAt.toISOString()).toBe('2024-04-03T10:00:00.000Z');
    expect(gb.warnings).toEqual([expect.stringMatching(/day\/month order cannot be told from the file; assumed day\/month/)]);
    const us = await readOne(whatsappFormat({ timeZone: 'UTC', locale: 'en-US' }), file);
    expect(us.conversation.messages[0]!.sentAt.toISOString()).toBe('2024-03-04T10:00:00.000Z');
    expect(us.warnings).toHaveLength(1);
    // An explicit order is a decision, not a guess: no warning.
    const forced = await readOne(whatsappFormat({ timeZone: 'UTC', dateOrder: 'dmy', locale: 'en-US' }), file);
    expect(forced.conversation.messages[1]!.sentAt.toISOString()).toBe('2024-04-05T11:00:00.000Z');
    expect(forced.warnings).toEqual([]);
  });
});

describe('malformed WhatsApp exports', () => {
  const wa = whatsappFormat({ timeZone: 'UTC' });

  it('text before any timestamp', async () => {
    const file = writeTemp('chat.txt', 'Hello there\n3/10/24, 9:30 AM - Emma: hi\n');
    await expect(readOne(wa, file)).rejects.toThrow(/chat\.txt: line 1: no timestamp/);
  });

  it('dates that cannot all be read in one order', async () => {
    const file = writeTemp('chat.txt', '12/31/23, 9:41 PM - Ann: late\n31/12/23, 9:42 PM - Ben: later\n');
    await expect(readOne(wa, file)).rejects.toThrow(/chat\.txt: line 2: invalid date or time/);
  });

  it('a file cut off in the middle of a header', async () => {
    const file = writeTemp('chat.txt', '3/10/24, 9:30 AM - Emma: Boarding now\n3/10/24, 9:3');
    await expect(readOne(wa, file)).rejects.toThrow(/chat\.txt: line 2: the file ends in the middle of a message header/);
  });

  it('an empty file', async () => {
    const file = writeTemp('chat.txt', '');
    await expect(readOne(wa, file)).rejects.toThrow(/chat\.txt: line 1: no WhatsApp messages/);
  });

  it('a zip without a chat text', async () => {
    const zip = path.join(tempDir(), 'WhatsApp Chat - Nobody.zip');
    writeZip(zip, [{ name: 'IMG-1.jpg', data: Buffer.from([1, 2, 3]) }]);
    await expect(readOne(wa, zip)).rejects.toThrow(/Nobody\.zip: line 1: this zip has no chat text/);
  });
});

describe('WhatsApp through the engine', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await openMemoryEngine();
  });
  afterAll(async () => {
    await engine.close();
  });

  it('detects and imports the export; importing it again adds nothing', async () => {
    const ownerId = newOwner();
    const out = await engine.call('importFiles', { ownerId, paths: [emmaTxt] });
    expect(out.files[0]).toMatchObject({ format: 'whatsapp', conversations: 1, messages: 8, messagesAdded: 8, error: null });
    expect(out.files[0]!.participants).toEqual(['Emma', 'Alex']);
    const again = await engine.call('importFiles', { ownerId, paths: [emmaTxt] });
    expect(again.files[0]).toMatchObject({ messagesAdded: 0, episodesCreated: 0 });
  });

  it('appends only the new messages when the chat is exported again later', async () => {
    const ownerId = newOwner();
    const dir = tempDir();
    const file = path.join(dir, 'WhatsApp Chat with Emma.txt');
    fs.writeFileSync(file, fs.readFileSync(emmaTxt));
    await engine.call('importFiles', { ownerId, paths: [file] });
    fs.appendFileSync(file, '3/14/24, 8:00\u202fAM - Alex: Send me a photo of the tram!\n');
    const out = await engine.call('importFiles', { ownerId, paths: [file] });
    expect(out.files[0]).toMatchObject({ messages: 9, messagesAdded: 1 });
  });

  it('a malformed file stores nothing, names file and line, and the other files still import', async () => {
    const ownerId = newOwner();
    const bad = writeTemp('chat.txt', '3/10/24, 9:30 AM - Emma: Boarding now\n3/10/24, 9:31 AM - Alex: ok\n3/10/24, 9:3');
    const out = await engine.call('importFiles', { ownerId, paths: [bad, xiaomingTxt], format: 'whatsapp' });
    expect(out.files[0]!.error?.message).toMatch(/chat\.txt: line 3: /);
    expect(out.files[0]!.messagesAdded).toBe(0);
    expect(out.files[1]).toMatchObject({ error: null, messagesAdded: 6 });
    const stats = await engine.call('stats', { ownerId });
    expect(stats.owners[0]).toMatchObject({ messages: 6 });
  });
});
