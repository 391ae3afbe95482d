/**
 * The engine's side of the protocol: opens the engine once, answers calls by id (several may run
 * at once; the engine orders its own database work), forwards progress (and, while opening, the
 * embedding model's download), and closes the database when asked. Calls that arrive while the engine is still opening wait for it.
 */
import type { Engine } from '../../core/engine/open-engine';
import type { ModelStatus } from '../../core/api/model-status';
import type { EngineEvent } from '../../core/api/wire';
import { isExpectedError, toWireError } from '../../core/api/dispatch';
import type { HostMessage, HostRequest, MessageEnd } from './protocol';

export interface ServeOptions {
  /**
   * Opens the engine; `report` passes the embedding model's state to main while it downloads and loads,
   * `announce` the events of the calls the engine makes by itself.
   */
  open: (report: (status: ModelStatus) => void, announce: (event: EngineEvent) => void) => Promise<Pick<Engine, 'call' | 'close'>>;
  channel: MessageEnd<HostRequest, HostMessage>;
  /** Called once the database is closed (the utility process exits there). */
  onClosed?: () => void;
  /** How long closing waits for calls in flight before closing the database under them. */
  drainMs?: number;
  log?: (message: string, error: unknown) => void;
}

export function serveEngine(o: ServeOptions): { closed: Promise<void> } {
  const log = o.log ?? (() => {});
  const opening = o.open(
    (status) => o.channel.post({ type: 'model', status }),
    (event) => o.channel.post({ type: 'event', event }),
  );
  const running = new Set<Promise<void>>();
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));

  opening.then(
    () => o.channel.post({ type: 'ready' }),
    (e: unknown) => {
      log('the engine did not open', e);
      o.channel.post({ type: 'failed', error: toWireError(e) });
    },
  );

  async function answer(id: number, operation: HostRequest & { type: 'call' }): Promise<void> {
    try {
      const engine = await opening;
      const value = await engine.call(operation.operation, operation.input as never, {
        ...(operation.callId ? { callId: operation.callId } : {}),
        onProgress: (event) => o.channel.post({ type: 'progress', id, event }),
      });
      o.channel.post({ type: 'result', id, ok: true, value });
    } catch (e) {
      if (!isExpectedError(e)) log(`${operation.operation} failed`, e);
      o.channel.post({ type: 'result', id, ok: false, error: toWireError(e) });
    }
  }

  let closing = false;
  const stop = o.channel.listen((message) => {
    if (message.type === 'call') {
      if (closing) {
        o.channel.post({ type: 'result', id: message.id, ok: false, error: { code: 'ENGINE_UNAVAILABLE', message: 'Nemori is closing' } });
        return;
      }
      const work = answer(message.id, message).finally(() => running.delete(work));
      running.add(work);
    } else if (message.type === 'close' && !closing) {
      closing = true;
      // Give calls in flight a moment to finish; an import commits per conversation, so what is
      // cut off is re-done idempotently by importing the file again.
      void (async () => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const drained = Promise.allSettled([...running]);
        await Promise.race([drained, new Promise((r) => (timer = setTimeout(r, o.drainMs ?? 5000)))]);
        clearTimeout(timer);
        try {
          await (await opening).close();
        } catch (e) {
          log('closing the engine failed', e);
        }
        o.channel.post({ type: 'closed' });
        stop();
        resolveClosed();
        o.onClosed?.();
      })();
    }
  });
  return { closed };
}
