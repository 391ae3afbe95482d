/**
 * The month heat-map: how many episodes each local day of the shown month holds. Counted from
 * `listEpisodes` over the month (the contract has no per-day count yet), at most MAX_COUNTED per
 * month: beyond that the busiest days simply show as full.
 */
import { create } from 'zustand';
import { call } from '../api/client';
import { dayKey, dayKeyOf, instantRangeForLocalDays } from '../lib/dates';

const MAX_COUNTED = 3000;

interface CalendarState {
  year: number;
  month: number;
  counts: Record<string, number>;
  truncated: boolean;
  loading: boolean;
  /** The month shown first: that of the newest episode, once known. */
  initialised: boolean;
  show(year: number, month: number): Promise<void>;
  initialise(): Promise<void>;
}

export const useCalendarStore = create<CalendarState>()((set, get) => ({
  year: new Date().getFullYear(),
  month: new Date().getMonth(),
  counts: {},
  truncated: false,
  loading: false,
  initialised: false,

  async show(year, month) {
    set({ year, month, loading: true, counts: {}, truncated: false });
    const first = dayKeyOf(year, month, 1);
    const next = dayKeyOf(year, month + 1, 1);
    const { since, until } = instantRangeForLocalDays(first, next);
    const counts: Record<string, number> = {};
    let cursor: string | undefined;
    let counted = 0;
    try {
      do {
        const page = await call('listEpisodes', { since, until, limit: 1000, ...(cursor ? { cursor } : {}) });
        for (const e of page.episodes) {
          const key = dayKey(e.start, e.utcOffsetMin);
          if (key >= first && key < next) counts[key] = (counts[key] ?? 0) + 1;
        }
        counted += page.episodes.length;
        cursor = page.nextCursor ?? undefined;
        if (get().year !== year || get().month !== month) return; // the person moved on
      } while (cursor && counted < MAX_COUNTED);
      set({ counts, truncated: Boolean(cursor), loading: false });
    } catch {
      set({ loading: false });
    }
  },

  async initialise() {
    if (get().initialised) return;
    set({ initialised: true });
    try {
      const newest = (await call('listEpisodes', { limit: 1 })).episodes[0];
      if (newest) {
        const key = dayKey(newest.start, newest.utcOffsetMin);
        const [y, m] = key.split('-').map(Number);
        await get().show(y!, m! - 1);
        return;
      }
    } catch {
      /* the journal shows the error; the calendar just stays on this month */
    }
    await get().show(get().year, get().month);
  },
}));
