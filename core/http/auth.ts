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

/** The path where a browser API cannot set headers (EventSource): the only one that takes `?token=`. */
export const EVENTS_PATH = '/api/events';

/**
 * The token of a request: the bearer header, else — only for the event stream, which EventSource opens
 * without headers — the `token` query parameter (a token in a URL ends up in logs and history).
 */
export function requestToken(req: IncomingMessage, url: URL): string | null {
  const header = req.headers.authorization;
  if (header?.startsWith('Bearer ')) return header.slice('Bearer '.length).trim();
  return req.method === 'GET' && url.pathname === EVENTS_PATH ? url.searchParams.get('token') : null;
}

/**
 * What a token may do. `person`: everything the app does, naming files and folders included.
 * `companion` (what an MCP client or companion program is given): the memory's operations only — never
 * an operation that names a path on this machine or changes settings.
 */
export type TokenScope = 'person' | 'companion';

export interface Tokens {
  person: string;
  companion: string;
}

export function authorizedScope(req: IncomingMessage, url: URL, tokens: Tokens): TokenScope | null {
  const given = requestToken(req, url);
  if (given === null) return null;
  if (sameSecret(given, tokens.person)) return 'person';
  if (sameSecret(given, tokens.companion)) return 'companion';
  return null;
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
