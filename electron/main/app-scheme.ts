/**
 * The `app://` scheme the packaged renderer is served from (instead of file://), so the
 * app's pages have a real origin, response headers (the CSP) and no access to the file system.
 *
 * Pure: path resolution and content types only; `protocol.ts` wires it into Electron.
 */
import path from 'node:path';

export const APP_SCHEME = 'app';
export const APP_HOST = 'nemori';
export const APP_ENTRY_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
};

export function contentTypeFor(filePath: string): string {
  return CONTENT_TYPES[path.extname(filePath).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * Maps an `app://nemori/…` request URL to a file inside `rootDir`, or null when the URL is
 * not ours or would escape the root (`..`, encoded separators, absolute paths).
 * `/` maps to `index.html`.
 */
export function resolveAppAsset(rootDir: string, requestUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(requestUrl);
  } catch {
    return null;
  }
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return null;

  let pathname: string;
  try {
    pathname = decodeURIComponent(url.pathname);
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
