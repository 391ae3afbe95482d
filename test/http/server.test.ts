import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { CONTENT_SECURITY_POLICY } from '../../core/http/csp.js';
import { startWebServer, type WebServer } from '../../core/http/server.js';
import { fixture, openMemoryEngine, tempDir } from '../helpers/engine.js';
import { callOp, listen, request, until } from './client.js';

/** A stand-in for out/renderer, plus a file next to it that must never be served. */
function fakeRenderer(): string {
  const root = tempDir('nemori-http-');
  const dir = path.join(root, 'renderer');
  fs.mkdirSync(path.join(dir, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>Nemori</title>');
  fs.writeFileSync(path.join(dir, 'assets', 'index-AbC123xy.js'), 'console.log(1)');
  fs.writeFileSync(path.join(root, 'secret.txt'), 'not for the browser');
  return dir;
}

describe('the HTTP bridge', () => {
  let engine: Engine;
  let server: WebServer;
  let port: number;
  let token: string;
  const auth = () => ({ Authorization: `Bearer ${token}` });

  beforeAll(async () => {
    engine = await openMemoryEngine();
    server = await startWebServer({ engine, staticDir: fakeRenderer(), log: () => {} });
    ({ port, token } = server);
  });
  afterAll(async () => {
    await server.close();
    await engine.close();
  });

  it('listens on 127.0.0.1 with a fresh token in the link it prints', async () => {
    expect(server.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/#token=[\\w-]{40,}$`));
    const other = await startWebServer({ engine, staticDir: fakeRenderer() });
    expect(other.token).not.toBe(token);
    await other.close();
  });

  it('answers a contract call with the engine output', async () => {
    const reply = await callOp(port, token, 'health', {});
    expect(reply.status).toBe(200);
    expect(reply.json()).toMatchObject({ ok: true, database: { status: 'ok' } });
    expect(reply.headers['cache-control']).toBe('no-store');
  });

  it('refuses calls without the token, or with a wrong one', async () => {
    const none = await request(port, { method: 'POST', path: '/api/call/health', body: '{}' });
    expect(none.status).toBe(401);
    expect(none.json()).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    const wrong = await request(port, {
      method: 'POST',
      path: '/api/call/health',
      headers: { Authorization: `Bearer ${token.slice(1)}x` },
      body: '{}',
    });
    expect(wrong.status).toBe(401);
    const events = await request(port, { path: '/api/events' });
    expect(events.status).toBe(401);
  });

  it('says 404 for an operation the contract does not have', async () => {
    const reply = await callOp(port, token, 'dropAllTables', {});
    expect(reply.status).toBe(404);
    expect(reply.json()).toEqual({ error: { code: 'UNKNOWN_OPERATION', message: 'unknown operation "dropAllTables"' } });
    // Object.prototype names are not operations either.
    expect((await callOp(port, token, 'constructor', {})).status).toBe(404);
  });

  it('rejects invalid input with 400 and the message a person can act on', async () => {
    const empty = await callOp(port, token, 'search', { query: '' });
    expect(empty.status).toBe(400);
    expect(empty.json()).toEqual({ error: { code: 'INVALID_INPUT', message: 'search: query: the search text is empty' } });
    const notJson = await request(port, { method: 'POST', path: '/api/call/search', headers: auth(), body: '{"query":' });
    expect(notJson.status).toBe(400);
    expect(notJson.json()).toMatchObject({ error: { code: 'INVALID_INPUT', message: 'the request body is not valid JSON' } });
  });

  it('maps NOT_FOUND to 404', async () => {
    const reply = await callOp(port, token, 'getEpisode', { id: '00000000-0000-4000-8000-000000000000' });
    expect(reply.status).toBe(404);
    expect(reply.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it('ingests, lists and reads episodes through the same contract as the CLI', async () => {
    const ownerId = 'http-owner';
    const ingest = await callOp(port, token, 'ingestConversation', {
      ownerId,
      conversation: {
        id: 'c1',
        messages: [
          { speaker: 'Ann', text: '我们明天去爬香山吧', timestamp: '2024-01-01T08:00:00+08:00' },
          { speaker: 'Bo', text: 'Sure, eight at the east gate.', timestamp: '2024-01-01T08:01:00+08:00' },
        ],
      },
    });
    expect(ingest.status).toBe(200);
    const list = (await callOp(port, token, 'listEpisodes', { ownerId })).json<{ episodes: { id: string }[] }>();
    expect(list.episodes).toHaveLength(1);
    const detail = (await callOp(port, token, 'getEpisode', { ownerId, id: list.episodes[0]!.id })).json<{
      messages: { text: string }[];
    }>();
    expect(detail.messages.map((m) => m.text)).toEqual(['我们明天去爬香山吧', 'Sure, eight at the east gate.']);
    const found = (await callOp(port, token, 'search', { ownerId, query: '香山' })).json<{ results: { id: string }[] }>();
    expect(found.results[0]?.id).toBe(list.episodes[0]!.id);
  });

  it('streams each call’s start, progress and end as Server-Sent Events', async () => {
    const feed = await listen(port, token);
    try {
      const reply = await callOp(port, token, 'importFiles', { ownerId: 'sse-owner', paths: [fixture('import', 'two-days.json')] });
      expect(reply.status).toBe(200);
      await until(() => feed.events.some((e) => (e as { state?: string }).state === 'finished'));
      const mine = feed.events.filter((e) => (e as { operation: string }).operation === 'importFiles') as {
        type: string;
        callId: string;
        state?: string;
        done?: number;
        total?: number;
      }[];
      const callId = mine[0]!.callId;
      expect(mine.every((e) => e.callId === callId)).toBe(true);
      expect(mine[0]).toMatchObject({ type: 'call', state: 'started' });
      expect(mine.at(-1)).toMatchObject({ type: 'call', state: 'finished' });
      const progress = mine.filter((e) => e.type === 'progress');
      expect(progress.length).toBeGreaterThan(0);
      expect(progress.at(-1)).toMatchObject({ done: 8, total: 8 });
    } finally {
      feed.close();
    }
  });

  it('imports uploaded files and reports them by the names the person chose', async () => {
    const batch = crypto.randomUUID();
    const body = fs.readFileSync(fixture('import', 'two-days.json'));
    const upload = await request(port, {
      method: 'POST',
      path: `/api/import/upload?batch=${batch}&name=${encodeURIComponent('我的 导出.json')}`,
      headers: auth(),
      body,
    });
    expect(upload.status).toBe(200);
    expect(upload.json()).toEqual({ name: '我的 导出.json', bytes: body.length });
    const broken = await request(port, {
      method: 'POST',
      path: `/api/import/upload?batch=${batch}&name=broken.json`,
      headers: auth(),
      body: '{"conversations": [',
    });
    expect(broken.status).toBe(200);

    const reply = await request(port, {
      method: 'POST',
      path: '/api/import',
      headers: { ...auth(), 'Content-Type': 'application/json' },
      body: JSON.stringify({ batch, ownerId: 'upload-owner' }),
    });
    expect(reply.status).toBe(200);
    const files = reply.json<{ files: { file: string; format: string; messagesAdded: number; error: { message: string } | null }[] }>()
      .files;
    expect(files[0]).toMatchObject({ file: '我的 导出.json', format: 'json', messagesAdded: 8, error: null });
    expect(files[1]!.file).toBe('broken.json');
    expect(files[1]!.error?.message).toMatch(/^broken\.json/);
    expect(files[1]!.error?.message).not.toContain('nemori-upload-');

    // The batch is gone once imported.
    const again = await request(port, { method: 'POST', path: '/api/import', headers: auth(), body: JSON.stringify({ batch }) });
    expect(again.status).toBe(404);
  });

  it('previews an upload without storing it, keeping the files for the import that follows', async () => {
    const batch = crypto.randomUUID();
    const ownerId = 'preview-owner';
    await request(port, {
      method: 'POST',
      path: `/api/import/upload?batch=${batch}&name=chat.json`,
      headers: auth(),
      body: fs.readFileSync(fixture('import', 'two-days.json')),
    });
    const importBatch = (extra: object) =>
      request(port, {
        method: 'POST',
        path: '/api/import',
        headers: { ...auth(), 'Content-Type': 'application/json' },
        body: JSON.stringify({ batch, ownerId, ...extra }),
      });

    const preview = await importBatch({ dryRun: true });
    expect(preview.status).toBe(200);
    expect(preview.json()).toMatchObject({ dryRun: true, files: [{ file: 'chat.json', conversations: 2, messages: 8, messagesAdded: 0 }] });
    expect((await callOp(port, token, 'stats', { ownerId })).json()).toMatchObject({ owners: [{ messages: 0 }] });

    const stored = await importBatch({ me: 'Alice' });
    expect(stored.json()).toMatchObject({ dryRun: false, files: [{ file: 'chat.json', messagesAdded: 8 }] });
    // Input beyond the batch is still checked by the contract.
    const bad = await request(port, {
      method: 'POST',
      path: '/api/import',
      headers: auth(),
      body: JSON.stringify({ batch: crypto.randomUUID() }),
    });
    expect(bad.status).toBe(404);
  });

  it('refuses uploads that could escape their folder', async () => {
    const badBatch = await request(port, {
      method: 'POST',
      path: '/api/import/upload?batch=../../etc&name=x.json',
      headers: auth(),
      body: 'x',
    });
    expect(badBatch.status).toBe(400);
    const badName = await request(port, {
      method: 'POST',
      path: `/api/import/upload?batch=${crypto.randomUUID()}&name=..`,
      headers: auth(),
      body: 'x',
    });
    expect(badName.status).toBe(400);
    // A path in the name keeps only its last segment.
    const batch = crypto.randomUUID();
    const nested = await request(port, {
      method: 'POST',
      path: `/api/import/upload?batch=${batch}&name=${encodeURIComponent('../../x/chat.json')}`,
      headers: auth(),
      body: 'x',
    });
    expect(nested.json()).toMatchObject({ name: 'chat.json' });
  });

  it('serves the renderer under the app’s Content-Security-Policy, and nothing outside it', async () => {
    const page = await request(port, { path: '/' });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    const asset = await request(port, { path: '/assets/index-AbC123xy.js' });
    expect(asset.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(asset.headers['cache-control']).toContain('immutable');
    for (const p of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/..%5csecret.txt', '/index.html%00.js']) {
      const reply = await request(port, { path: p });
      expect(reply.status, p).toBe(404);
      expect(reply.text).not.toContain('not for the browser');
    }
  });

  it('only answers requests addressed to 127.0.0.1 (no DNS rebinding) from its own pages', async () => {
    const rebound = await request(port, { path: '/', headers: { Host: `evil.example:${port}` } });
    expect(rebound.status).toBe(403);
    const crossSite = await request(port, {
      method: 'POST',
      path: '/api/call/health',
      headers: { ...auth(), Origin: 'https://evil.example' },
      body: '{}',
    });
    expect(crossSite.status).toBe(401);
    const sameSite = await request(port, {
      method: 'POST',
      path: '/api/call/health',
      headers: { ...auth(), Origin: server.origin },
      body: '{}',
    });
    expect(sameSite.status).toBe(200);
  });

  it('allows only POST for calls', async () => {
    const reply = await request(port, { path: '/api/call/health', headers: auth() });
    expect(reply.status).toBe(405);
  });
});
