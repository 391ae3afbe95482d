/**
 * Who may talk to the bridge: a page that knows this run's random token. The token reaches the
 * browser in the URL fragment (never sent to a server, never in logs or Referer), the page keeps it
 * in sessionStorage and sends it as `Authorization: Bearer …` (or `?token=` where a browser API
 * cannot set headers: EventSource).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

function sameSecret(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token of a request: the bearer header, else (for EventSource) the `token` query parameter. */
export function requestToken(req: IncomingMessage, url: URL): string | null {
  const header = req.headers.authorization;
  if (header?.startsWith('Bearer ')) return header.slice('Bearer '.length).trim();
  return url.searchParams.get('token');
}

export function isAuthorized(req: IncomingMessage, url: URL, token: string): boolean {
  const given = requestToken(req, url);
  return given !== null && sameSecret(given, token);
}

/**
 * Only requests addressed to this server by its loopback name: a web page that rebinds its own DNS
 * name to 127.0.0.1 sends its own Host, and is refused before anything else runs.
 */
export function isLoopbackHost(hostHeader: string | undefined, port: number): boolean {
  if (!hostHeader) return false;
  return [`127.0.0.1:${port}`, `localhost:${port}`].includes(hostHeader.toLowerCase());
}

/** A browser marks cross-site requests with Origin; ours come from our own origin or carry none. */
export function isSameOriginOrNone(originHeader: string | undefined, port: number): boolean {
  if (!originHeader) return true;
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`].includes(originHeader.toLowerCase());
}
