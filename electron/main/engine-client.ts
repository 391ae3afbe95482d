/**
 * Main's side of the engine protocol: sends calls with request ids, routes progress and results
 * back to their caller, and fails every pending call plainly if the engine process dies. Pure (no
 * Electron import); `engine-host.ts` connects it to a real utility process.
 */
import type { OperationName } from '../../core/api/contract';
import type { ProgressEvent } from '../../core/engine/open-engine';
import type { ModelStatus } from '../../core/api/model-status';
import { WireCallError } from '../../core/api/dispatch';
import type { EngineEvent, WireError } from '../../core/api/wire';
import type { HostMessage, HostRequest, MessageEnd } from '../engine/protocol';

export interface EngineClient {
  call(operation: OperationName, input: unknown, options?: { onProgress?: (e: ProgressEvent) => void; callId?: string }): Promise<unknown>;
  /** Resolves when the engine has opened its database; rejects if it could not. */
  readonly ready: Promise<void>;
  /** Asks the engine to close its database and waits until it has (or has died). */
  close(): Promise<void>;
  /** Tell the client the process is gone (exit code), so nothing waits forever. */
  exited(code: number | null): void;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  onProgress?: ((e: ProgressEvent) => void) | undefined;
}

export interface EngineClientOptions {
  /** The embedding model's state while the engine opens (main broadcasts it to the windows). */
  onModel?: (status: ModelStatus) => void;
  /** The calls the engine made by itself (the watched folder's imports), for main to broadcast. */
  onEvent?: (event: EngineEvent) => void;
}

export function createEngineClient(channel: MessageEnd<HostMessage, HostRequest>, o: EngineClientOptions = {}): EngineClient {
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let gone: WireError | null = null;
  let closeRequested = false;
  let resolveReady!: () => void;
  let rejectReady!: (e: Error) => void;
  const ready = new Promise<void>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  ready.catch(() => {}); // callers learn through their calls; an unobserved rejection must not crash main
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));

  function failAll(error: WireError): void {
    gone ??= error;
    for (const p of pending.values()) p.reject(new WireCallError(error));
    pending.clear();
  }

  const stop = channel.listen((message) => {
    switch (message.type) {
      case 'ready':
        resolveReady();
        break;
      case 'failed':
        rejectReady(new WireCallError(message.error));
        failAll(message.error);
        break;
      case 'model':
        o.onModel?.(message.status);
        break;
      case 'progress':
        pending.get(message.id)?.onProgress?.(message.event);
        break;
      case 'event':
        o.onEvent?.(message.event);
        break;
      case 'result': {
        const p = pending.get(message.id);
        if (!p) break;
        pending.delete(message.id);
        if (message.ok) p.resolve(message.value);
        else p.reject(new WireCallError(message.error));
        break;
      }
      case 'closed':
        failAll({ code: 'ENGINE_UNAVAILABLE', message: 'Nemori is closing' });
        stop();
        resolveClosed();
        break;
    }
  });

  return {
    ready,
    call(operation, input, options = {}) {
      if (gone) return Promise.reject(new WireCallError(gone));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject, onProgress: options.onProgress });
        channel.post({ type: 'call', id, operation, input, callId: options.callId });
      });
    },
    close() {
      // Even an engine that failed to open is asked: it still answers `closed`, then exits.
      if (!closeRequested) {
        closeRequested = true;
        gone ??= { code: 'ENGINE_UNAVAILABLE', message: 'Nemori is closing' };
        channel.post({ type: 'close' });
      }
      return closed;
    },
    exited(code) {
      const error: WireError = {
        code: 'ENGINE_UNAVAILABLE',
        message: `the memory engine stopped unexpectedly (exit code ${code ?? 'unknown'}); restart Nemori`,
      };
      rejectReady(new WireCallError(error));
      // Calls in flight fail with the first reason (closing, or this crash).
      for (const p of pending.values()) p.reject(new WireCallError(gone ?? error));
      pending.clear();
      gone ??= error;
      closeRequested = true;
      stop();
      resolveClosed();
    },
  };
}
