import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ALLOWED_PERMISSIONS,
  CONTENT_SECURITY_POLICY,
  CONTENT_SECURITY_POLICY_META,
  decideNavigation,
  devContentSecurityPolicy,
  isPermissionAllowed,
  SECURE_WEB_PREFERENCES,
} from '../../electron/main/security';

const APP = 'app://nemori/index.html';

/** "a b; c d" → { a: ['b'], c: ['d'] } */
function parseCsp(policy: string): Map<string, string[]> {
  return new Map(
    policy
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter((tokens) => tokens[0])
      .map(([name, ...sources]) => [name!, sources]),
  );
}

describe('window webPreferences', () => {
  it('isolate the page from Node and Electron', () => {
    expect(SECURE_WEB_PREFERENCES.contextIsolation).toBe(true);
    expect(SECURE_WEB_PREFERENCES.sandbox).toBe(true);
    expect(SECURE_WEB_PREFERENCES.nodeIntegration).toBe(false);
    expect(SECURE_WEB_PREFERENCES.nodeIntegrationInWorker).toBe(false);
    expect(SECURE_WEB_PREFERENCES.nodeIntegrationInSubFrames).toBe(false);
    expect(SECURE_WEB_PREFERENCES.webSecurity).toBe(true);
    expect(SECURE_WEB_PREFERENCES.allowRunningInsecureContent).toBe(false);
    expect(SECURE_WEB_PREFERENCES.webviewTag).toBe(false);
  });

  it('cannot be loosened at runtime', () => {
    expect(Object.isFrozen(SECURE_WEB_PREFERENCES)).toBe(true);
  });
});

describe('Content-Security-Policy', () => {
  it('is the agreed strict policy', () => {
    expect(CONTENT_SECURITY_POLICY).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
        "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    );
  });

  it('never allows eval and only loads scripts from the app itself', () => {
    const csp = parseCsp(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-eval');
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('default-src')).toEqual(["'self'"]);
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp.get('connect-src')).toEqual(["'self'"]);
  });

  it('is also in renderer/index.html, minus what a <meta> cannot carry', () => {
    const html = readFileSync(new URL('../../renderer/index.html', import.meta.url), 'utf8');
    const meta = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/.exec(html);
    expect(meta?.[1]).toBe(CONTENT_SECURITY_POLICY_META);
    const header = parseCsp(CONTENT_SECURITY_POLICY);
    header.delete('frame-ancestors');
    expect(parseCsp(CONTENT_SECURITY_POLICY_META)).toEqual(header);
  });

  it('stays free of eval and inline scripts while developing', () => {
    const dev = devContentSecurityPolicy({ scriptHashes: ['sha256-abc='], connectSources: ['ws://localhost:*'] });
    expect(dev).not.toContain('unsafe-eval');
    expect(parseCsp(dev).get('script-src')).toEqual(["'self'", "'sha256-abc='"]);
    expect(parseCsp(dev).get('connect-src')).toEqual(["'self'", 'ws://localhost:*']);
  });
});

describe('navigation and new windows', () => {
  it('keeps the window on the app and sends web links to the system browser', () => {
    expect(decideNavigation('app://nemori/index.html#/episodes', APP, 'navigate')).toBe('allow');
    expect(decideNavigation('https://example.org/article', APP, 'navigate')).toBe('open-external');
    expect(decideNavigation('http://example.org/', APP, 'new-window')).toBe('open-external');
  });

  it('refuses everything else', () => {
    for (const url of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'app://elsewhere/index.html',
      'data:text/html,<script>1</script>',
      'smb://host/share',
      'not a url',
    ]) {
      expect(decideNavigation(url, APP, 'navigate'), url).toBe('deny');
    }
    // the app never opens a second window of itself
    expect(decideNavigation('app://nemori/index.html', APP, 'new-window')).toBe('deny');
  });

  it('treats the dev server as the app while developing', () => {
    const dev = 'http://localhost:5173/';
    expect(decideNavigation('http://localhost:5173/index.html', dev, 'navigate')).toBe('allow');
    expect(decideNavigation('http://localhost:5174/', dev, 'navigate')).toBe('open-external');
  });
});

describe('permissions', () => {
  it('denies every permission request (camera, microphone, notifications, …)', () => {
    expect(ALLOWED_PERMISSIONS.size).toBe(0);
    for (const permission of ['media', 'notifications', 'geolocation', 'clipboard-read', 'openExternal', 'unknown']) {
      expect(isPermissionAllowed(permission)).toBe(false);
    }
  });
});
