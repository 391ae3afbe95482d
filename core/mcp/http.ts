/**
 * The MCP tools over Streamable HTTP, for clients that reach Nemori by URL rather than by starting a
 * process. Stateless: each POST gets its own server and transport (JSON responses, no session), so
 * nothing lingers between requests. Mounted at `/mcp` on the HTTP bridge (core/http/server.ts), behind
 * its Host check, Origin check and bearer token; it does no checking of its own.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpServer, type McpServerOptions } from './server.js';

export type McpHttpHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export function mcpOverHttp(o: McpServerOptions): McpHttpHandler {
  return async (req, res) => {
    if (req.method !== 'POST') {
      // No server-initiated stream without sessions: clients then only POST (the specification allows 405).
      res.writeHead(405, { 'Content-Type': 'application/json', Allow: 'POST' }).end(
        JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: POST JSON-RPC messages to /mcp' }, id: null }),
      );
      return;
    }
    const server = createMcpServer(o);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };
}
