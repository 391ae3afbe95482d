/**
 * Settings → Companions' operations: who connected over MCP (name, version, calls, last tool), whether
 * each may write (stored in the settings table, so every process on the folder sees it, and kept across
 * a reopen), the clients' configuration entries and merging one into a client's file. And the access
 * enforced: a client made read-only gets a refusal from add_memory, memorize and forget — over HTTP with
 * the SDK's client, and over stdio from `nemori mcp` in its own process, set read-only from another.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { engineEnv } from '../../bin/engine-env.mjs';
import { COMPANIONS_KEY, NOTE_FLUSH_MS } from '../../core/api/handlers/companions.js';
import { NEMORI_BIN } from '../../core/companions/mcp-config.js';
import { connectOrOpenEngine, type ConnectedEngine } from '../../core/engine/connect.js';
import { openEngine, type Engine } from '../../core/engine/open-engine.js';
import { loopback } from '../../core/http/holder-transport.js';
import type { WebServer } from '../../core/http/server.js';
import { openMemoryEngine, tempDir } from '../helpers/engine.js';
import { nemoriMcpTransport, startBridge } from '../helpers/mcp.js';

type ToolResult = { content: { type: string; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };
const tool = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as ToolResult;

const turn = (text: string, time: string) => ({ messages: [{ speaker: 'Ana', role: 'user', text, time }] });

describe('companions: the list and its access', () => {
  let engine: Engine;
  beforeAll(async () => {
    // A clock that moves a second a reading, so "newest first" never rests on two calls in one millisecond.
    let t = Date.parse('2025-06-01T09:00:00Z');
    engine = await openMemoryEngine({ clock: { now: () => new Date((t += 1000)) } });
  });
  afterAll(async () => {
    await engine.close();
  });

  it('lists a client when it connects, counts its calls and names the last tool; a new client may write', async () => {
    const first = await engine.call('noteCompanion', { name: 'claude-ai', title: 'Claude', version: '0.9.1', via: 'stdio' });
    expect(first).toMatchObject({
      name: 'claude-ai',
      title: 'Claude',
      version: '0.9.1',
      via: 'stdio',
      calls: 0,
      lastTool: null,
      lastCallAt: null,
      canWrite: true,
    });
    await engine.call('noteCompanion', { name: 'claude-ai', version: '0.9.2', tool: 'load_context' });
    const later = await engine.call('noteCompanion', { name: 'claude-ai', tool: 'add_memory' });
    expect(later).toMatchObject({
      name: 'claude-ai',
      title: 'Claude',
      version: '0.9.2',
      calls: 2,
      lastTool: 'add_memory',
      firstSeen: first.firstSeen,
    });
    expect(later.lastCallAt).not.toBeNull();
    await engine.call('noteCompanion', { name: 'cursor-vscode', version: '1.0.0', via: 'http', tool: 'search_memory' });
    const { companions, defaultCanWrite } = await engine.call('listCompanions', {});
    expect(defaultCanWrite).toBe(true);
    expect(companions.map((c) => [c.name, c.calls, c.canWrite])).toEqual([
      ['cursor-vscode', 1, true],
      ['claude-ai', 2, true],
    ]);
  });

  it('keeps what the person set, and refuses an unknown name', async () => {
    expect(await engine.call('setCompanionAccess', { name: 'claude-ai', canWrite: false })).toMatchObject({
      name: 'claude-ai',
      canWrite: false,
    });
    // Seeing it again changes its counts, never its access.
    expect(await engine.call('noteCompanion', { name: 'claude-ai', tool: 'remember' })).toMatchObject({ canWrite: false, calls: 3 });
    await expect(engine.call('setCompanionAccess', { name: 'nobody', canWrite: false })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('keeps the list in the store: another engine on the folder later finds it', async () => {
    const home = tempDir('nemori-companions-');
    const one = await openEngine({ home, embedder: null });
    await one.call('noteCompanion', { name: 'vscode', version: '1.99', tool: 'load_context' });
    // A call is counted in memory and written a moment later, out of the way of the call it precedes.
    expect(await one.context.store.read.settings.get(COMPANIONS_KEY)).toBeNull();
    await expect
      .poll(() => one.context.store.read.settings.get(COMPANIONS_KEY), { timeout: NOTE_FLUSH_MS + 3_000 })
      .toMatchObject({ companions: [{ name: 'vscode', calls: 1 }] });
    await one.call('setCompanionAccess', { name: 'vscode', canWrite: false });
    expect(await one.context.store.read.settings.get(COMPANIONS_KEY)).toMatchObject({ companions: [{ name: 'vscode', canWrite: false }] });
    // The last calls not yet written are written as the engine closes.
    await one.call('noteCompanion', { name: 'vscode', tool: 'remember' });
    await one.close();
    const two = await openEngine({ home, embedder: null });
    try {
      expect((await two.call('listCompanions', {})).companions).toMatchObject([
        { name: 'vscode', version: '1.99', calls: 2, lastTool: 'remember', canWrite: false },
      ]);
    } finally {
      await two.close();
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});

describe("companions: the clients' entries", () => {
  const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
  afterEach(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it('gives each client its entry, file and snippet (pinning the folder of an engine opened on it), and merges one in with a backup', async () => {
    const home = tempDir('nemori-companions-home-');
    const user = tempDir('nemori-companions-user-');
    process.env.HOME = user;
    process.env.XDG_CONFIG_HOME = path.join(user, '.config');
    const engine = await openEngine({ home, embedder: null });
    try {
      const { clients, http } = await engine.call('companionConfigs', {});
      expect(http).toBeNull();
      expect(clients.map((c) => c.client)).toEqual(['claude-desktop', 'claude-code', 'cursor', 'vscode']);
      const desktop = clients[0]!;
      expect(desktop.file).toBe(path.join(user, '.config', 'Claude', 'claude_desktop_config.json'));
      // With the engine's environment where this machine's C library reads it (bin/engine-env.mjs).
      const env = engineEnv();
      const withEnv = Object.keys(env).length > 0 ? { env } : {};
      expect(desktop.entry).toEqual({ command: process.execPath, args: [NEMORI_BIN, '--home', home, 'mcp'], ...withEnv });
      expect(JSON.parse(desktop.snippet)).toEqual({ mcpServers: { nemori: desktop.entry } });
      const e = Object.entries(env)
        .map(([k, v]) => `-e ${k}=${v} `)
        .join('');
      expect(clients[1]!.command).toBe(`claude mcp add -s user nemori ${e}-- ${process.execPath} ${NEMORI_BIN} --home ${home} mcp`);
      expect(clients[3]).toMatchObject({ serversKey: 'servers', entry: { type: 'stdio' } });
      expect((await engine.call('companionConfigs', { readOnly: true })).clients[2]!.entry.args.at(-1)).toBe('--read-only');

      const created = await engine.call('addCompanionConfig', { client: 'cursor' });
      expect(created).toMatchObject({ client: 'cursor', file: path.join(user, '.cursor', 'mcp.json'), action: 'created', backup: null });
      expect(JSON.parse(fs.readFileSync(created.file, 'utf8'))).toEqual({ mcpServers: { nemori: created.entry } });
      expect(await engine.call('addCompanionConfig', { client: 'cursor' })).toMatchObject({ action: 'unchanged', backup: null });
      fs.writeFileSync(created.file, '{ "mcpServers": { "other": { "command": "x", "args": [] } } }\n');
      const updated = await engine.call('addCompanionConfig', { client: 'cursor' });
      expect(updated.action).toBe('updated');
      expect(fs.readFileSync(updated.backup!, 'utf8')).toContain('"other"');
      expect(Object.keys((JSON.parse(fs.readFileSync(created.file, 'utf8')) as { mcpServers: object }).mcpServers)).toEqual([
        'other',
        'nemori',
      ]);
    } finally {
      await engine.close();
      fs.rmSync(home, { recursive: true, force: true });
      fs.rmSync(user, { recursive: true, force: true });
    }
  });
});

describe('companions: access enforced over /mcp', () => {
  let engine: Engine;
  let server: WebServer;
  let close: () => Promise<void>;
  beforeAll(async () => ({ engine, server, close } = await startBridge()));
  afterAll(() => close());

  async function connect(name: string, version: string): Promise<Client> {
    const client = new Client({ name, version });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${server.token}` } },
      }),
    );
    return client;
  }

  it('lets a new client write; once set read-only, add_memory, memorize and forget refuse and say where to change it; reading goes on', async () => {
    const client = await connect('pocket-companion', '2.1.0');
    try {
      // Listed as it connects, before any tool call.
      await expect
        .poll(async () => (await engine.call('listCompanions', {})).companions.find((c) => c.name === 'pocket-companion'))
        .toMatchObject({ version: '2.1.0', via: 'http', calls: 0 });
      const ok = await tool(client, 'add_memory', {
        conversation_id: 'walks',
        ...turn('We walked to the lighthouse at dawn.', '2024-04-02T06:30:00+02:00'),
      });
      expect(ok.isError).toBeFalsy();
      expect(ok.structuredContent).toMatchObject({ stored: 1 });

      await engine.call('setCompanionAccess', { name: 'pocket-companion', canWrite: false });
      const refused = await tool(client, 'add_memory', {
        conversation_id: 'walks',
        ...turn('The lighthouse keeper waved.', '2024-04-02T06:40:00+02:00'),
      });
      expect(refused.isError).toBe(true);
      expect(refused.content[0]!.text).toContain('Nothing was stored or changed: pocket-companion may only read this memory');
      expect(refused.content[0]!.text).toContain('Settings → Companions');
      expect((await tool(client, 'memorize', { value: 'Ana likes lighthouses' })).isError).toBe(true);
      expect((await tool(client, 'forget', { about: 'lighthouse' })).content[0]!.text).toContain('may only read this memory');
      const stats = await engine.call('stats', {});
      expect(stats.owners[0]!.messages).toBe(1);
      expect((await engine.call('listKnowledge', {})).facts).toHaveLength(0);

      const found = await tool(client, 'search_memory', { query: 'lighthouse' });
      expect(found.isError).toBeFalsy();
      await expect
        .poll(async () => (await engine.call('listCompanions', {})).companions[0])
        .toMatchObject({ name: 'pocket-companion', calls: 5, lastTool: 'search_memory', canWrite: false });

      await engine.call('setCompanionAccess', { name: 'pocket-companion', canWrite: true });
      expect(
        (
          await tool(client, 'add_memory', {
            conversation_id: 'walks',
            ...turn('The lighthouse keeper waved.', '2024-04-02T06:40:00+02:00'),
          })
        ).structuredContent,
      ).toMatchObject({ stored: 1 });
    } finally {
      await client.close();
    }
  });
});

describe('companions: one list for every process', { timeout: 300_000 }, () => {
  let home: string;
  let client: Client;
  let other: ConnectedEngine;
  beforeAll(async () => {
    home = tempDir('nemori-companions-stdio-');
    client = new Client({ name: 'stdio-companion', version: '3.0.0' });
    await client.connect(nemoriMcpTransport(home));
    // The first tool call waits for the server's engine: the folder is held from then on.
    await tool(client, 'load_context', {});
    other = await connectOrOpenEngine({
      home,
      transport: loopback,
      open: () => Promise.reject(new Error('the MCP server should hold the folder')),
    });
  }, 240_000);
  afterAll(async () => {
    await other?.close();
    await client?.close();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('a client of `nemori mcp` set read-only from another process is refused at once', async () => {
    await expect
      .poll(async () => (await other.call('listCompanions', {})).companions)
      .toMatchObject([{ name: 'stdio-companion', version: '3.0.0', via: 'stdio', lastTool: 'load_context' }]);
    await other.call('setCompanionAccess', { name: 'stdio-companion', canWrite: false });
    const refused = await tool(client, 'add_memory', turn('A stdio turn.', '2024-04-03T10:00:00+02:00'));
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toContain('Settings → Companions');
    await other.call('setCompanionAccess', { name: 'stdio-companion', canWrite: true });
    expect((await tool(client, 'add_memory', turn('A stdio turn.', '2024-04-03T10:00:00+02:00'))).structuredContent).toMatchObject({
      stored: 1,
    });
  });
});
