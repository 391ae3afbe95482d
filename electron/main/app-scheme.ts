/**
 * The `app://` scheme the packaged renderer is served from (instead of file://), so the
 * app's pages have a real origin, response headers (the CSP) and no access to the file system.
 *
 * Pure: which URLs are ours and which file they name; `protocol.ts` wires it into Electron.
 */
import { resolveStatic } from '../../core/http/static';

export const APP_SCHEME = 'app';
export const APP_HOST = 'nemori';
export const APP_ENTRY_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;

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

  // The same root-confined resolution the HTTP bridge uses for the same files.
  return resolveStatic(rootDir, url.pathname);
}
