/**
 * The "done when": a chat in English and Chinese holding every kind of secret is imported, searched,
 * built into episodes and read for knowledge by the (scripted) LLM, backed up and exported. Afterwards not
 * one raw secret is in any file under the data folder, in the backup (unpacked), in the export (unzipped)
 * or in any request the LLM received; the messages show the placeholders, and lines without secrets are
 * stored as they were.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbedder } from '../../core/embed/index.js';
import { openEngine, type Engine } from '../../core/engine/open-engine.js';
import { readZipBuffer } from '../../core/ingest/zip.js';
import { tinyModelOptions } from '../fixtures/tiny-model/index.js';
import { tempDir } from '../helpers/engine.js';
import { startLlmServer, type LlmServer, type RecordedRequest } from '../helpers/llm-server.js';
import { task } from '../llm/script.js';
import { NEAR_MISSES, SECRET_LINES } from './secrets.js';

const OWNER = 'me';
let server: LlmServer;
let engine: Engine | undefined;
const root = tempDir('nemori-no-secret-');
const home = path.join(root, 'home');

/** Transcript lines of a prompt ("Mon 2024-05-06 09:00 Ana: …"): the LLM's replies repeat them, so a leak would spread. */
const transcript = (r: RecordedRequest) =>
  r.prompt
    .split('\n')
    .filter((l) => /^(\[\d+\] )?\w{3} \d{4}-\d{2}-\d{2} \d{2}:\d{2} /.test(l) || l.includes('[secret:'))
    .join(' ')
    .slice(0, 4000) || 'A conversation.';

function script(s: LlmServer): void {
  s.on(task('episode-boundaries'), { json: { boundaries: [] } })
    .on(task('episode-narrative'), (r) => ({
      json: {
        title: 'Chat with secrets',
        content: transcript(r),
        summary: transcript(r).slice(0, 300),
        level: 1,
        episodeType: 'conversational',
        entities: [{ name: 'Ana', type: 'PERSON', role: 'speaker' }],
        relationships: [],
        topics: ['accounts'],
        keywords: ['password', '密码'],
        importance: 0.6,
      },
    }))
    .on(task('semantic-reconstruct'), (r) => ({ content: transcript(r) }))
    .on(task('semantic-gaps'), (r) => ({
      json: {
        knowledge_gaps: [
          { key: 'person:Ana accounts', value: transcript(r).slice(0, 500), context: 'told in chat', confidence: 0.9, messages: [1] },
        ],
        relationships: [],
      },
    }));
}

function chatFile(): string {
  const lines = [...SECRET_LINES.map((l) => l.text), ...NEAR_MISSES];
  const at = (n: number) => new Date(Date.parse('2024-05-06T09:00:00+08:00') + n * 60_000).toISOString().replace('Z', '+00:00');
  const conversations = [
    { id: 'en', title: 'Accounts', lines: lines.filter((_, n) => n % 2 === 0) },
    { id: 'zh', title: '账号', lines: lines.filter((_, n) => n % 2 === 1) },
  ].map((c, k) => ({
    id: c.id,
    title: c.title,
    messages: c.lines.map((text, n) => ({
      id: `${c.id}-${n}`,
      speaker: n % 2 ? 'Bo' : 'Ana',
      role: n % 2 ? 'other' : 'user',
      text,
      timestamp: at(k * 100 + n),
    })),
  }));
  const file = path.join(root, 'chat.json');
  fs.writeFileSync(file, JSON.stringify({ conversations }));
  return file;
}

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : [p];
  });
}

/** Which raw secrets a body of bytes holds (none, or the leak named). */
const leaks = (where: string, bytes: Buffer | string) =>
  SECRET_LINES.filter((l) => (typeof bytes === 'string' ? bytes.includes(l.secret) : bytes.includes(Buffer.from(l.secret, 'utf8')))).map(
    (l) => `${l.kind} in ${where}`,
  );

beforeAll(async () => {
  server = await startLlmServer();
  script(server);
  engine = await openEngine({
    home,
    embedder: await openEmbedder(tinyModelOptions()),
    llm: { model: 'scripted-model', baseUrl: server.url, timeoutMs: 10_000, backoffMs: 1, maxRetries: 1 },
  });
});
afterAll(async () => {
  await engine?.close();
  await server.close();
});

describe('no secret leaves', () => {
  it('not in the store, the backup, the export or the LLM requests; the placeholders are in the messages', async () => {
    const e = engine!;
    const imported = await e.call('importFiles', { ownerId: OWNER, paths: [chatFile()] });
    expect(imported.errors).toEqual([]);
    expect(imported.redacted).toBe(SECRET_LINES.length);
    expect(imported.files[0]!.redacted).toBe(SECRET_LINES.length);
    expect(imported.discovery).not.toBeNull();

    const { episodes } = await e.call('listEpisodes', { ownerId: OWNER, limit: 100 });
    expect(episodes.length).toBeGreaterThan(0);
    expect(episodes.every((x) => x.builder === 'llm')).toBe(true);
    const messages = (await Promise.all(episodes.map((x) => e.call('getEpisode', { ownerId: OWNER, id: x.id })))).flatMap(
      (d) => d.messages,
    );
    const texts = messages.map((m) => m.text);
    for (const l of SECRET_LINES) expect(texts).toContain(l.text.replace(l.secret, l.placeholder));
    for (const line of NEAR_MISSES) expect(texts).toContain(line);
    expect((await e.call('listKnowledge', { ownerId: OWNER })).facts.length).toBeGreaterThan(0);

    for (const query of ['wifi password', '验证码', 'openai key', 'card', 'secret']) {
      const found = await e.call('search', { ownerId: OWNER, query });
      expect(leaks(`search ${query}`, JSON.stringify(found))).toEqual([]);
    }
    const backup = await e.call('backup', {});
    const exported = await e.call('exportMemory', { ownerId: OWNER, file: path.join(root, 'export.zip') });
    await e.close();
    engine = undefined;

    expect(server.chats().length).toBeGreaterThan(3);
    const found = [
      ...server.requests.flatMap((r, n) => [...leaks(`LLM request ${n}`, r.prompt), ...leaks(`LLM request ${n}`, JSON.stringify(r.body))]),
      ...filesUnder(home).flatMap((f) => leaks(path.relative(home, f), fs.readFileSync(f))),
      ...leaks('the backup, unpacked', zlib.gunzipSync(fs.readFileSync(backup.file))),
      ...[...(await readZipBuffer(fs.readFileSync(exported.file), 'export.zip'))].flatMap(([name, data]) => leaks(`export ${name}`, data)),
    ];
    expect(found).toEqual([]);
    // The search is real: the data folder and the export do hold what was said around the secrets.
    expect(filesUnder(home).some((f) => fs.readFileSync(f).includes(Buffer.from('[secret: openai key]')))).toBe(true);
  });
});
