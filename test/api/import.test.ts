import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { fixture, grownTwoDaysFile, newOwner, openMemoryEngine, tempDir } from '../helpers/engine.js';

let engine: Engine;
beforeAll(async () => {
  engine = await openMemoryEngine();
});
afterAll(async () => {
  await engine.close();
});

describe('importing the generic JSON format', () => {
  it('stores every message and builds episodes that keep the exact times and the sources', async () => {
    const ownerId = newOwner();
    const out = await engine.call('importFiles', { ownerId, paths: [fixture('import', 'two-days.json')] });
    const [file] = out.files;
    expect(file?.error).toBeNull();
    expect(file).toMatchObject({ format: 'json', conversations: 2, messages: 8, messagesAdded: 8 });
    // Morning hike talk and the evening message are 11 hours apart: two episodes, plus the Chinese chat.
    expect(file?.episodesCreated).toBe(3);

    const list = await engine.call('listEpisodes', { ownerId });
    expect(list.episodes).toHaveLength(3);
    const hike = list.episodes.find((e) => e.content.includes('Gornergrat'))!;
    expect(hike.start).toBe('2023-05-08T07:00:00.000Z');
    expect(hike.end).toBe('2023-05-08T07:06:00.000Z');
    expect(hike.utcOffsetMin).toBe(120);
    expect(hike.messageIds).toHaveLength(4);
    // "yesterday" is stated as an absolute date in the episode.
    expect(hike.content).toContain('2023-05-07');
    expect(hike.metadata.entities).toEqual(expect.arrayContaining(['Alice', 'Bob']));
  });

  it('adds nothing when the same file is imported again', async () => {
    const ownerId = newOwner();
    const file = fixture('import', 'two-days.json');
    await engine.call('importFiles', { ownerId, paths: [file] });
    const before = await engine.call('stats', { ownerId });
    const again = await engine.call('importFiles', { ownerId, paths: [file] });
    expect(again.files[0]).toMatchObject({ messagesAdded: 0, episodesCreated: 0 });
    expect(await engine.call('stats', { ownerId })).toEqual(before);
  });

  it('appends only the new messages of a conversation that grew', async () => {
    const ownerId = newOwner();
    await engine.call('importFiles', { ownerId, paths: [fixture('import', 'two-days.json')] });
    const out = await engine.call('importFiles', { ownerId, paths: [grownTwoDaysFile('2023-05-10T10:00:00+02:00')] });
    expect(out.files[0]).toMatchObject({ messagesAdded: 1, episodesCreated: 1 });
    const stats = await engine.call('stats', { ownerId });
    expect(stats.owners[0]).toMatchObject({ messages: 9, episodes: 4 });
  });

  it('continues the last episode when new messages follow within the gap', async () => {
    const ownerId = newOwner();
    const part = (ids: number[]) => ({
      id: 'long-chat',
      messages: ids.map((i) => ({
        id: `p${i}`,
        speaker: i % 2 ? 'Ann' : 'Ben',
        text: `planning the garden shed, step ${i}`,
        timestamp: new Date(Date.UTC(2024, 4, 1, 9, i)).toISOString(),
      })),
    });
    await engine.call('ingestConversation', { ownerId, conversation: part([0, 1, 2]) });
    const second = await engine.call('ingestConversation', { ownerId, conversation: part([3, 4, 5]) });
    expect(second).toMatchObject({ messagesAdded: 3, episodesCreated: 0 });
    const { episodes } = await engine.call('listEpisodes', { ownerId });
    expect(episodes).toHaveLength(1);
    expect(episodes[0]?.messageIds).toHaveLength(6);
    expect(await engine.context.store.read.bm25.verify(ownerId)).toMatchObject({
      dfMismatches: 0,
      postingMismatches: 0,
      docsWithoutEpisode: 0,
      episodesWithoutDoc: 0,
    });
  });

  it('JSONL: one message per line, grouped by conversation', async () => {
    const ownerId = newOwner();
    const file = path.join(tempDir(), 'chat.jsonl');
    fs.writeFileSync(
      file,
      [
        { conversation: 'c1', speaker: 'Ann', text: 'Our cat Miso learned to open the fridge.', timestamp: '2024-01-02T08:00:00Z' },
        { conversation: 'c2', speaker: 'Ann', text: 'Dentist on Friday at nine.', timestamp: '2024-01-03T08:00:00Z' },
        { conversation: 'c1', speaker: 'Ben', text: 'Miso is a genius.', timestamp: '2024-01-02T08:01:00Z' },
      ]
        .map((x) => JSON.stringify(x))
        .join('\n'),
    );
    const out = await engine.call('importFiles', { ownerId, paths: [file] });
    expect(out.files[0]).toMatchObject({ format: 'jsonl', conversations: 2, messages: 3, episodesCreated: 2 });
  });

  it('narrows search and listing to where the conversations came from', async () => {
    const ownerId = newOwner();
    await engine.call('importFiles', { ownerId, paths: [fixture('import', 'two-days.json')] });
    await engine.call('ingestConversation', {
      ownerId,
      source: 'companion',
      conversation: {
        id: 'c1',
        messages: [{ speaker: 'Alice', text: 'The Gornergrat train was sold out again', timestamp: '2023-06-01T10:00:00+02:00' }],
      },
    });
    const sources = [
      { source: 'nemori-json', conversations: 2 },
      { source: 'companion', conversations: 1 },
    ];
    expect((await engine.call('stats', { ownerId })).owners[0]!.sources).toEqual(sources);
    // The search screen's choices, without the counts stats makes.
    expect(await engine.call('listSources', { ownerId })).toEqual({ sources });
    expect(await engine.call('listSources', { ownerId: `${ownerId}-nobody` })).toEqual({ sources: [] });
    const all = await engine.call('search', { ownerId, query: 'Gornergrat', mode: 'bm25' });
    expect(all.results).toHaveLength(2);
    const fromCompanion = await engine.call('search', { ownerId, query: 'Gornergrat', mode: 'bm25', importSources: ['companion'] });
    expect(fromCompanion.results.map((r) => r.summary || r.text)).toEqual([expect.stringContaining('sold out')]);
    expect((await engine.call('listEpisodes', { ownerId, importSources: ['nemori-json'] })).episodes).toHaveLength(3);
  });
});

