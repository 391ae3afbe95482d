/**
 * Where the person is, kept in the URL hash (`#/episode/<id>`, `#/search?q=…`), so the browser's
 * Back works, a reload stays put, and Electron's `app://` page never navigates away.
 */
import { create } from 'zustand';

export type Route =
  | { name: 'journal' }
  | { name: 'episode'; id: string }
  | { name: 'search'; q: string }
  | { name: 'import' }
  | { name: 'settings' }
  | { name: 'knowledge' };

export type Section = Exclude<Route['name'], 'episode'>;

export function parseHash(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#/, '').split('?');
  const parts = path.split('/').filter(Boolean);
  const params = new URLSearchParams(query);
  switch (parts[0]) {
    case 'episode':
      return parts[1] ? { name: 'episode', id: decodeURIComponent(parts[1]) } : { name: 'journal' };
    case 'search':
      return { name: 'search', q: params.get('q') ?? '' };
    case 'import':
    case 'settings':
    case 'knowledge':
      return { name: parts[0] };
    default:
      return { name: 'journal' };
  }
}

export function hashOf(route: Route): string {
  switch (route.name) {
    case 'episode':
      return `#/episode/${encodeURIComponent(route.id)}`;
    case 'search':
      return route.q ? `#/search?${new URLSearchParams({ q: route.q })}` : '#/search';
    default:
      return `#/${route.name}`;
  }
}

interface RouteState {
  route: Route;
  /** How many in-app steps the history holds, so "Back" never leaves the app. */
  depth: number;
}

export const useRouteStore = create<RouteState>()(() => ({ route: parseHash(window.location.hash), depth: 0 }));

export function navigate(route: Route, o: { replace?: boolean } = {}): void {
  const hash = hashOf(route);
  if (hash === window.location.hash) return;
  if (o.replace) {
    history.replaceState(null, '', hash);
    useRouteStore.setState({ route });
  } else {
    window.location.hash = hash; // hashchange updates the store
    useRouteStore.setState((s) => ({ depth: s.depth + 1 }));
  }
}

/** Back within the app, or to the journal when there is nothing to go back to. */
export function goBack(): void {
  const { depth } = useRouteStore.getState();
  if (depth > 0) {
    useRouteStore.setState({ depth: depth - 1 });
    history.back();
  } else navigate({ name: 'journal' }, { replace: true });
}

export function listenToHash(): () => void {
  const onChange = () => useRouteStore.setState({ route: parseHash(window.location.hash) });
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
}
