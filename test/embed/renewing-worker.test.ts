/**
 * A model's thread that embedded many texts in batches is replaced by a fresh one once idle (the old
 * one's memory goes with it): real threads with the test model, counted as they start and end.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { resolveModelSource } from '../../core/embed/model-source.js';
import { startModelWorker, type ModelWorker } from '../../core/embed/model-worker.js';
import { startRenewingWorker, type RenewPolicy } from '../../core/embed/renewing-worker.js';
import { tinyModelOptions } from '../fixtures/tiny-model/index.js';

const source = await resolveModelSource(tinyModelOptions());
const policy: RenewPolicy = { afterTexts: 10, idleMs: 100 };
const texts = (n: number, tag: string, words = 6) =>
  Array.from({ length: n }, (_, i) => `${tag} text ${i} ${'about hiking and coffee '.repeat(words / 4)}`);

/** Threads of the test model, each recorded as it starts and when it is ended; `gate` holds back a start. */
function threads() {
  const started: ModelWorker[] = [];
  const ended: ModelWorker[] = [];
  let gate: Promise<void> | null = null;
  let failNext = false;
  const launch = async (onCrash: () => void) => {
    await gate;
    if (failNext) throw new Error('the model could not be loaded again');
    const w = await startModelWorker(source, { onCrash });
    started.push(w);
    return {
      get dimensions() {
        return w.dimensions;
      },
      embed: (t: readonly string[], batchSize: number) => w.embed(t, batchSize),
      terminate: async () => {
        ended.push(w);
        await w.terminate();
      },
    };
  };
  return {
    started,
    ended,
    launch,
    hold: () => {
      let open!: () => void;
      gate = new Promise((resolve) => (open = resolve));
      return () => {
        gate = null;
        open();
      };
    },
    failNextLaunch: () => (failNext = true),
  };
}

let open: ModelWorker[] = [];
afterEach(async () => {
  await Promise.all(open.map((w) => w.terminate()));
  open = [];
});

async function renewing(t: ReturnType<typeof threads>) {
  const w = await startRenewingWorker(t.launch, { onCrash: () => undefined, policy });
  open.push(w);
  return w;
}

const idle = () => new Promise((resolve) => setTimeout(resolve, policy.idleMs * 4));

describe('a model thread renewed after batch work', () => {
  it('is replaced once idle after embedding texts in batches: same vectors, and the old thread ends', async () => {
    const t = threads();
    const w = await renewing(t);
    const before = await w.embed(['the same query'], 32);
    await w.embed(texts(12, 'passage'), 4);
    await vi.waitFor(() => expect(t.ended).toHaveLength(1), { timeout: 10_000 });
    expect(t.started).toHaveLength(2);
    expect(t.ended[0]).toBe(t.started[0]);
    expect(Array.from((await w.embed(['the same query'], 32))[0]!)).toEqual(Array.from(before[0]!));
  });

  it('is kept while it only embeds one text at a time, or fewer in batches than the policy says', async () => {
    const t = threads();
    const w = await renewing(t);
    for (let i = 0; i < 15; i++) await w.embed([`query ${i}`], 32);
    await w.embed(texts(9, 'few'), 32);
    await idle();
    expect(t.started).toHaveLength(1);
    expect(t.ended).toHaveLength(0);
  });

  it('answers from the old thread while the new one loads, and ends the old one only after its last answer', async () => {
    const t = threads();
    const w = await renewing(t);
    await w.embed(texts(12, 'passage'), 32);
    const release = t.hold();
    // The renewal has begun once the idle time passed: its thread is held back from starting.
    await idle();
    expect(t.started).toHaveLength(1);
    const meanwhile = w.embed(['asked while the new thread loads'], 32);
    expect(await meanwhile).toHaveLength(1);
    // One model run of seconds, still under way when the new thread is ready.
    let answered = false;
    const long = w.embed(texts(2000, 'long', 120), 4096).then((v) => ((answered = true), v));
    release();
    await vi.waitFor(() => expect(t.started).toHaveLength(2), { timeout: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The new thread is in use and the old one still embedding: ending it now would fail this request.
    expect(answered).toBe(false);
    expect(t.ended).toHaveLength(0);
    expect(await long).toHaveLength(2000);
    await vi.waitFor(() => expect(t.ended).toEqual([t.started[0]]), { timeout: 10_000 });
    expect(await w.embed(['after'], 32)).toHaveLength(1);
  });

  it('keeps the old thread, and renews no more, when the new one fails to load', async () => {
    const t = threads();
    const w = await renewing(t);
    await w.embed(texts(12, 'passage'), 32);
    t.failNextLaunch();
    await idle();
    expect(await w.embed(['still answered'], 32)).toHaveLength(1);
    await w.embed(texts(12, 'more'), 32);
    await idle();
    expect(t.started).toHaveLength(1);
    expect(t.ended).toHaveLength(0);
  });

  it('ends every thread it holds when terminated, a renewal under way included', async () => {
    const t = threads();
    const w = await renewing(t);
    await w.embed(texts(12, 'passage'), 32);
    const release = t.hold();
    await idle();
    const done = w.terminate();
    release();
    await done;
    open = [];
    expect(t.started).toHaveLength(2);
    expect(new Set(t.ended)).toEqual(new Set(t.started));
  });
});
