import { readFile } from 'node:fs/promises';
import { protocol } from 'electron';
import { contentTypeFor } from '../../core/http/static';
import { APP_SCHEME, resolveAppAsset } from './app-scheme';
import { CONTENT_SECURITY_POLICY } from './security';

/** Must run before `app` is ready: gives `app://` a real, secure origin (localStorage, fetch, modules). */
export function registerAppSchemePrivileges(): void {
  protocol.registerSchemesAsPrivileged([
    {
      scheme: APP_SCHEME,
      privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true },
    },
  ]);
}

/**
 * Serves the built renderer from `rootDir` on `app://nemori/…`, every response carrying the
 * app's Content-Security-Policy header. Unknown paths get 404; nothing outside `rootDir` is readable.
 */
export function serveRenderer(rootDir: string): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const filePath = resolveAppAsset(rootDir, request.url);
    if (!filePath) return new Response('Not found', { status: 404 });
    try {
      const body = await readFile(filePath);
      return new Response(body, {
        status: 200,
        headers: {
          'Content-Type': contentTypeFor(filePath),
          'Content-Security-Policy': CONTENT_SECURITY_POLICY,
          'X-Content-Type-Options': 'nosniff',
          'Cache-Control': 'no-cache',
        },
      });
    } catch {
      return new Response('Not found', { status: 404 });
    }
  });
}
