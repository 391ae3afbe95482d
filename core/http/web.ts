/**
 * `nemori web`: the journal in a browser tab. Serves the built renderer and the API on 127.0.0.1,
 * opens the engine behind it (with the embedding model, like the desktop app; its first-run download
 * shows in the tab), prints the link with this run's token and, unless told not to, opens it. Ctrl-C
 * closes the server and then the database.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openAppEngine } from '../engine/app-engine.js';
import type { ModelStatus } from '../api/model-status.js';
import { NemoriError } from '../domain/errors.js';
import { connectOrOpenEngine, type ConnectedEngine } from '../engine/connect.js';
import type { HolderIdentity } from '../engine/holder.js';
import type { Startup } from '../engine/startup.js';
import { loopback } from './holder-transport.js';
import { startWebServer, type WebServer } from './server.js';

/** Where `npm run build` puts the renderer, relative to this file (core/http → out/renderer). */
export const DEFAULT_STATIC_DIR = fileURLToPath(new URL('../../out/renderer', import.meta.url));

export interface RunWebOptions {
  startup: Startup;
  port?: number | undefined;
  open: boolean;
  json: boolean;
  staticDir?: string;
}

/** The system's "open this link" command; failures only cost the convenience. */
function openInBrowser(url: string): void {
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : ['xdg-open', [url]];
  try {
    spawn(cmd as string, args as string[], { stdio: 'ignore', detached: true })
      .on('error', () => {})
      .unref();
  } catch {
    /* no browser opener: the link is printed anyway */
  }
}

export interface StartWebOptions {
  /** The data folder and model (core/startup.ts); Settings can change them while the tab is open. */
  startup: Startup;
  staticDir: string;
  port?: number | undefined;
  warn: (message: string) => void;
  /** The embedding model's state while the engine opens (it also goes to every tab). */
  onModel?: (status: ModelStatus) => void;
  /** Where NEMORI_* settings are read from (tests); process.env by default. */
  env?: NodeJS.ProcessEnv;
  /** Told when another Nemori holds the data folder and the tab's calls go to it. */
  onClient?: (holder: { pid: number; home: string }) => void;
}

/**
 * The bridge first, then the engine behind it: on a first run the embedding model (100+ MB) downloads
 * while the tab already shows its progress. Calls made meanwhile wait for the engine; if it cannot
 * open, they fail with its reason, and so does `engine`. When another Nemori already holds the data
 * folder, the tab's calls go to it; otherwise this server is also how other processes reach the memory.
 */
export async function startWeb(o: StartWebOptions): Promise<{ server: WebServer; engine: Promise<ConnectedEngine> }> {
  let adopt!: (opening: Promise<ConnectedEngine>) => void;
  const connected = new Promise<ConnectedEngine>((resolve) => (adopt = resolve));
  let holding: (() => HolderIdentity) | null = null;
  let server: WebServer;
  try {
    server = await startWebServer({ engine: connected, staticDir: o.staticDir, port: o.port, holder: () => holding?.() ?? null });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new NemoriError('INVALID_INPUT', `port ${o.port} is in use: choose another with --port, or leave it out for a free one`);
    throw e;
  }
  const web = server;
  adopt(
    connectOrOpenEngine({
      home: o.startup.home,
      // As the holder, this very server answers the other processes (it closes with the tab's).
      transport: {
        ...loopback,
        async serve(_engine, identity) {
          holding = identity;
          return {
            port: web.port,
            token: web.token,
            companionToken: web.companionToken,
            inFlight: () => web.inFlight,
            close: async () => {
              holding = null;
            },
          };
        },
      },
      open: ({ lock, moved }) =>
        openAppEngine({
          startup: o.startup,
          warn: o.warn,
          lock,
          onHomeChanged: moved,
          // The watched folder's imports show in every tab like the tab's own.
          onEvent: web.emit,
          ...(o.env ? { env: o.env } : {}),
          onModelProgress: (status) => {
            web.emit({ type: 'model', ...status });
            o.onModel?.(status);
          },
        }),
      ...(o.onClient ? { onClient: o.onClient } : {}),
    }),
  );
  const engine = connected.then(async (e) => {
    await e.ready;
    return e;
  });
  engine.catch(() => {});
  return { server: web, engine };
}

export async function runWeb(o: RunWebOptions): Promise<void> {
  const staticDir = o.staticDir ?? DEFAULT_STATIC_DIR;
  if (!existsSync(`${staticDir}/index.html`)) {
    throw new NemoriError('NOT_FOUND', `the journal viewer is not built (${staticDir} is missing): run \`npm run build\` first`);
  }
  let web: WebServer | undefined;
  let downloading = false;
  let announced = false;
  // The link is printed once the engine is open, or as soon as a first-run download starts (so the
  // tab shows its progress); an engine that cannot open (a locked store) fails before any link.
  const announce = () => {
    if (announced || !web) return;
    announced = true;
    process.stdout.write(
      o.json
        ? `${JSON.stringify({ url: web.url, port: web.port, home: o.startup.home })}\n`
        : `Nemori is open at ${web.url}\n(only this computer can reach it; Ctrl-C to stop)\n`,
    );
    if (o.open) openInBrowser(web.url);
  };
  const started = await startWeb({
    startup: o.startup,
    staticDir,
    port: o.port,
    warn: (m) => {
      if (!o.json) process.stderr.write(`warning: ${m}\n`);
    },
    onModel: (status) => {
      if (status.state !== 'downloading') return;
      downloading = true;
      announce();
    },
    onClient: ({ pid, home }) => process.stderr.write(`using the Nemori app that holds ${home} (pid ${pid})\n`),
  });
  web = started.server;
  if (downloading) announce();
  let engine: ConnectedEngine;
  try {
    engine = await started.engine;
  } catch (e) {
    await web.close();
    throw e;
  }
  announce();

  // Stay up until asked to stop, then close in order: no new requests, then the database.
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await web.close();
  await engine.close();
}
