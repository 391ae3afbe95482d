/**
 * The model's state as a window sees it, from the embedder's per-file events: a download is a few
 * updates a second however many chunks arrive (the latest always delivered), reading a model from
 * disk is "loading", never "downloading".
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createModelStatusReporter, type ModelStatus } from '../../core/api/model-status.js';

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

describe('the model status reporter', () => {
  it('turns a download of 1,000 chunks over 2 s into about ten updates a second, ending on the last bytes', () => {
    const seen: ModelStatus[] = [];
    const r = createModelStatusReporter((s) => seen.push(s));
    r.progress({ status: 'start', source: 'remote', modelId: 'm' });
    expect(seen).toEqual([{ state: 'downloading', modelId: 'm', loaded: 0, total: 0 }]);

    r.progress({ status: 'download', file: 'onnx/model.onnx' });
    for (let i = 1; i <= 1000; i++) {
      vi.advanceTimersByTime(2);
      r.progress({ status: 'progress', file: 'onnx/model.onnx', loaded: i * 100, total: 100_000, progress: i / 10 });
      r.progress({ status: 'total', loaded: i * 100, total: 100_000, progress: i / 10 });
    }
    vi.advanceTimersByTime(100); // the trailing update
    const downloads = seen.filter((s) => s.state === 'downloading');
    expect(downloads.length).toBeGreaterThanOrEqual(15);
    expect(downloads.length).toBeLessThanOrEqual(22);
    const loaded = downloads.map((s) => (s.state === 'downloading' ? s.loaded : -1));
    expect(loaded).toEqual([...loaded].sort((a, b) => a - b));
    expect(seen.at(-1)).toEqual({ state: 'downloading', modelId: 'm', loaded: 100_000, total: 100_000, file: 'onnx/model.onnx' });

    r.progress({ status: 'done', file: 'onnx/model.onnx' });
    r.progress({ status: 'ready' });
    r.ready('m');
    expect(seen.slice(-2)).toEqual([
      { state: 'loading', modelId: 'm' },
      { state: 'ready', modelId: 'm' },
    ]);
  });

  it('drops a throttled update that a change of state overtakes', () => {
    const seen: ModelStatus[] = [];
    const r = createModelStatusReporter((s) => seen.push(s));
    r.progress({ status: 'start', source: 'remote', modelId: 'm' });
    r.progress({ status: 'total', loaded: 10, total: 20, progress: 50 });
    r.unavailable('m', 'could not download embedding model m: connection reset');
    vi.advanceTimersByTime(1000);
    expect(seen.map((s) => s.state)).toEqual(['downloading', 'unavailable']);
  });

  it('reports a model read from disk as loading, then ready', () => {
    const seen: ModelStatus[] = [];
    const r = createModelStatusReporter((s) => seen.push(s));
    r.progress({ status: 'start', source: 'cache', modelId: 'm' });
    r.progress({ status: 'download', file: 'onnx/model.onnx' });
    r.progress({ status: 'total', loaded: 5, total: 5, progress: 100 });
    r.progress({ status: 'done', file: 'onnx/model.onnx' });
    r.progress({ status: 'ready' });
    r.ready('m');
    vi.advanceTimersByTime(1000);
    expect(seen).toEqual([
      { state: 'loading', modelId: 'm' },
      { state: 'ready', modelId: 'm' },
    ]);
  });
});
