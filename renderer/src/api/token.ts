/**
 * The HTTP bridge's per-run token. `nemori web` prints `http://127.0.0.1:PORT/#token=…`: the
 * fragment never leaves the browser (not in requests, logs or Referer). We keep it for this tab
 * only (sessionStorage) and clear it from the address bar at once.
 */
const KEY = 'nemori.token';

/** Moves a `#token=…` fragment into sessionStorage; returns the hash that remains (the route). */
export function captureToken(location: Location = window.location, storage: Storage = sessionStorage): void {
  const match = /^#token=([\w-]+)(.*)$/.exec(location.hash);
  if (!match) return;
  storage.setItem(KEY, match[1]!);
  const rest = match[2]?.startsWith('#') ? match[2] : '#/journal';
  history.replaceState(null, '', `${location.pathname}${location.search}${rest}`);
}

export function readToken(storage: Storage = sessionStorage): string | null {
  return storage.getItem(KEY);
}
