/**
 * One call from a window, whatever carried it (an HTTP request, an Electron IPC message):
 * check the operation exists and the input fits the contract, run it, announce its progress,
 * and turn any failure into a `WireError` a person can read. Used by the HTTP bridge and by
 * Electron's main process, so both answer exactly alike.
 */
import { randomUUID } from 'node:crypto';
import { operations, type OperationName } from './contract.js';
import type { ProgressEvent } from './handler.js';
import { isNemoriError } from '../domain/errors.js';
import type { CallResult, EngineEvent, WireError } from './wire.js';

/** Anything that runs contract operations: the in-process Engine, or a client of the engine's utility process. */
export type CallEngine = (
  name: OperationName,
  input: unknown,
  options: { onProgress: (e: ProgressEvent) => void; callId: string },
) => Promise<unknown>;

export function isOperationName(name: string): name is OperationName {
  return Object.hasOwn(operations, name);
}

/** Validates `input` against the contract; the message names the operation and the field, like the engine's own. */
export function checkInput(name: OperationName, input: unknown): WireError | null {
  const parsed = operations[name].input.safeParse(input);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0];
  return { code: 'INVALID_INPUT', message: `${name}: ${issue?.path.join('.') || 'input'}: ${issue?.message ?? 'invalid'}` };
}

/** An error that already is a `WireError` (e.g. relayed from the engine's process): passed on as it is. */
export class WireCallError extends Error {
  readonly code: WireError['code'];
  constructor(error: WireError) {
    super(error.message);
    this.name = 'WireCallError';
    this.code = error.code;
  }
}

/** Errors a person caused or can act on; anything else is a bug and is logged with its stack. */
export function isExpectedError(e: unknown): boolean {
  return isNemoriError(e) || e instanceof WireCallError;
}

/** Any thrown value → what the window may see. Unexpected errors keep their message, never their stack. */
export function toWireError(e: unknown): WireError {
  if (isNemoriError(e) || e instanceof WireCallError) return { code: e.code, message: e.message };
  const message = e instanceof Error ? e.message : String(e);
  return { code: 'INTERNAL', message: `internal error: ${message}` };
}

export interface Dispatcher {
  /** Never rejects: failures come back as `{ ok: false, error }`. `callId`: the caller's name for the call (for `cancelCall`); default a new one. */
  dispatch(name: string, input: unknown, callId?: string): Promise<CallResult>;
}

export function createDispatcher(o: {
  call: CallEngine;
  emit: (e: EngineEvent) => void;
  /** Where unexpected errors (with their stacks) go; the window only gets the message. */
  log?: (message: string, error: unknown) => void;
}): Dispatcher {
  return {
    async dispatch(name, input, given) {
      if (!isOperationName(name)) {
        return { ok: false, error: { code: 'UNKNOWN_OPERATION', message: `unknown operation "${name}"` } };
      }
      const invalid = checkInput(name, input);
      if (invalid) return { ok: false, error: invalid };

      const callId = given ?? randomUUID();
      o.emit({ type: 'call', callId, operation: name, state: 'started' });
      try {
        // The engine parses the original input again (dates, defaults): one source of truth.
        const value = await o.call(name, input, {
          callId,
          onProgress: (p) =>
            o.emit({ type: 'progress', callId, operation: name, phase: p.phase, done: p.done, total: p.total, facts: p.facts }),
        });
        o.emit({ type: 'call', callId, operation: name, state: 'finished' });
        return { ok: true, value } as CallResult;
      } catch (e) {
        o.emit({ type: 'call', callId, operation: name, state: 'failed' });
        if (!isExpectedError(e)) o.log?.(`${name} failed`, e);
        return { ok: false, error: toWireError(e) };
      }
    },
  };
}
