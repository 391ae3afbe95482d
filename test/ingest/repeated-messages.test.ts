import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { newOwner, openMemoryEngine, tempDir } from '../helpers/engine.js';

/**
 * De-duplication used to key a message without an id on speaker, time and text: "Bob: ok" three times
 * in one minute (WhatsApp's times have minute precision) was stored once, silently, and a file whose
 * ids repeat kept one message per id. Repeats inside one export are distinct messages; importing the
 * same export again still adds nothing.
 */
describe('repeated messages in one export', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await openMemoryEngine();
  });
  afterAll(async () => {
    await engine.close();
  });

  function exportWith(messages: { id?: string; speaker: string; text: string; timestamp: string }[]): string {
    const file = path.join(tempDir(), 'chat.json');
    fs.writeFileSync(file, JSON.stringify({ conversations: [{ id: 'chat', messages }] }));
    return file;
  }

  it('keeps every "ok" of a minute, and a re-import adds none', async () => {
    const ownerId = newOwner();
    const at = '2024-06-01T10:00:00Z';
    const file = exportWith([
      { speaker: 'Bob', text: 'are you coming?', timestamp: at },
      { speaker: 'Ann', text: 'ok', timestamp: at },
      { speaker: 'Ann', text: 'ok', timestamp: at },
      { speaker: 'Ann', text: 'ok', timestamp: at },
    ]);
    expect((await engine.call('importFiles', { ownerId, paths: [file] })).files[0]).toMatchObject({ messagesAdded: 4 });
    expect((await engine.call('importFiles', { ownerId, paths: [file] })).files[0]).toMatchObject({ messagesAdded: 0 });
    expect((await engine.call('stats', { ownerId })).owners[0]).toMatchObject({ messages: 4 });
  });

  it('keeps messages whose export ids repeat', async () => {
    const ownerId = newOwner();
    const file = exportWith(
      Array.from({ length: 6 }, (_, i) => ({
        id: `m${i % 2}`,
        speaker: 'Ann',
        text: `message ${i}`,
        timestamp: `2024-06-01T10:0${i}:00Z`,
      })),
    );
    expect((await engine.call('importFiles', { ownerId, paths: [file] })).files[0]).toMatchObject({ messagesAdded: 6 });
    expect((await engine.call('importFiles', { ownerId, paths: [file] })).files[0]).toMatchObject({ messagesAdded: 0 });
  });
});
