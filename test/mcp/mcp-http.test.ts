/**
 * The MCP tools at /mcp on the HTTP bridge: reached with the SDK's Streamable HTTP client and the
 * bridge's token; refused without it, from another site, or under another Host name.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebServer } from '../../core/http/server.js';
import { READ_TOOLS, WRITE_TOOLS } from '../../core/mcp/server.js';
import { startBridge } from '../helpers/mcp.js';
import { request } from '../http/client.js';

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
});
const MCP_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

describe('/mcp on the HTTP bridge', () => {
  let server: WebServer;
  let close: () => Promise<void>;
  beforeAll(async () => ({ server, close } = await startBridge()));
  afterAll(() => close());

  async function connect(): Promise<Client> {
    const client = new Client({ name: 'nemori-http-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${server.token}` } },
      }),
    );
    return client;
  }

  it('serves the tools to a client with the token', async () => {
    const client = await connect();
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([...READ_TOOLS, ...WRITE_TOOLS].sort());
      const added = await client.callTool({
        name: 'add_memory',
        arguments: {
          conversation_id: 'web-1',
          messages: [{ speaker: 'Alice', role: 'user', text: 'The kingfisher came back to the pond.', time: '2024-03-05T07:30:00+01:00' }],
        },
      });
      expect(added.structuredContent).toMatchObject({ key: 'web-1', stored: 1, redacted: 0 });
      // A pasted password is replaced before it is stored; the answer says how many, never what.
      const secret = await client.callTool({
        name: 'add_memory',
        arguments: {
          conversation_id: 'web-1',
          messages: [{ speaker: 'Alice', role: 'user', text: 'my wifi password is pond-2024!', time: '2024-03-05T07:31:00+01:00' }],
        },
      });
      expect(secret.structuredContent).toMatchObject({ stored: 1, redacted: 1 });
      const said = (secret.content as { text: string }[])[0]!.text;
      expect(said).toContain('1 secret was replaced with placeholders before storing.');
      expect(said).not.toContain('pond-2024');
      const context = await client.callTool({
        name: 'load_context',
        arguments: { query: 'kingfisher pond', now: '2024-03-05T08:00:00+01:00' },
      });
      // Said a moment ago, whether or not its episode is built yet, in the zone it was said in.
      const block = (context.content as { text: string }[])[0]!.text;
      expect(block).toContain('now is Tuesday, 5 March 2024, 08:00 (all times UTC+01:00 unless marked)');
      expect(block).toContain('Tuesday, 5 March 2024, 07:30');
      expect(block).toContain('The kingfisher came back to the pond.');
      // The prompt a person attaches, over HTTP too (on this computer's clock).
      const prompt = await client.getPrompt({ name: 'load_context', arguments: { query: 'kingfisher pond' } });
      expect((prompt.messages[0]!.content as { text: string }).text).toContain('## What I remember — now is');
    } finally {
      await client.close();
    }
  });

  it('answers 401 without the token or with a wrong one, and refuses other sites and other Host names', async () => {
    const none = await request(server.port, { method: 'POST', path: '/mcp', headers: MCP_HEADERS, body: INITIALIZE });
    expect(none.status).toBe(401);
    expect(none.json()).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    const wrong = await request(server.port, {
      method: 'POST',
      path: '/mcp',
      headers: { ...MCP_HEADERS, Authorization: 'Bearer nope' },
      body: INITIALIZE,
    });
    expect(wrong.status).toBe(401);
    const otherSite = await request(server.port, {
      method: 'POST',
      path: '/mcp',
      headers: { ...MCP_HEADERS, Authorization: `Bearer ${server.token}`, Origin: 'https://evil.example' },
      body: INITIALIZE,
    });
    expect(otherSite.status).toBe(401);
    const rebound = await request(server.port, {
      method: 'POST',
      path: '/mcp',
      headers: { ...MCP_HEADERS, Authorization: `Bearer ${server.token}`, Host: 'evil.example' },
      body: INITIALIZE,
    });
    expect(rebound.status).toBe(403);

    const ok = await request(server.port, {
      method: 'POST',
      path: '/mcp',
      headers: { ...MCP_HEADERS, Authorization: `Bearer ${server.token}` },
      body: INITIALIZE,
    });
    expect(ok.status).toBe(200);
    expect(ok.json()).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'nemori' } } });
    const get = await request(server.port, {
      path: '/mcp',
      headers: { Authorization: `Bearer ${server.token}`, Accept: 'text/event-stream' },
    });
    expect(get.status).toBe(405);
  });
});