describe('import options', () => {
  it('previews a dry run with counts, participants and dates, storing nothing', async () => {
    const ownerId = newOwner();
    const out = await engine.call('importFiles', { ownerId, paths: [fixture('import', 'two-days.json')], dryRun: true });
    expect(out).toMatchObject({ format: 'json', conversations: 2, messages: 8, skipped: 0, errors: [], dryRun: true });
    expect(out.participants).toEqual(expect.arrayContaining(['Alice', 'Bob', '小明', '小红']));
    expect(out.files[0]?.dateRange).toEqual({ from: '2023-05-08T07:00:00.000Z', to: '2023-06-12T11:03:00.000Z' });
    expect(out.files[0]).toMatchObject({ messagesAdded: 0, episodesCreated: 0 });
    expect((await engine.call('stats', { ownerId })).owners[0]).toMatchObject({ conversations: 0, messages: 0 });
  });

  it('marks the person’s own messages with --me and remembers the choice for that format', async () => {
    const ownerId = newOwner();
    const file = fixture('import', 'two-days.json');
    const first = await engine.call('importFiles', { ownerId, paths: [file], me: 'Bob' });
    expect(first.files[0]?.me).toBe('Bob');
    const episode = (await engine.call('listEpisodes', { ownerId })).episodes.find((e) => e.content.includes('Gornergrat'))!;
    const { messages } = await engine.call('getEpisode', { ownerId, id: episode.id });
    expect(messages.map((m) => [m.speaker, m.role])).toEqual([
      ['Alice', 'other'],
      ['Bob', 'user'],
      ['Alice', 'other'],
      ['Bob', 'user'],
    ]);
    const later = await engine.call('importFiles', { ownerId, paths: [file], dryRun: true });
    expect(later.files[0]?.me).toBe('Bob');
    const stranger = await engine.call('importFiles', { ownerId, paths: [file], me: 'Zoe', dryRun: true });
    expect(stranger.warnings[0]).toMatch(/"Zoe" does not take part/);
  });

  it('reads local-time exports in the time zone of the device that made them', async () => {
    const file = fixture('ingest', 'whatsapp', 'WhatsApp Chat with Emma.txt');
    const first = async (timeZone: string) => {
      const ownerId = newOwner();
      await engine.call('importFiles', { ownerId, paths: [file], timeZone });
      const [oldest] = (await engine.call('listEpisodes', { ownerId, limit: 1000 })).episodes.slice(-1);
      return oldest!;
    };
    // "3/9/24, 11:58 PM" on a phone in Shanghai and on one in New York are 13 hours apart.
    const shanghai = await first('Asia/Shanghai');
    const newYork = await first('America/New_York');
    expect(shanghai.start).toBe('2024-03-09T15:58:00.000Z');
    expect(shanghai.utcOffsetMin).toBe(480);
    expect(newYork.start).toBe('2024-03-10T04:58:00.000Z');
    expect(newYork.utcOffsetMin).toBe(-300);
    await expect(engine.call('importFiles', { ownerId: newOwner(), paths: [file], timeZone: 'Mars/Olympus' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/timeZone: not a time zone/),
    });
  });

  it('says in the preview when WhatsApp dates could be read day or month first, and reads them as chosen', async () => {
    const dir = tempDir();
    const ambiguous = path.join(dir, 'WhatsApp Chat with Sam.txt');
    fs.writeFileSync(ambiguous, '[03/04/2024, 10:00:00] Sam: The meeting moved to the small room\n[05/04/2024, 11:00:00] Kim: 好的\n');
    const settled = path.join(dir, 'WhatsApp Chat with Ada.txt');
    fs.writeFileSync(settled, '[25/04/2024, 10:00:00] Ada: The 25th is the only day above twelve\n');
    const preview = async (dateOrder?: 'dmy' | 'mdy') =>
      engine.call('importFiles', {
        ownerId: newOwner(),
        paths: [ambiguous, settled],
        timeZone: 'UTC',
        dryRun: true,
        ...(dateOrder ? { dateOrder } : {}),
      });

    const guessed = await preview();
    expect(guessed.files[0]!.dateOrder).toEqual({ order: expect.stringMatching(/^(dmy|mdy)$/), by: 'guess' });
    expect(guessed.files[1]!.dateOrder).toBeNull();
    const monthFirst = await preview('mdy');
    expect(monthFirst.files[0]!.dateOrder).toEqual({ order: 'mdy', by: 'choice' });
    expect(monthFirst.files[0]!.dateRange).toEqual({ from: '2024-03-04T10:00:00.000Z', to: '2024-05-04T11:00:00.000Z' });
    const dayFirst = await preview('dmy');
    expect(dayFirst.files[0]!.dateOrder).toEqual({ order: 'dmy', by: 'choice' });
    expect(dayFirst.files[0]!.dateRange).toEqual({ from: '2024-04-03T10:00:00.000Z', to: '2024-04-05T11:00:00.000Z' });
    expect(dayFirst.files[1]!.dateOrder).toBeNull();
  });

  it('reads a folder of Markdown journals without --format', async () => {
    const ownerId = newOwner();
    const dir = tempDir();
    fs.writeFileSync(
      path.join(dir, '2024-03-05.md'),
      '# Tuesday\n\nWalked along the river with Mia and talked about her new pottery studio.\n',
    );
    const out = await engine.call('importFiles', { ownerId, paths: [dir] });
    expect(out).toMatchObject({ format: 'markdown', conversations: 1, messages: 1, errors: [] });
  });
});

