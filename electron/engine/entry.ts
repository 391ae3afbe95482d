/**
 * Entry of the engine's utility process (`utilityProcess.fork` from main, built to
 * out/main/engine.js). Opens the engine on the data folder and model Settings chose (core/startup.ts,
 * the same ones the CLI finds) and serves the protocol over `process.parentPort`; it also answers
 * other processes (the CLI, MCP) on loopback. When another Nemori already holds the folder, the
 * window's calls go to it instead. Nothing here touches a window.
 */
import v8 from 'node:v8';
import { SERVER_TIERING } from '../../bin/wasm-tiering.mjs';
import { openAppEngine } from '../../core/engine/app-engine';
import { connectOrOpenEngine } from '../../core/engine/connect';
import { loopback } from '../../core/http/holder-transport';
import { resolveStartup } from '../../core/engine/startup';
import { takeHostKey } from '../main/key-vault';
import { serveEngine } from './serve';
import type { HostMessage, HostRequest, MessageEnd } from './protocol';

// A server, like `nemori web`: set before PGlite's WebAssembly is compiled, so the first searches after
// start do not share the CPU with V8 optimising all of it (bin/wasm-tiering.mjs).
v8.setFlagsFromString(SERVER_TIERING);

const parentPort = process.parentPort;
// Read once and removed from the environment, so nothing this process starts inherits it.
const llmKeyFromHost = takeHostKey(process.env);
const warn = (m: string) => console.warn(`[nemori engine] ${m}`);

const channel: MessageEnd<HostRequest, HostMessage> = {
  post: (message) => parentPort.postMessage(message),
  listen(handler) {
    const onMessage = (e: Electron.MessageEvent) => handler(e.data as HostRequest);
    parentPort.on('message', onMessage);
    return () => void parentPort.off('message', onMessage);
  },
};

serveEngine({
  channel,
  open: async (report, announce) => {
    const startup = resolveStartup(undefined, process.env, warn);
    const engine = await connectOrOpenEngine({
      home: startup.home,
      transport: loopback,
      open: ({ lock, moved }) =>
        openAppEngine({
          startup,
          llmKeyFromHost,
          // First run, and a model chosen in Settings: it downloads here; the window shows its progress.
          onModelProgress: report,
          warn,
          lock,
          onHomeChanged: moved,
          onEvent: announce,
        }),
      onClient: ({ pid, home }) => warn(`using the Nemori that holds ${home} (pid ${pid})`),
    });
    await engine.ready;
    return engine;
  },
  log: (message, error) => console.error(`[nemori engine] ${message}:`, error),
  onClosed: () => process.exit(0),
});
