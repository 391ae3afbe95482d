/** The app's places and their URL hashes (`#/episode/<id>`, `#/search?q=…`, `#/knowledge/<id or key>`). Pure. */

export type Route =
  | { name: 'journal' }
  | { name: 'episode'; id: string }
  | { name: 'search'; q: string }
  | { name: 'import' }
  | { name: 'settings' }
  /** `id`: the fact shown beside the list (its id, or any spelling of its key). */
  | { name: 'knowledge'; id?: string }
  | { name: 'care' };

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
    case 'knowledge':
      return parts[1] ? { name: 'knowledge', id: decodeURIComponent(parts[1]) } : { name: 'knowledge' };
    case 'import':
    case 'settings':
    case 'care':
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
    case 'knowledge':
      return route.id ? `#/knowledge/${encodeURIComponent(route.id)}` : '#/knowledge';
    default:
      return `#/${route.name}`;
  }
}
