import fs from 'node:fs';
import path from 'node:path';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { markdownFormat } from '../../core/ingest/markdown.js';
import { newOwner, openMemoryEngine, tempDir } from '../helpers/engine.js';
import { ingestFixture, readAll, readOne, rows, writeTemp } from './chat-helpers.js';

// Time-zone rule: dates and times written without an offset (dated headings, file names, front matter
// like "2024-03-05") are wall-clock times in the importer's `timeZone` (default: this machine's);
// dates without a time are midnight; a front-matter date with an offset is taken as written; with no
// date at all the file's modification time is used (its offset from `timeZone`).

const memory = ingestFixture('markdown', 'memory');
const md = markdownFormat({ timeZone: 'Asia/Shanghai' });

/** A copy of the memory folder with a known modification time for the undated note. */
function memoryCopy(): string {
  const dir = path.join(tempDir(), 'memory');
  fs.cpSync(memory, dir, { recursive: true });
  const at = new Date('2024-04-01T12:00:00Z');
  fs.utimesSync(path.join(dir, 'notes', 'undated.md'), at, at);
  return dir;
}

describe('Markdown journals and memory folders', () => {
  it('a folder: one conversation per file in path order, hidden folders left out', async () => {
    const { conversations } = await readAll(md, memoryCopy());
    expect(conversations.map((c) => [c.externalId, c.title, c.messages.length, c.metadata.skipped])).toEqual([
      ['episodic/2024-03-05.md', '2024年3月5日 星期二', 3, 1],
      ['episodic/2024-03-06.md', '2024-03-06', 2, 1],
      ['notes/undated.md', 'undated', 1, 0],
      ['semantic/preferences.md', 'Preferences', 2, 1],
    ]);
  });

  it('paragraphs become messages; headings, rules, code blocks and short fragments do not', async () => {
    const { conversations } = await readAll(md, memoryCopy());
    const [day5, day6, undated, prefs] = conversations;
    // The dated H1 (and the file name) say 5 March: midnight in Shanghai.
    expect(rows(day5!)).toEqual([
      ['2024-03-04T16:00:00.000Z', 480, 'me', '今天和妈妈视频通话，她说下个月要来上海看我，想去外滩和豫园。'],
      ['2024-03-04T16:00:00.000Z', 480, 'me', '晚上跑步五公里，膝盖有点疼，明天休息一天。'],
      ['2024-03-04T16:00:00.000Z', 480, 'me', '读完了《三体》第一部，对"黑暗森林"这个概念印象很深，\n准备周末开始读第二部。'],
    ]);
    expect(day5!.metadata).toMatchObject({ codeBlocks: 1, timeFrom: ['heading'] });
    expect(day5!.messages.every((m) => m.role === 'user')).toBe(true);
    // Dated headings with times; "## Ideas" keeps the time above it, and its fragment is too short.
    expect(rows(day6!)).toEqual([
      [
        '2024-03-06T01:30:00.000Z',
        480,
        'me',
        'Morning standup: the release of version 2.3 slipped to Friday because the payment tests are flaky.',
      ],
      [
        '2024-03-06T13:00:00.000Z',
        480,
        'me',
        'Called Dad about the trip to Hangzhou in April; he wants to see the West Lake tea fields.\nBooked the train tickets for April 12.',
      ],
    ]);
    // No date anywhere: the file's modification time.
    expect(rows(undated!)).toEqual([
      ['2024-04-01T12:00:00.000Z', 480, 'me', 'Remember: the spare key is under the blue flower pot by the back door.'],
    ]);
    expect(undated!.metadata.timeFrom).toEqual(['mtime']);
    // Front matter: author is the speaker, the date with its offset is taken as written.
    expect(prefs!.participants).toEqual(['Nemori']);
    expect(rows(prefs!)).toEqual([
      [
        '2024-02-01T02:00:00.000Z',
        480,
        'Nemori',
        '- Prefers oolong tea over coffee in the afternoon.\n- Allergic to peanuts; always check the satay sauce.',
      ],
      ['2024-02-01T02:00:00.000Z', 480, 'Nemori', "Likes hiking on weekends, especially the Dragon's Back trail in Hong Kong."],
    ]);
  });

  it('paragraph ids are hashes of the text: stable across runs, distinct for repeats', async () => {
    const file = writeTemp('2024-05-01.md', 'The same sentence written twice on purpose.\n\nThe same sentence written twice on purpose.\n');
    const a = await readOne(md, file);
    const b = await readOne(md, file);
    const ids = a.conversation.messages.map((m) => m.externalId);
    expect(ids).toEqual(b.conversation.messages.map((m) => m.externalId));
    expect(ids[0]).toMatch(/^p:[0-9a-f]{32}$/);
    expect(ids[1]).toBe(`${ids[0]}#2`);
    expect(a.conversation.externalId).toBe('2024-05-01.md');
  });

  it('a GBK-encoded journal and a setext heading', async () => {
    const file = writeTemp(
      '2024-06-01.md',
      iconv.encode('六月一日\n========\n\n儿童节，带侄子去了动物园，他最喜欢大熊猫和长颈鹿。\n', 'gbk'),
    );
    const { conversation: c } = await readOne(md, file);
    expect(c.title).toBe('六月一日');
    expect(rows(c)).toEqual([['2024-05-31T16:00:00.000Z', 480, 'me', '儿童节，带侄子去了动物园，他最喜欢大熊猫和长颈鹿。']]);
  });
});

