import { describe, expect, it } from 'vitest';
import { createDispatcher } from '../../core/api/dispatch.js';
import type { EngineEvent } from '../../core/api/wire.js';
import { manyConversationsFile, newOwner, openMemoryEngine } from '../helpers/engine.js';

describe('cancelling a call', () => {
  it('stops an import after the conversation it is on; what was stored stays whole, and importing again adds the rest', async () => {
    const engine = await openMemoryEngine();
    try {
      const ownerId = newOwner();
      const file = manyConversationsFile(40);
      // Through the dispatcher, as the app and the browser bridge call: the window sees the call id in the events.
      const events: EngineEvent[] = [];
      let cancelled: Promise<unknown> | null = null;
      const dispatcher = createDispatcher({
        call: (name, input, options) => engine.call(name, input as never, options),
        emit: (e) => {
          events.push(e);
          if (e.type === 'progress' && e.phase === 'import' && e.done >= 50 && !cancelled)
            cancelled = dispatcher.dispatch('cancelCall', { callId: e.callId });
        },
      });
      const first = await dispatcher.dispatch('importFiles', { ownerId, paths: [file] });
      expect(await cancelled).toEqual({ ok: true, value: { cancelled: true } });
      if (!first.ok) throw new Error(first.error.message);
      const out = first.value as { cancelled: boolean; files: { messagesAdded: number }[] };
      expect(out.cancelled).toBe(true);
      const added = out.files[0]!.messagesAdded;
      expect(added).toBeGreaterThanOrEqual(50);
      expect(added).toBeLessThan(200);
      expect(added % 5).toBe(0); // whole conversations only
      expect((await engine.call('stats', { ownerId })).owners[0]!.messages).toBe(added);

      const second = await engine.call('importFiles', { ownerId, paths: [file] });
      expect(second).toMatchObject({ cancelled: false, files: [{ messagesAdded: 200 - added }] });
      expect((await engine.call('stats', { ownerId })).owners[0]!.messages).toBe(200);
      // Nothing is running under that id any more.
      const callId = events.find((e) => e.type === 'call')!.callId;
      expect(await engine.call('cancelCall', { callId })).toEqual({ cancelled: false });
    } finally {
      await engine.close();
    }
  });
});
