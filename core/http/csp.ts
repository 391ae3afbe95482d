/**
 * The Content-Security-Policy of the app's own pages, as plain data. Both front ends serve the
 * same renderer under the same policy: Electron's `app://` handler and the HTTP bridge
 * (`nemori web`). It lives in core so the bridge can use it without importing anything from
 * electron/; `electron/main/security.ts` re-exports it.
 */

export type CspDirectives = Readonly<Record<string, readonly string[]>>;

/** The production policy, directive by directive. */
export const CSP_DIRECTIVES: CspDirectives = Object.freeze({
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'frame-ancestors': ["'none'"],
});

/** Directives a browser ignores (and warns about) when the policy comes from a `<meta>` tag. */
const HEADER_ONLY_DIRECTIVES = new Set(['frame-ancestors', 'report-uri', 'sandbox']);

export function serializeCsp(directives: CspDirectives): string {
  return Object.entries(directives)
    .map(([name, sources]) => [name, ...sources].join(' '))
    .join('; ');
}

/** Sent as the `Content-Security-Policy` response header for the app's own pages. */
export const CONTENT_SECURITY_POLICY = serializeCsp(CSP_DIRECTIVES);

/** The same policy as written in `renderer/index.html` (a meta tag cannot carry frame-ancestors). */
export const CONTENT_SECURITY_POLICY_META = serializeCsp(
  Object.fromEntries(Object.entries(CSP_DIRECTIVES).filter(([name]) => !HEADER_ONLY_DIRECTIVES.has(name))),
);

/**
 * The policy while developing against the Vite dev server: the production policy plus
 * the hash of the React Refresh preamble (an inline module script) and the HMR websocket.
 * Still no 'unsafe-inline' and no 'unsafe-eval' for scripts.
 */
export function devContentSecurityPolicy(extra: {
  scriptHashes: readonly string[];
  connectSources: readonly string[];
  meta?: boolean;
}): string {
  const directives: Record<string, readonly string[]> = {
    ...CSP_DIRECTIVES,
    'script-src': [...(CSP_DIRECTIVES['script-src'] ?? []), ...extra.scriptHashes.map((h) => `'${h}'`)],
    'connect-src': [...(CSP_DIRECTIVES['connect-src'] ?? []), ...extra.connectSources],
  };
  if (extra.meta) for (const name of HEADER_ONLY_DIRECTIVES) delete directives[name];
  return serializeCsp(directives);
}
