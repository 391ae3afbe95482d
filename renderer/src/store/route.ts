/**
 * Where the person is, kept in the URL hash (`#/episode/<id>`, `#/search?q=…`), so the browser's
 * Back works, a reload stays put, and Electron's `app://` page never navigates away.
 */
import { create } from 'zustand';
import { hashOf, parseHash, type Route } from '../lib/routes';

export type { Route, Section } from '../lib/routes';

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
