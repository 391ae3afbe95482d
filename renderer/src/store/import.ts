/**
 * One import at a time: the files chosen (browser File objects, or paths from the desktop's file
 * dialog), a preview (a dry run: format, counts, participants, dates, and who "me" is), then the
 * import itself with the engine's progress for our call (which the person can cancel), and the report.
 */
import { create } from 'zustand';
import { call, connectionKind, followNextCall, importBatch, uploadFiles, type ImportOptions } from '../api/client';
import type { OpOutput } from '../api/types';
import { errorInfo, type ErrorInfo } from '../lib/errors';
import { baseName } from '../lib/format';
import { withStage, type Stages } from './stages';

export type ImportOutput = OpOutput<'importFiles'>;
export type Choice = { kind: 'file'; file: File; name: string; size: number } | { kind: 'path'; path: string; name: string; size: null };

/** Day or month first in numeric dates (WhatsApp), when the file does not settle it. */
export type DateOrder = NonNullable<ImportOptions['dateOrder']>;

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
  /** The day/month order the person chose for dates the files do not settle; null: the engine's guess. */
  dateOrder: DateOrder | null;
  /**
   * The engine's progress for our call, by stage (ImportStage): messages stored, messages gathered
   * into episodes, episodes embedded, then knowledge discovery (episodes read for facts).
   */
  stages: Stages;
  /** The engine's id for our running import (from its events): what `cancelCall` takes. */
  callId: string | null;
  /** Cancel was asked for: the import stops after the conversation it is on. */
  cancelling: boolean;
  result: ImportOutput | null;
  error: ErrorInfo | null;
  add(choices: Choice[]): void;
  remove(index: number): void;
  check(): Promise<void>;
  setMe(me: string): void;
  /** Reads the chosen files again with numeric dates in this order (a new preview). */
  setDateOrder(order: DateOrder): Promise<void>;
  /** Imports the chosen files; after a cancelled import, imports them again (only the rest is added). */
  start(): Promise<void>;
  cancel(): Promise<void>;
  reset(): void;
}

export function fileChoice(file: File): Choice {
  return { kind: 'file', file, name: file.name, size: file.size };
}
export function pathChoice(path: string): Choice {
  return { kind: 'path', path, name: baseName(path), size: null };
}

const idle = {
  phase: 'idle' as ImportPhase,
  upload: null,
  batch: null,
  preview: null,
  me: '',
  dateOrder: null,
  stages: {},
  callId: null,
  cancelling: false,
  result: null,
  error: null,
};

/** Whether `start` may run now: files chosen, nothing running, and no finished import — unless it was cancelled (then it continues). */
function canStart(s: ImportState): boolean {
  if (!s.chosen.length) return false;
  return ['idle', 'preview', 'failed'].includes(s.phase) || (s.phase === 'done' && s.result?.cancelled === true);
}

/**
 * Where the bars stay when the import ends: full, or (cancelled) where the engine last said they were.
 * Full from the result too, as the last events can reach a browser after it (another connection).
 */
function finalStages(result: ImportOutput, last: Stages): Stages {
  const stages = last.import ? last : withStage(last, { phase: 'import', done: 0, total: result.messages, facts: undefined });
  if (result.cancelled) return stages;
  return Object.fromEntries(Object.entries(stages).map(([phase, p]) => [phase, { ...p, done: p.total }]));
}

/** Runs importFiles for the chosen files, whichever way they reach the engine. */
async function runImport(
  s: ImportState,
  options: ImportOptions,
  set: (p: Partial<ImportState>) => void,
  afterUpload: ImportPhase,
): Promise<ImportOutput> {
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

export const useImportStore = create<ImportState>()((set, get) => {
  /** Asks the engine to stop our import; if it cannot be asked, Cancel can be pressed again. */
  async function sendCancel(callId: string): Promise<void> {
    try {
      await call('cancelCall', { callId });
    } catch {
      if (get().callId === callId) set({ cancelling: false });
    }
  }

  return {
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
        const order = get().dateOrder;
        const preview = await runImport(get(), { dryRun: true, ...(order ? { dateOrder: order } : {}) }, set, 'checking');
        set({ phase: 'preview', preview, me: preview.files.find((f) => f.me)?.me ?? '' });
      } catch (e) {
        set({ phase: 'failed', error: errorInfo(e), batch: null });
      }
    },

    setMe: (me) => set({ me }),

    async setDateOrder(order) {
      set({ dateOrder: order });
      await get().check();
    },

    async start() {
      const s = get();
      if (!canStart(s)) return;
      // Our call is the first importFiles that starts after we ask (once uploaded); its id and progress are ours.
      const stop = followNextCall(
        'importFiles',
        {
          onStart(callId) {
            set({ callId });
            // Cancel was pressed before the engine had named the call.
            if (get().cancelling) void sendCancel(callId);
          },
          onProgress: (p) => set({ stages: withStage(get().stages, p) }),
        },
        () => get().phase === 'importing',
      );
      try {
        set({ phase: 'importing', stages: {}, callId: null, cancelling: false, result: null, error: null });
        const options = { ...(s.me ? { me: s.me } : {}), ...(s.dateOrder ? { dateOrder: s.dateOrder } : {}) };
        const result = await runImport(get(), options, set, 'importing');
        // A cancelled import keeps its files chosen: importing them again adds only the rest.
        set({
          phase: 'done',
          result,
          chosen: result.cancelled ? get().chosen : [],
          batch: null,
          stages: finalStages(result, get().stages),
        });
      } catch (e) {
        set({ phase: 'failed', error: errorInfo(e), batch: null });
      } finally {
        stop();
        set({ callId: null, cancelling: false });
      }
    },

    async cancel() {
      const s = get();
      if (s.phase !== 'importing' || s.cancelling) return;
      set({ cancelling: true });
      if (s.callId) await sendCancel(s.callId);
    },

    reset() {
      set({ chosen: [], ...idle });
    },
  };
});