describe('malformed Markdown', () => {
  it('a code block never closed (truncated file)', async () => {
    const file = writeTemp('journal.md', 'A long enough paragraph about the day to be kept.\n\n```\nnpm run');
    await expect(readAll(md, file)).rejects.toThrow(/journal\.md: line 3: a code block opened here is never closed/);
  });

  it('front matter never closed', async () => {
    const file = writeTemp('journal.md', '---\ntitle: Trip\ndate: 2024-03-05\n\nWe drove to the coast and watched the sunset.\n');
    await expect(readAll(md, file)).rejects.toThrow(/journal\.md: line 1: the front matter/);
  });

  it('a folder without Markdown files', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'not markdown');
    await expect(readAll(md, dir)).rejects.toThrow(/: line 1: no Markdown files/);
  });
});

describe('Markdown through the engine', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await openMemoryEngine();
  });
  afterAll(async () => {
    await engine.close();
  });

  it('a folder imports once; a new paragraph is the only thing added later, even after files were touched', async () => {
    const ownerId = newOwner();
    const dir = memoryCopy();
    const out = await engine.call('importFiles', { ownerId, paths: [dir], format: 'markdown' });
    expect(out.files[0]).toMatchObject({ format: 'markdown', conversations: 4, messages: 8, messagesAdded: 8, error: null });
    const later = new Date('2024-05-01T08:00:00Z');
    fs.utimesSync(path.join(dir, 'notes', 'undated.md'), later, later);
    fs.appendFileSync(path.join(dir, 'notes', 'undated.md'), '\nThe neighbour, Mrs. Chen, also has a copy of the key.\n');
    const again = await engine.call('importFiles', { ownerId, paths: [dir], format: 'markdown' });
    expect(again.files[0]).toMatchObject({ messages: 9, messagesAdded: 1 });
  });

  it('a single .md file is detected; a broken one stores nothing', async () => {
    const ownerId = newOwner();
    const good = path.join(memory, 'episodic', '2024-03-06.md');
    const bad = writeTemp('journal.md', 'A long enough paragraph about the day to be kept.\n\n```\nnpm run');
    const out = await engine.call('importFiles', { ownerId, paths: [bad, good] });
    expect(out.files[0]!.format).toBe('markdown');
    expect(out.files[0]!.error?.message).toMatch(/journal\.md: line 3: /);
    expect(out.files[1]).toMatchObject({ format: 'markdown', error: null, messagesAdded: 2 });
    const stats = await engine.call('stats', { ownerId });
    expect(stats.owners[0]).toMatchObject({ messages: 2 });
  });
});
