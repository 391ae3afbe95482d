/**
 * The MCP tools over Streamable HTTP, for clients that reach Nemori by URL rather than by starting a
 * process. Stateless: each POST gets its own server and transport (JSON responses, no session), so
 * nothing lingers between requests. Mounted at `/mcp` on the HTTP bridge (core/http/server.ts), behind
 * its Host check, Origin check and bearer token; it does no checking of its own.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { companionNote, createMcpServer, type CompanionInfo, type McpServerOptions } from './server.js';

export type McpHttpHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export function mcpOverHttp(o: McpServerOptions): McpHttpHandler {
  /**
   * Without sessions only the `initialize` request names the client: the later requests of this bridge
   * are taken to come from the last client that did (Settings → Companions lists it, its access applies).
   */
  let last: CompanionInfo | undefined;
  const log = o.log ?? (() => {});
  return async (req, res) => {
    if (req.method !== 'POST') {
      // No server-initiated stream without sessions: clients then only POST (the specification allows 405).
      const refusal = { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: POST JSON-RPC messages to /mcp' }, id: null };
      res.writeHead(405, { 'Content-Type': 'application/json', Allow: 'POST' });
      res.end(JSON.stringify(refusal));
      return;
    }
    const server = createMcpServer({ ...o, via: 'http', client: () => last });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
    const said = server.server.getClientVersion();
    if (said) {
      last = { name: said.name, title: said.title, version: said.version };
      void (async () => (await o.engine).call('noteCompanion', companionNote(last, 'http')))().catch((e: unknown) =>
        log(`cannot record the companion: ${e instanceof Error ? e.message : String(e)}`),
      );
    }
  };
}