describe('malformed input', () => {
  it('names the file and the line, and stores nothing from it', async () => {
    const ownerId = newOwner();
    const file = path.join(tempDir(), 'broken.json');
    const good = fs.readFileSync(fixture('import', 'two-days.json'), 'utf8');
    // The 2nd conversation's first timestamp loses its offset: validation must fail on line 19.
    fs.writeFileSync(file, good.replace('"2023-06-12T19:00:00+08:00"', '"yesterday evening"'));
    const out = await engine.call('importFiles', { ownerId, paths: [file] });
    expect(out.files[0]?.error?.code).toBe('IMPORT_PARSE');
    expect(out.files[0]?.error?.message).toMatch(/broken\.json: line 19, column \d+: conversations\[1\]\.messages\[0\]\.timestamp/);
    expect((await engine.call('stats', { ownerId })).owners[0]).toMatchObject({ conversations: 0, messages: 0, episodes: 0 });
  });

  it('reports a JSON syntax error by line, and keeps importing the other files', async () => {
    const ownerId = newOwner();
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'cut.json'), '{"conversations": [{"id": "x", "messages": [\n  {"speaker": "A", "text": "hi"');
    fs.writeFileSync(
      path.join(dir, 'bad.jsonl'),
      '{"conversation":"c","speaker":"A","text":"ok","timestamp":"2024-01-01T00:00:00Z"}\n{"conversation":"c", oops}\n',
    );
    const out = await engine.call('importFiles', {
      ownerId,
      paths: [path.join(dir, 'cut.json'), path.join(dir, 'bad.jsonl'), fixture('import', 'two-days.json')],
    });
    expect(out.files[0]?.error?.message).toMatch(/cut\.json: line 2, column \d+: invalid JSON/);
    expect(out.files[1]?.error?.message).toMatch(/bad\.jsonl: line 2: invalid JSON/);
    expect(out.files[2]).toMatchObject({ error: null, messagesAdded: 8 });
    expect((await engine.call('stats', { ownerId })).owners[0]).toMatchObject({ messages: 8 });
  });

  it('refuses impossible times and NUL characters through ingestConversation, storing nothing', async () => {
    const ownerId = newOwner('api-bad');
    const conversation = (timestamp: string, text = 'hello 你好') => ({ id: 'c1', messages: [{ speaker: 'Lin', text, timestamp }] });
    for (const [timestamp, text] of [
      ['2023-02-30T10:00:00Z', 'x'],
      ['2023-01-01T25:00:00+08:00', 'x'],
      ['0000-01-01T00:00:00Z', 'x'],
      ['2023-01-01T10:00:00+15:00', 'x'],
      ['2023-01-01T10:00:00Z', 'a\u0000b'],
    ] as const) {
      await expect(
        engine.call('ingestConversation', { ownerId, conversation: conversation(timestamp, text) }),
        timestamp,
      ).rejects.toMatchObject({
        code: 'INVALID_INPUT',
      });
    }
    expect((await engine.call('stats', { ownerId })).owners[0]?.messages ?? 0).toBe(0);
    await engine.call('ingestConversation', { ownerId, conversation: conversation('2024-02-29T10:00:00+08:00') });
  });
});
