import path from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { NEMORI_BIN } from '../../core/companions/mcp-config.js';
import { TINY_MODEL_ID } from '../../core/embed/model-specs.js';
import type { Engine } from '../../core/engine/open-engine.js';
import { startWebServer, type WebServer } from '../../core/http/server.js';
import { TINY_MODEL_DIR } from '../fixtures/tiny-model/index.js';
import { openMemoryEngine, tempDir } from './engine.js';

/** The environment of a Nemori child process: offline, the tiny model, its own XDG data folder under `home`. */
export function offlineEnv(home: string): Record<string, string> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => !e[0].startsWith('NEMORI_') && e[1] !== undefined),
  );
  return {
    ...clean,
    NEMORI_ALLOW_DOWNLOAD: '0',
    NEMORI_MODEL_DIR: path.dirname(TINY_MODEL_DIR),
    NEMORI_EMBEDDING_MODEL: TINY_MODEL_ID,
    XDG_DATA_HOME: path.join(home, 'xdg'),
  };
}

/** `nemori --home HOME mcp …` over stdio, the way a desktop MCP client starts it; its stderr is piped. */
export function nemoriMcpTransport(home: string, args: readonly string[] = []): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: [NEMORI_BIN, '--home', home, 'mcp', ...args],
    env: offlineEnv(home),
    stderr: 'pipe',
  });
}

/** An in-memory engine behind the HTTP bridge (and its /mcp), closed together. */
export async function startBridge(): Promise<{ engine: Engine; server: WebServer; close: () => Promise<void> }> {
  const engine = await openMemoryEngine();
  const server = await startWebServer({ engine, staticDir: tempDir('nemori-mcp-static-'), log: () => {} });
  return {
    engine,
    server,
    close: async () => {
      await server.close();
      await engine.close();
    },
  };
}
