/**
 * What travels between the engine and a window, whichever the transport (Electron IPC or the HTTP
 * bridge): the result envelope of a call and the events a window listens to.
 *
 * Types only, no runtime imports: the renderer imports this file with `import type`, so nothing
 * of core ends up in its bundle.
 */
import type { ErrorCode } from '../domain/errors.js';
import type { LlmErrorCode } from '../llm/llm.js';
import type { OperationName, OpOutput } from './contract.js';
import type { ImportStage, ProgressFacts } from './handler.js';
import type { ModelStatus } from './model-status.js';

export type { ImportStage, LlmErrorCode, ModelStatus, ProgressFacts };

/** Engine error codes plus the bridges' own (an unknown operation, a bad token, a token without the right, a crash). */
export type WireErrorCode = ErrorCode | 'UNKNOWN_OPERATION' | 'UNAUTHORIZED' | 'FORBIDDEN' | 'ENGINE_UNAVAILABLE' | 'INTERNAL';

/** An error as a person sees it: a code to branch on and a message to act on, never a stack. */
export interface WireError {
  code: WireErrorCode;
  message: string;
}

export type CallResult<K extends OperationName = OperationName> = { ok: true; value: OpOutput<K> } | { ok: false; error: WireError };

/**
 * Engine events pushed to every open window: each call's life (so a window can show that work is
 * running, even one another window started) and its progress; and, while the engine opens, the
 * embedding model's download and load (`model`, not tied to any call).
 */
export type EngineEvent =
  | { type: 'call'; callId: string; operation: OperationName; state: 'started' | 'finished' | 'failed' }
  | {
      type: 'progress';
      callId: string;
      operation: OperationName;
      phase: string;
      done: number;
      total: number;
      facts?: ProgressFacts | undefined;
    }
  | ({ type: 'model' } & ModelStatus);
