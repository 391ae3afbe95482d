/** The search box, its mode and filters, and the last results (kept while the person reads one). */
import { create } from 'zustand';
import { call, DEFAULT_OWNER } from '../api/client';
import type { SearchKind, SearchMode, SearchOutput, SourceCount } from '../api/types';
import { errorInfo, type ErrorInfo } from '../lib/errors';

export interface SearchFilters {
  since: string; // 'YYYY-MM-DD' or ''
  until: string;
  minImportance: number; // 0 = any
  /** Where the episodes' conversations came from (a source of `stats`); '' = all. */
  source: string;
}

interface SearchState {
  text: string;
  mode: SearchMode;
  /** Episodes, facts, or both ranked together. */
  kind: SearchKind;
  filters: SearchFilters;
  /** The sources the source filter offers: those of the stored conversations, most first. */
  sources: SourceCount[];
  output: SearchOutput | null;
  /** What `output` answers, so the same search is not run twice. */
  ranKey: string | null;
  loading: boolean;
  error: ErrorInfo | null;
  setText(text: string): void;
  setMode(mode: SearchMode): void;
  setKind(kind: SearchKind): void;
  setFilters(f: Partial<SearchFilters>): void;
  /** Reads the sources again (an import may have added one); on failure the filter keeps what it had. */
  loadSources(): Promise<void>;
  /** Runs the search; the same search again only with `force` (the person asked again: memories may have changed). */
  run(text?: string, o?: { force?: boolean }): Promise<void>;
}

const keyOf = (s: Pick<SearchState, 'text' | 'mode' | 'kind' | 'filters'>) => JSON.stringify([s.text.trim(), s.mode, s.kind, s.filters]);

/** `until` picks a day; the engine's bound is exclusive, so search up to the start of the next one. */
function untilExclusive(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

export const useSearchStore = create<SearchState>()((set, get) => ({
  text: '',
  mode: 'hybrid',
  kind: 'all',
  filters: { since: '', until: '', minImportance: 0, source: '' },
  sources: [],
  output: null,
  ranKey: null,
  loading: false,
  error: null,

  setText: (text) => set({ text }),
  setMode(mode) {
    set({ mode });
    if (get().output) void get().run();
  },
  setKind(kind) {
    set({ kind });
    if (get().output) void get().run();
  },
  setFilters(f) {
    set((s) => ({ filters: { ...s.filters, ...f } }));
    if (get().output) void get().run();
  },

  async loadSources() {
    try {
      const { sources } = await call('listSources', { ownerId: DEFAULT_OWNER });
      set({ sources });
    } catch {
      // Only the list of choices is missing; search itself still works.
    }
  },

  async run(text, o = {}) {
    if (text !== undefined) set({ text });
    const state = get();
    const query = state.text.trim();
    if (!query) return;
    const key = keyOf(state);
    if (!o.force && key === state.ranKey && state.output) return;
    set({ loading: true, error: null, ranKey: key });
    try {
      const { since, until, minImportance, source } = state.filters;
      // Dates and sources describe episodes: a fact search leaves them out (with them, "all" searches episodes only).
      const episodic = state.kind !== 'semantic';
      const output = await call('search', {
        query,
        mode: state.mode,
        kind: state.kind,
        limit: 30,
        ...(since && episodic ? { since } : {}),
        ...(until && episodic ? { until: untilExclusive(until) } : {}),
        ...(source && episodic ? { importSources: [source] } : {}),
        ...(minImportance > 0 ? { minImportance } : {}),
      });
      if (get().ranKey === key) set({ output, loading: false });
    } catch (e) {
      if (get().ranKey === key) set({ loading: false, error: errorInfo(e), ranKey: null });
    }
  },
}));
