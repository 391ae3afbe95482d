/**
 * One import at a time: the files chosen (browser File objects, or paths from the desktop's file
 * dialog), the handing-over (browser uploads), the engine's progress for our call, and the report.
 */
import { create } from 'zustand';
import { call, connectionKind, importUploads, onEvent } from '../api/client';
import type { ImportReport } from '../api/types';

export type Choice = { kind: 'file'; file: File; name: string; size: number } | { kind: 'path'; path: string; name: string; size: null };

export interface ImportProgress {
  done: number;
  total: number;
  detail: string;
}

interface ImportState {
  chosen: Choice[];
  phase: 'idle' | 'uploading' | 'importing' | 'done' | 'failed';
  upload: { done: number; total: number } | null;
  progress: ImportProgress | null;
  report: ImportReport[] | null;
  error: string | null;
  add(choices: Choice[]): void;
  remove(index: number): void;
  start(): Promise<void>;
  reset(): void;
}

export function fileChoice(file: File): Choice {
  return { kind: 'file', file, name: file.name, size: file.size };
}
export function pathChoice(path: string): Choice {
  return { kind: 'path', path, name: path.split(/[\\/]/).pop() ?? path, size: null };
}

export const useImportStore = create<ImportState>()((set, get) => ({
  chosen: [],
  phase: 'idle',
  upload: null,
  progress: null,
  report: null,
  error: null,

  add(choices) {
    set((s) => {
      const seen = new Set(s.chosen.map((c) => (c.kind === 'path' ? c.path : `${c.name}:${c.size}`)));
      const fresh = choices.filter((c) => !seen.has(c.kind === 'path' ? c.path : `${c.name}:${c.size}`));
      return { chosen: [...s.chosen, ...fresh], phase: s.phase === 'done' || s.phase === 'failed' ? 'idle' : s.phase, report: null, error: null };
    });
  },

  remove(index) {
    set((s) => ({ chosen: s.chosen.filter((_, i) => i !== index) }));
  },

  async start() {
    const { chosen, phase } = get();
    if (!chosen.length || phase === 'uploading' || phase === 'importing') return;
    // Our call is the first importFiles that starts after we ask; its progress is ours.
    let callId: string | null = null;
    const stop = onEvent((e) => {
      if (e.operation !== 'importFiles') return;
      if (e.type === 'call' && e.state === 'started' && callId === null && get().phase === 'importing') callId = e.callId;
      if (e.type === 'progress' && e.callId === callId && get().phase === 'importing') {
        set({ progress: { done: e.done, total: e.total, detail: e.detail ?? e.phase } });
      }
    });
    try {
      let files: ImportReport[];
      if (connectionKind() === 'desktop') {
        set({ phase: 'importing', progress: null, report: null, error: null });
        const paths = chosen.flatMap((c) => (c.kind === 'path' ? [c.path] : []));
        files = (await call('importFiles', { paths })).files;
      } else {
        const uploads = chosen.flatMap((c) => (c.kind === 'file' ? [c.file] : []));
        set({ phase: 'uploading', upload: { done: 0, total: uploads.length }, progress: null, report: null, error: null });
        files = (
          await importUploads(uploads, (done, total) => {
            set({ upload: { done, total } });
            if (done === total) set({ phase: 'importing' });
          })
        ).files;
      }
      const total = files.reduce((n, f) => n + f.messages, 0);
      set({ phase: 'done', report: files, chosen: [], progress: { done: total, total, detail: '' } });
    } catch (e) {
      set({ phase: 'failed', error: (e as Error).message });
    } finally {
      stop();
    }
  },

  reset() {
    set({ chosen: [], phase: 'idle', upload: null, progress: null, report: null, error: null });
  },
}));
