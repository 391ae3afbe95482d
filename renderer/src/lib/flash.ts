/**
 * A notice that survives one reload: after the memory is moved, switched or restored the window
 * reloads (every screen then reads the new store) and Settings says what happened.
 */
const KEY = 'nemori.flash';

export function reloadWithNotice(text: string, storage: Storage = sessionStorage): void {
  storage.setItem(KEY, text);
  window.location.reload();
}

export function takeNotice(storage: Storage = sessionStorage): string | null {
  const text = storage.getItem(KEY);
  storage.removeItem(KEY);
  return text;
}
