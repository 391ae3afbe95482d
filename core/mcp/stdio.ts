/**
 * `nemori mcp`: the MCP server over stdio, the way desktop assistants start it (a child process per
 * client). stdout carries the protocol and nothing else: logs, warnings and anything a library prints
 * go to stderr. The server answers at once (a client times out on a slow start); tools called while the
 * engine opens (the embedding model loading) wait for it. Several clients each start their own server:
 * the first holds the data folder and the others call it on loopback (a dead holder is taken over). It
 * runs until the client closes stdin or the process is told to stop, then closes the database.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { openAppEngine } from '../engine/app-engine.js';
import { connectOrOpenEngine, type ConnectedEngine, type HolderTransport } from '../engine/connect.js';
import type { Startup } from '../engine/startup.js';
import { createMcpServer } from './server.js';

export interface RunMcpOptions {
  startup: Startup;
  readOnly: boolean;
  /** How to reach the folder's holder when another process holds it (the CLI passes the loopback client). */
  transport: HolderTransport;
  env?: NodeJS.ProcessEnv;
}

const toStderr = (...args: unknown[]) => console.error(...args);

export async function runMcpStdio(o: RunMcpOptions): Promise<void> {
  // Libraries that log with console.log (model loading, ONNX) must not corrupt the protocol stream.
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  const log = (m: string) => process.stderr.write(`nemori mcp: ${m}\n`);
  const warn = (m: string) => log(`warning: ${m}`);
  const opening: Promise<ConnectedEngine> = connectOrOpenEngine({
    home: o.startup.home,
    transport: o.transport,
    open: ({ lock, moved }) =>
      openAppEngine({ startup: o.startup, warn, background: true, lock, onHomeChanged: moved, ...(o.env ? { env: o.env } : {}) }),
    onClient: ({ pid, home }) => log(`using the Nemori that holds ${home} (pid ${pid})`),
  });
  // A failed opening is reported by the tools that wait for it, and below.
  opening.catch(() => {});
  const server = createMcpServer({ engine: opening, readOnly: o.readOnly, log });
  const stopped = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.connect(new StdioServerTransport());
  let engine: ConnectedEngine;
  try {
    engine = await opening;
    await engine.ready;
  } catch (e) {
    await server.close();
    throw e;
  }
  log(`serving ${o.startup.home}${o.readOnly ? ' (read-only)' : ''}`);
  await stopped;
  await server.close();
  // A holder first finishes what other processes' servers asked of it.
  await engine.close({ drain: true });
}
