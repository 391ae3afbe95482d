/**
 * The journal's pages: episodes newest first, fetched with `listEpisodes` cursors as the person
 * scrolls, grouped under the local day they happened on. Only what a list row shows is kept per
 * episode (not the full narrative), so 100k loaded entries stay light.
 */
import { create } from 'zustand';
import { call } from '../api/client';
import type { EpisodeView } from '../api/types';
import { dayKey, instantRangeForLocalDays, nextDayKey } from '../lib/dates';

export const PAGE_SIZE = 100;

export interface Entry {
  id: string;
  title: string;
  summary: string;
  start: string;
  end: string;
  utcOffsetMin: number;
  importance: number;
  messageCount: number;
  participants: string[];
  day: string;
}

export type Row = { kind: 'day'; key: string; day: string; count: number } | { kind: 'episode'; key: string; entry: Entry };

export function toEntry(e: EpisodeView): Entry {
  return {
    id: e.id,
    title: e.title,
    summary: e.summary.length > 400 ? `${e.summary.slice(0, 400)}…` : e.summary,
    start: e.start,
    end: e.end,
    utcOffsetMin: e.utcOffsetMin,
    importance: e.importance,
    messageCount: e.metadata.messageCount || e.messageIds.length,
    participants: e.metadata.participants.slice(0, 6),
    day: dayKey(e.start, e.utcOffsetMin),
  };
}

/** Appends entries to rows, opening a day heading whenever the local day changes. */
export function appendRows(rows: readonly Row[], entries: readonly Entry[]): Row[] {
  const out = rows.slice();
  let headerIndex = -1;
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i]!.kind === 'day') {
      headerIndex = i;
      break;
    }
  }
  for (const entry of entries) {
    const header = headerIndex >= 0 ? (out[headerIndex] as Row & { kind: 'day' }) : null;
    if (header && header.day === entry.day) {
      out[headerIndex] = { ...header, count: header.count + 1 };
    } else {
      headerIndex = out.length;
      out.push({ kind: 'day', key: `day-${entry.day}`, day: entry.day, count: 1 });
    }
    out.push({ kind: 'episode', key: entry.id, entry });
  }
  return out;
}

interface JournalState {
  rows: Row[];
  cursor: string | null;
  done: boolean;
  loading: boolean;
  error: string | null;
  /** Set after a jump from the calendar: the list starts at this local day instead of today. */
  anchorDay: string | null;
  /** Bumped by every reset, so a page requested before it is dropped when it arrives. */
  generation: number;
  /** Kept across visits to an episode, so coming back lands where the person was. */
  scrollTop: number;
  activeIndex: number;
  loadMore(): Promise<void>;
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
      if (get().generation === generation) set({ loading: false, error: (e as Error).message });
    }
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
