/**
 * What a companion is handed to reach the memory over HTTP (`companionConfigs`, Settings → Companions)
 * is the holder's companion-scoped token, never the person's: with it, the memory answers and files and
 * settings do not.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectOrOpenEngine, type ConnectedEngine } from '../../core/engine/connect.js';
import { holderFileOf } from '../../core/engine/holder.js';
import { openEngine } from '../../core/engine/open-engine.js';
import { loopback } from '../../core/http/holder-transport.js';
import { callOp } from '../http/client.js';
import { tempDir } from '../helpers/engine.js';

describe("a companion's HTTP entry", () => {
  let home: string;
  let engine: ConnectedEngine;
  beforeAll(async () => {
    home = tempDir('nemori-companion-token-');
    engine = await connectOrOpenEngine({
      home,
      transport: loopback,
      open: ({ lock }) => openEngine({ home, embedder: null, lock }),
    });
    await engine.ready;
  });
  afterAll(async () => {
    await engine.close();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it("carries the holder's companion token, which reaches the memory and not the files", async () => {
    const holder = JSON.parse(fs.readFileSync(holderFileOf(home), 'utf8')) as { port: number; token: string; companionToken: string };
    const { http } = await engine.call('companionConfigs', {});
    expect(http).toEqual({ url: `http://127.0.0.1:${holder.port}/mcp`, token: holder.companionToken });
    expect(http?.token).not.toBe(holder.token);

    const token = http!.token;
    expect((await callOp(holder.port, token, 'search', { ownerId: 'c', query: 'kayak' })).status).toBe(200);
    expect((await callOp(holder.port, token, 'backup', { folder: home })).status).toBe(403);
    expect((await callOp(holder.port, holder.token, 'listBackups', {})).status).toBe(200);
  });
});
