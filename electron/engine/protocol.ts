/**
 * Messages between the main process and the engine's utility process. The engine (PGlite,
 * transformers.js, imports) runs there so no import, embedding or search ever blocks the window.
 * Every call carries a request id; progress and the result come back under the same id.
 *
 * Plain data only (it crosses a process boundary by structured clone) and no Electron import,
 * so both ends are tested in Node with an in-memory channel.
 */
import type { OperationName } from '../../core/api/contract';
import type { ProgressEvent } from '../../core/engine/open-engine';
import type { ModelStatus } from '../../core/api/model-status';
import type { EngineEvent, WireError } from '../../core/api/wire';

/** main → engine */
export type HostRequest =
  { type: 'call'; id: number; operation: OperationName; input: unknown; callId?: string | undefined } | { type: 'close' };

/** engine → main */
export type HostMessage =
  | { type: 'ready' }
  /** The engine could not open (e.g. the database is locked by another Nemori). */
  | { type: 'failed'; error: WireError }
  /** The embedding model while the engine opens (downloading, loading, ready, unavailable); throttled at the source. */
  | { type: 'model'; status: ModelStatus }
  | { type: 'progress'; id: number; event: ProgressEvent }
  /** A call the engine made by itself (the watched folder's imports): its life and progress, for every window. */
  | { type: 'event'; event: EngineEvent }
  | { type: 'result'; id: number; ok: true; value: unknown }
  | { type: 'result'; id: number; ok: false; error: WireError }
  | { type: 'closed' };

/** One end of a message channel: Electron's UtilityProcess / parentPort, or a test double. */
export interface MessageEnd<In, Out> {
  post(message: Out): void;
  /** Returns the function that stops listening. */
  listen(handler: (message: In) => void): () => void;
}
