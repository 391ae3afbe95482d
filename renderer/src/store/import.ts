/**
 * One import at a time: the files chosen (browser File objects, or paths from the desktop's file
 * dialog), a preview (a dry run: format, counts, participants, dates, and who "me" is), then the
 * import itself with the engine's progress for our call, and the report.
 */
import { create } from 'zustand';
import { call, connectionKind, followNextCall, importBatch, uploadFiles, type CallProgress, type ImportOptions } from '../api/client';
import type { OpOutput } from '../api/types';
import { baseName } from '../lib/format';

export type ImportOutput = OpOutput<'importFiles'>;
export type Choice = { kind: 'file'; file: File; name: string; size: number } | { kind: 'path'; path: string; name: string; size: null };

/** The engine's progress for our call: phase 'import' (messages of each file), then 'discovery' (episodes read for facts). */
export type ImportProgress = CallProgress;

export type ImportPhase = 'idle' | 'uploading' | 'checking' | 'preview' | 'importing' | 'done' | 'failed';

interface ImportState {
  chosen: Choice[];
  phase: ImportPhase;
  upload: { done: number; total: number } | null;
  /** The browser's uploaded batch, kept by the bridge from the preview to the import. */
  batch: string | null;
  preview: ImportOutput | null;
  /** Which participant is the person; '' = none of them. */
  me: string;
  progress: ImportProgress | null;
  result: ImportOutput | null;
  error: string | null;
  add(choices: Choice[]): void;
  remove(index: number): void;
  check(): Promise<void>;
  setMe(me: string): void;
  start(): Promise<void>;
  reset(): void;
}

export function fileChoice(file: File): Choice {
  return { kind: 'file', file, name: file.name, size: file.size };
}
export function pathChoice(path: string): Choice {
  return { kind: 'path', path, name: baseName(path), size: null };
}

const idle = { phase: 'idle' as ImportPhase, upload: null, batch: null, preview: null, me: '', progress: null, result: null, error: null };

/** Runs importFiles for the chosen files, whichever way they reach the engine. */
async function runImport(s: ImportState, options: ImportOptions, set: (p: Partial<ImportState>) => void, afterUpload: ImportPhase): Promise<ImportOutput> {
  if (connectionKind() === 'desktop') {
    const paths = s.chosen.flatMap((c) => (c.kind === 'path' ? [c.path] : []));
    return call('importFiles', { ...options, paths });
  }
  let batch = s.batch;
  if (!batch) {
    const files = s.chosen.flatMap((c) => (c.kind === 'file' ? [c.file] : []));
    set({ phase: 'uploading', upload: { done: 0, total: files.length } });
    batch = await uploadFiles(files, (done, total) => set({ upload: { done, total } }));
    set({ batch, phase: afterUpload });
  }
  return importBatch(batch, options);
}

export const useImportStore = create<ImportState>()((set, get) => ({
  chosen: [],
  ...idle,

  add(choices) {
    set((s) => {
      const seen = new Set(s.chosen.map((c) => (c.kind === 'path' ? c.path : `${c.name}:${c.size}`)));
      const fresh = choices.filter((c) => !seen.has(c.kind === 'path' ? c.path : `${c.name}:${c.size}`));
      // A different selection needs a new preview (and, in the browser, a new upload).
      return { chosen: [...(s.phase === 'done' ? [] : s.chosen), ...fresh], ...idle };
    });
  },

  remove(index) {
    set((s) => ({ chosen: s.chosen.filter((_, i) => i !== index), ...idle }));
  },

  async check() {
    const s = get();
    if (!s.chosen.length || !['idle', 'failed', 'preview'].includes(s.phase)) return;
    set({ phase: 'checking', error: null });
    try {
      const preview = await runImport(get(), { dryRun: true }, set, 'checking');
      set({ phase: 'preview', preview, me: preview.files.find((f) => f.me)?.me ?? '' });
    } catch (e) {
      set({ phase: 'failed', error: (e as Error).message, batch: null });
    }
  },

  setMe: (me) => set({ me }),

  async start() {
    const s = get();
    if (!s.chosen.length || !['idle', 'preview', 'failed'].includes(s.phase)) return;
    // Our call is the first importFiles that starts after we ask (once uploaded); its progress is ours.
    const stop = followNextCall('importFiles', (progress) => set({ progress }), () => get().phase === 'importing');
    try {
      set({ phase: 'importing', progress: null, error: null });
      const result = await runImport(get(), { ...(s.me ? { me: s.me } : {}) }, set, 'importing');
      set({ phase: 'done', result, chosen: [], batch: null, progress: { phase: 'import', done: result.messages, total: result.messages, detail: undefined } });
    } catch (e) {
      set({ phase: 'failed', error: (e as Error).message, batch: null });
    } finally {
      stop();
    }
  },

  reset() {
    set({ chosen: [], ...idle });
  },
}));
