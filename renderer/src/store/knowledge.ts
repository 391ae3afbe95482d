/**
 * The knowledge list: facts most recently changed first, fetched with `listKnowledge` cursors as the
 * person scrolls, filtered by one entity type or none, with the count of facts of each type.
 */
import { create } from 'zustand';
import { call } from '../api/client';
import type { FactView } from '../api/types';
import { errorInfo, type ErrorInfo } from '../lib/errors';

export const KNOWLEDGE_PAGE_SIZE = 50;

interface KnowledgeState {
  /** null: every type. */
  entityType: string | null;
  facts: FactView[];
  entityTypes: { entityType: string; count: number }[];
  cursor: string | null;
  done: boolean;
  loading: boolean;
  error: ErrorInfo | null;
  /** Bumped by every reset, so a page requested before it is dropped when it arrives. */
  generation: number;
  loadMore(): Promise<void>;
  setEntityType(type: string | null): void;
  reload(): void;
  /** A fact changed (corrected): shown with its new value where it is. */
  patchFact(fact: FactView): void;
  /** A fact left the list (forgotten). */
  removeFact(id: string): void;
}

const fresh = { facts: [] as FactView[], cursor: null, done: false, loading: false, error: null };

export const useKnowledgeStore = create<KnowledgeState>()((set, get) => ({
  ...fresh,
  entityType: null,
  entityTypes: [],
  generation: 0,

  async loadMore() {
    const { loading, done, cursor, entityType, generation } = get();
    if (loading || done) return;
    set({ loading: true, error: null });
    try {
      const page = await call('listKnowledge', {
        limit: KNOWLEDGE_PAGE_SIZE,
        ...(entityType ? { entityType } : {}),
        ...(cursor ? { cursor } : {}),
      });
      if (get().generation !== generation) return;
      set((s) => {
        // Never the same fact twice (pages are cut at a time and id, but the list must stay keyed uniquely).
        const shown = new Set(s.facts.map((f) => f.id));
        return {
          facts: [...s.facts, ...page.facts.filter((f) => !shown.has(f.id))],
          entityTypes: page.entityTypes,
          cursor: page.nextCursor,
          done: page.nextCursor === null,
          loading: false,
        };
      });
    } catch (e) {
      if (get().generation === generation) set({ loading: false, error: errorInfo(e) });
    }
  },

  setEntityType(entityType) {
    if (entityType === get().entityType) return;
    set((s) => ({ ...fresh, entityType, generation: s.generation + 1 }));
    void get().loadMore();
  },

  reload() {
    set((s) => ({ ...fresh, generation: s.generation + 1 }));
    void get().loadMore();
  },

  patchFact(fact) {
    set((s) => ({ facts: s.facts.map((f) => (f.id === fact.id ? fact : f)) }));
  },

  removeFact(id) {
    const gone = get().facts.find((f) => f.id === id);
    set((s) => ({
      facts: s.facts.filter((f) => f.id !== id),
      entityTypes: gone
        ? s.entityTypes.map((x) => (x.entityType === gone.entityType ? { ...x, count: x.count - 1 } : x)).filter((x) => x.count > 0)
        : s.entityTypes,
    }));
  },
}));
