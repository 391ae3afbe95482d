/**
 * The app's security policy as plain data and pure functions.
 *
 * No side effects and no runtime import of `electron` (types only), so the policy can be
 * asserted by plain vitest in Node and shared with the build config (the dev server's CSP).
 */
import type { WebPreferences } from 'electron';

/**
 * webPreferences for every window. The preload path is added per window; nothing here may be
 * loosened there. `sandbox: true` is also forced app-wide with `app.enableSandbox()`.
 */
export const SECURE_WEB_PREFERENCES = Object.freeze({
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  experimentalFeatures: false,
  webviewTag: false,
  navigateOnDragDrop: false,
  spellcheck: false, // Chromium's spellchecker fetches dictionaries from a Google CDN: not offline, not private
} as const satisfies WebPreferences);

/**
 * The Content-Security-Policy is shared with the HTTP bridge (`nemori web`), which serves the same
 * renderer; it lives in core so the bridge never imports from electron/.
 */
export {
  CONTENT_SECURITY_POLICY,
  CONTENT_SECURITY_POLICY_META,
  CSP_DIRECTIVES,
  devContentSecurityPolicy,
  serializeCsp,
  type CspDirectives,
} from '../../core/http/csp';

/** Permissions the renderer may be granted. Empty: every request and check is denied. */
export const ALLOWED_PERMISSIONS: ReadonlySet<string> = new Set<string>();

export function isPermissionAllowed(permission: string): boolean {
  return ALLOWED_PERMISSIONS.has(permission);
}

function parseUrl(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/**
 * True when `url` belongs to the app itself (same scheme and host as the entry URL).
 * Compares scheme + host rather than `URL.origin`, which Node reports as "null" for custom schemes.
 */
export function isAppUrl(url: string, appEntryUrl: string): boolean {
  const target = parseUrl(url);
  const app = parseUrl(appEntryUrl);
  return !!target && !!app && target.protocol === app.protocol && target.host === app.host;
}

/** Only plain web links leave the app, and only to the system browser. */
export function isExternalLink(url: string): boolean {
  const target = parseUrl(url);
  return !!target && (target.protocol === 'https:' || target.protocol === 'http:');
}

export type NavigationDecision = 'allow' | 'open-external' | 'deny';

/**
 * What to do when page content tries to navigate the window or open a new one.
 * In-app navigation of the main frame is allowed (reloads); web links go to the system
 * browser; everything else (file:, javascript:, custom schemes, …) is refused.
 */
export function decideNavigation(url: string, appEntryUrl: string, kind: 'navigate' | 'new-window'): NavigationDecision {
  if (kind === 'navigate' && isAppUrl(url, appEntryUrl)) return 'allow';
  if (isExternalLink(url)) return 'open-external';
  return 'deny';
}
