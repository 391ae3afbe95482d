/**
 * `nemori web`: the journal in a browser tab. Opens the engine (with the embedding model, like the
 * desktop app), serves the built renderer and the API on 127.0.0.1, prints the link with this run's
 * token and, unless told not to, opens it. Ctrl-C closes the server and then the database.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openDefaultEngine } from '../api/open.js';
import { NemoriError } from '../domain/errors.js';
import { startWebServer } from './server.js';

/** Where `npm run build` puts the renderer, relative to this file (core/http → out/renderer). */
export const DEFAULT_STATIC_DIR = fileURLToPath(new URL('../../out/renderer', import.meta.url));

export interface RunWebOptions {
  home: string;
  port?: number | undefined;
  open: boolean;
  json: boolean;
  staticDir?: string;
}

/** The system's "open this link" command; failures only cost the convenience. */
function openInBrowser(url: string): void {
  const [cmd, args] =
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '""', url]] : ['xdg-open', [url]];
  try {
    spawn(cmd as string, args as string[], { stdio: 'ignore', detached: true }).on('error', () => {}).unref();
  } catch {
    /* no browser opener: the link is printed anyway */
  }
}

export async function runWeb(o: RunWebOptions): Promise<void> {
  const staticDir = o.staticDir ?? DEFAULT_STATIC_DIR;
  if (!existsSync(`${staticDir}/index.html`)) {
    throw new NemoriError('NOT_FOUND', `the journal viewer is not built (${staticDir} is missing): run \`npm run build\` first`);
  }
  const engine = await openDefaultEngine({
    home: o.home,
    embeddings: 'auto',
    // A browser tab can stay open for days, like the desktop app: run the daily forgetting pass.
    scheduleForgetting: true,
    warn: (m) => {
      if (!o.json) process.stderr.write(`warning: ${m}\n`);
    },
  });
  let server;
  try {
    server = await startWebServer({ engine, staticDir, port: o.port });
  } catch (e) {
    await engine.close();
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new NemoriError('INVALID_INPUT', `port ${o.port} is in use: choose another with --port, or leave it out for a free one`);
    throw e;
  }
  const web = server;
  process.stdout.write(o.json ? `${JSON.stringify({ url: web.url, port: web.port, home: o.home })}\n` : `Nemori is open at ${web.url}\n(only this computer can reach it; Ctrl-C to stop)\n`);
  if (o.open) openInBrowser(web.url);

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
