/**
 * The embedding model's state while an engine opens, as a window shows it: downloading (bytes so far
 * of the whole model), loading, ready or unavailable. Made from the embedder's per-file events
 * (ModelProgress) and throttled, so a 100+ MB download sends a few updates a second across IPC or
 * SSE, not one per network chunk. Plain data: it crosses process boundaries as it is.
 */
import type { ModelProgress } from '../embed/index.js';

export type ModelStatus =
  /** `total` 0: not known yet. `file`: the one being fetched right now. */
  | { state: 'downloading'; modelId: string; loaded: number; total: number; file?: string }
  | { state: 'loading'; modelId: string }
  | { state: 'ready'; modelId: string }
  /** Search then matches words only; `reason` says what to do. */
  | { state: 'unavailable'; modelId: string; reason: string };

/** At most one download update per this many ms (the latest one is always delivered). */
export const MODEL_STATUS_INTERVAL_MS = 100;

export interface ModelStatusReporter {
  /** Feed the embedder's events here (OpenEmbedderOptions.onProgress). */
  progress(p: ModelProgress): void;
  ready(modelId: string): void;
  unavailable(modelId: string, reason: string): void;
}

export function createModelStatusReporter(emit: (s: ModelStatus) => void, intervalMs = MODEL_STATUS_INTERVAL_MS): ModelStatusReporter {
  const now = () => Date.now();
  let modelId = '';
  let downloading = false;
  let state: ModelStatus['state'] | null = null;
  let file: string | undefined;
  let bytes = { loaded: 0, total: 0 };
  let lastSent = -Infinity;
  let pending: ModelStatus | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;

  function send(s: ModelStatus): void {
    clearTimeout(timer);
    timer = undefined;
    pending = null;
    state = s.state;
    lastSent = now();
    emit(s);
  }

  /** Download updates: the first at once, then at most one per interval, the latest winning. */
  function update(s: ModelStatus): void {
    const wait = lastSent + intervalMs - now();
    if (state !== 'downloading' || wait <= 0) {
      send(s);
      return;
    }
    pending = s;
    if (timer === undefined) {
      timer = setTimeout(() => {
        timer = undefined;
        if (pending) send(pending);
      }, wait);
      timer.unref?.();
    }
  }

  function loading(): void {
    if (state !== 'loading') send({ state: 'loading', modelId });
  }

  return {
    progress(p) {
      switch (p.status) {
        case 'start':
          modelId = p.modelId;
          downloading = p.source === 'remote';
          if (downloading) send({ state: 'downloading', modelId, loaded: 0, total: 0 });
          else loading();
          break;
        case 'download':
        case 'progress':
          if (downloading) file = p.file;
          break;
        case 'total':
          bytes = { loaded: p.loaded, total: p.total };
          if (downloading)
            update({ state: 'downloading', modelId, loaded: p.loaded, total: p.total, ...(file !== undefined ? { file } : {}) });
          break;
        case 'done':
          // Every byte is here; what follows (ONNX session, checksums) is loading.
          if (downloading && bytes.total > 0 && bytes.loaded >= bytes.total) loading();
          break;
        case 'ready':
          loading();
          break;
        case 'initiate':
          break;
      }
    },
    ready(id) {
      send({ state: 'ready', modelId: id });
    },
    unavailable(id, reason) {
      send({ state: 'unavailable', modelId: id, reason });
    },
  };
}
