import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../core/api/wire';
import { createBroadcaster, type EventTarget } from '../../electron/main/broadcast';

function target(destroyed = false): EventTarget & { got: EngineEvent[] } {
  const got: EngineEvent[] = [];
  return { got, isDestroyed: () => destroyed, send: (e) => got.push(e) };
}

const downloading: EngineEvent = { type: 'model', state: 'downloading', modelId: 'm', loaded: 10, total: 100 };
const ready: EngineEvent = { type: 'model', state: 'ready', modelId: 'm' };
const call: EngineEvent = { type: 'call', callId: 'c', operation: 'search', state: 'started' };

describe('engine events to windows', () => {
  it('go to every live window, and a window loaded later gets the model state at once', () => {
    const a = target();
    const gone = target(true);
    const b = events([a, gone]);
    b.send(downloading);
    b.send(call);
    expect(a.got).toEqual([downloading, call]);
    expect(gone.got).toEqual([]);

    const late = target();
    b.replayTo(late);
    expect(late.got).toEqual([downloading]); // the model's latest state only, not old calls
    b.send(ready);
    const later = target();
    b.replayTo(later);
    expect(later.got).toEqual([ready]);
  });

  it('replay nothing before the model said anything', () => {
    const t = target();
    events([]).replayTo(t);
    expect(t.got).toEqual([]);
  });
});

function events(windows: EventTarget[]) {
  return createBroadcaster(() => windows);
}
