import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { startWebServer, type WebServer } from '../../core/http/server.js';
import { openMemoryEngine } from '../helpers/engine.js';
import { callOp, request } from './client.js';

/**
 * With the bridge's token, `importFiles` read any file on disk, `backup` wrote anywhere, `inspectFolder`
 * probed any path and `setLlmSettings` pointed requests anywhere; the token worked as `?token=` on
 * every endpoint, and uploads had no size limit. Companions hold a token of their own now, which only
 * reaches the memory.
 */
describe('bridge token scopes', () => {
  let engine: Engine;
  let server: WebServer;
  beforeAll(async () => {
    engine = await openMemoryEngine();
    server = await startWebServer({ engine, log: () => {}, maxUploadBytes: 1000 });
  });
  afterAll(async () => {
    await server.close();
    await engine.close();
  });

  const pathOrSettings: [string, unknown][] = [
    ['importFiles', { paths: ['/etc/passwd'] }],
    ['setWatchedFolder', { folder: '/tmp' }],
    ['getWatchedFolder', {}],
    ['backup', { folder: '/tmp' }],
    ['listBackups', {}],
    ['restoreBackup', { file: '/tmp/x.tar.gz' }],
    ['inspectFolder', { folder: '/etc' }],
    ['setDataFolder', { folder: '/tmp/elsewhere', mode: 'open' }],
    ['setEmbeddingModel', { modelId: 'x/y' }],
    ['setEngineSettings', { forgetting: { enabled: false } }],
    ['setLlmSettings', { baseUrl: 'http://evil.example/v1' }],
    ['setCompanionAccess', { name: 'me', mayWrite: true }],
  ];

  it("refuses a companion's token every operation that names a path or changes settings (403), and uploads", async () => {
    for (const [op, input] of pathOrSettings) {
      const reply = await callOp(server.port, server.companionToken, op, input);
      expect(reply.status, op).toBe(403);
      expect(reply.json()).toMatchObject({ error: { code: 'FORBIDDEN' } });
    }
    const upload = await request(server.port, {
      method: 'POST',
      path: '/api/import/upload?batch=00000000-0000-4000-8000-000000000000&name=a.txt',
      headers: { Authorization: `Bearer ${server.companionToken}` },
      body: 'hello',
    });
    expect(upload.status).toBe(403);
  });

  it("lets a companion's token use the memory, and the person's token everything", async () => {
    const ownerId = 'scopes';
    const added = await callOp(server.port, server.companionToken, 'addMemory', {
      ownerId,
      messages: [{ speaker: 'Ana', text: 'the kayak is in the garage' }],
    });
    expect(added.status).toBe(200);
    expect((await callOp(server.port, server.companionToken, 'search', { ownerId, query: 'kayak' })).status).toBe(200);
    const probe = await callOp(server.port, server.token, 'inspectFolder', { folder: '/tmp' });
    expect(probe.status).toBe(200);
    const settings = await callOp(server.port, server.token, 'setEngineSettings', { forgetting: { enabled: true } });
    expect(settings.status).toBe(200);
  });

  it('takes the token in the query string only on the event stream', async () => {
    const viaQuery = await request(server.port, {
      method: 'POST',
      path: `/api/call/health?token=${encodeURIComponent(server.token)}`,
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(viaQuery.status).toBe(401);
  });

  it('refuses an upload larger than the limit, and keeps nothing of it', async () => {
    const reply = await request(server.port, {
      method: 'POST',
      path: '/api/import/upload?batch=00000000-0000-4000-8000-000000000001&name=big.txt',
      headers: { Authorization: `Bearer ${server.token}` },
      body: 'x'.repeat(5000),
    });
    expect(reply.status).toBe(400);
    expect(reply.json()).toMatchObject({ error: { code: 'INVALID_INPUT', message: expect.stringMatching(/larger than 1000 bytes/) } });
    const take = await request(server.port, {
      method: 'POST',
      path: '/api/import',
      headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ batch: '00000000-0000-4000-8000-000000000001' }),
    });
    expect(take.status).toBe(404);
  });
});
