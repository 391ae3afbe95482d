/**
 * Serves the built renderer (out/renderer) under the same Content-Security-Policy as Electron's
 * `app://` scheme. Nothing outside the folder is reachable, whatever the path says.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { CONTENT_SECURITY_POLICY } from './csp.js';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
};

export function contentTypeFor(filePath: string): string {
  return CONTENT_TYPES[path.extname(filePath).toLowerCase()] ?? 'application/octet-stream';
}

/** Headers of every page and asset: the app's CSP, no sniffing, no referrer, no framing. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
});

/** URL path → a file inside `rootDir`, or null (outside the root, encoded separators, NUL). `/` → index.html. */
export function resolveStatic(rootDir: string, urlPath: string): string | null {
  let pathname: string;
  try {
    pathname = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (pathname.includes('\0') || pathname.includes('\\')) return null;
  if (pathname === '' || pathname.endsWith('/')) pathname += 'index.html';
  const root = path.resolve(rootDir);
  const filePath = path.resolve(root, `.${path.posix.normalize(pathname)}`);
  const relative = path.relative(root, filePath);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return null;
  return filePath;
}

export async function serveStatic(rootDir: string, urlPath: string, res: ServerResponse, headOnly: boolean): Promise<void> {
  const filePath = resolveStatic(rootDir, urlPath);
  const info = filePath ? await stat(filePath).catch(() => null) : null;
  if (!filePath || !info?.isFile()) {
    res.writeHead(404, { ...PAGE_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found');
    return;
  }
  // Hashed assets never change; the page itself must be re-read so a rebuild shows up.
  const cache = /\/assets\/.+-[\w-]{6,}\.\w+$/.test(urlPath) ? 'public, max-age=31536000, immutable' : 'no-cache';
  res.writeHead(200, { ...PAGE_HEADERS, 'Content-Type': contentTypeFor(filePath), 'Content-Length': info.size, 'Cache-Control': cache });
  if (headOnly) {
    res.end();
    return;
  }
  createReadStream(filePath)
    .on('error', () => res.destroy())
    .pipe(res);
}
