/**
 * The journal's pages: episodes newest first, fetched with `listEpisodes` cursors as the person
 * scrolls, grouped under the local day they happened on. Only what a list row shows is kept per
 * episode (not the full narrative), so 100k loaded entries stay light.
 */
import { create } from 'zustand';
import { call } from '../api/client';
import { instantRangeForLocalDays, nextDayKey } from '../lib/dates';
import { errorInfo, type ErrorInfo } from '../lib/errors';
import { appendRows, entriesOf, mergeHead, toEntry, type Entry, type Row } from './journal-rows';

export const PAGE_SIZE = 100;
/** How many of the newest episodes are read again to follow live conversations. */
export const HEAD_SIZE = 30;

export type { Entry, Row } from './journal-rows';

interface JournalState {
  rows: Row[];
  cursor: string | null;
  done: boolean;
  loading: boolean;
  error: ErrorInfo | null;
  /** Set after a jump from the calendar: the list starts at this local day instead of today. */
  anchorDay: string | null;
  /** Bumped by every reset, so a page requested before it is dropped when it arrives. */
  generation: number;
  /** Kept across visits to an episode, so coming back lands where the person was. */
  scrollTop: number;
  activeIndex: number;
  loadMore(): Promise<void>;
  /** Reads the newest episodes again (live conversations grow and close into episodes); the rest stays as loaded. */
  refreshHead(): Promise<void>;
  jumpTo(day: string | null): void;
  reload(): void;
  patchEntry(id: string, patch: Partial<Pick<Entry, 'title' | 'summary' | 'importance'>>): void;
  removeEntry(id: string): void;
  setPosition(p: { scrollTop?: number; activeIndex?: number }): void;
}

const fresh = { rows: [] as Row[], cursor: null, done: false, loading: false, error: null, scrollTop: 0, activeIndex: 0 };

export const useJournalStore = create<JournalState>()((set, get) => ({
  ...fresh,
  anchorDay: null,
  generation: 0,

  async loadMore() {
    const { loading, done, cursor, anchorDay, generation } = get();
    if (loading || done) return;
    set({ loading: true, error: null });
    try {
      const until = anchorDay ? instantRangeForLocalDays(anchorDay, nextDayKey(anchorDay)).until : undefined;
      const page = await call('listEpisodes', { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}), ...(until ? { until } : {}) });
      if (get().generation !== generation) return;
      let entries = page.episodes.map(toEntry);
      // The instant range is a little wider than the local day (time zones): drop what is later.
      if (anchorDay) entries = entries.filter((e) => e.day <= anchorDay);
      set((s) => ({ rows: appendRows(s.rows, entries), cursor: page.nextCursor, done: page.nextCursor === null, loading: false }));
    } catch (e) {
      if (get().generation === generation) set({ loading: false, error: errorInfo(e) });
    }
  },

  async refreshHead() {
    const { loading, anchorDay, generation, rows } = get();
    // Only the newest view follows them, and never over a page being read.
    if (loading || anchorDay || rows.length === 0) return;
    let page;
    try {
      page = await call('listEpisodes', { limit: HEAD_SIZE });
    } catch {
      return; // quietly: the next refresh tries again
    }
    const s = get();
    if (s.generation !== generation || s.loading || s.anchorDay) return;
    const merged = mergeHead(entriesOf(s.rows), page.episodes.map(toEntry), page.nextCursor !== null);
    if (!merged) return;
    const activeId = s.rows[s.activeIndex]?.kind === 'episode' ? (s.rows[s.activeIndex] as Row & { kind: 'episode' }).entry.id : null;
    const next = appendRows([], merged.entries);
    const active = activeId ? next.findIndex((r) => r.kind === 'episode' && r.entry.id === activeId) : -1;
    set({
      rows: next,
      activeIndex: active >= 0 ? active : Math.min(s.activeIndex, Math.max(0, next.length - 1)),
      // Nothing loaded beyond the head: where the next page starts is the head's own cursor.
      ...(merged.kept === 0 ? { cursor: page.nextCursor, done: page.nextCursor === null } : {}),
    });
  },

  jumpTo(day) {
    set((s) => ({ ...fresh, anchorDay: day, generation: s.generation + 1 }));
    void get().loadMore();
  },

  reload() {
    get().jumpTo(get().anchorDay);
  },

  patchEntry(id, patch) {
    set((s) => ({ rows: s.rows.map((r) => (r.kind === 'episode' && r.entry.id === id ? { ...r, entry: { ...r.entry, ...patch } } : r)) }));
  },

  removeEntry(id) {
    set((s) => {
      const entries = s.rows.flatMap((r) => (r.kind === 'episode' && r.entry.id !== id ? [r.entry] : []));
      return { rows: appendRows([], entries), activeIndex: Math.max(0, Math.min(s.activeIndex, entries.length * 2 - 1)) };
    });
  },

  setPosition(p) {
    set(p);
  },
}));
