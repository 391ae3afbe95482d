/**
 * The renderer's one way to the engine. Inside Electron: the preload's `window.nemori` (IPC to
 * main, which validates and forwards to the engine's utility process). In a browser tab: the HTTP
 * bridge. Both speak the contract of core/api and return the same results and errors.
 */
import type { DEFAULT_OWNER as ContractDefaultOwner } from '../../../core/api/search-contract';
import type { NemoriBridge, PickKind } from '../../../core/api/bridge';
import { httpTransport, type HttpTransport } from './http';
import { readToken } from './token';
import type { CallProgress, CallResult, EngineEvent, OperationName, OpInput, OpOutput, WireError, WireErrorCode } from './types';

/** A failed call, with the engine's code and a message meant for the person. */
export class ApiError extends Error {
  readonly code: WireErrorCode;
  constructor(error: WireError) {
    super(error.message);
    this.name = 'ApiError';
    this.code = error.code;
  }
}

/** The owner a window's calls stand for when they name none (the contract's default; the compiler keeps the two equal). */
export const DEFAULT_OWNER: typeof ContractDefaultOwner = 'default';

type Connection = { kind: 'desktop'; bridge: NemoriBridge } | { kind: 'web'; http: HttpTransport } | { kind: 'none' };

let connection: Connection | null = null;

function connect(): Connection {
  if (connection) return connection;
  if (window.nemori) connection = { kind: 'desktop', bridge: window.nemori };
  else {
    const token = readToken();
    connection = token ? { kind: 'web', http: httpTransport(token) } : { kind: 'none' };
  }
  return connection;
}

/** Which front end we run in; 'none' is a browser tab opened without the token link. */
export function connectionKind(): Connection['kind'] {
  return connect().kind;
}

const NOT_CONNECTED: WireError = {
  code: 'UNAUTHORIZED',
  message: 'This tab is not connected to Nemori: open the link that `nemori web` printed.',
};

async function rawCall<K extends OperationName>(operation: K, input: OpInput<K>): Promise<CallResult<K>> {
  const c = connect();
  if (c.kind === 'desktop') return c.bridge.call(operation, input);
  if (c.kind === 'web') return c.http.call(operation, input);
  return { ok: false, error: NOT_CONNECTED };
}

/** Runs one contract operation; rejects with an ApiError when the engine says no. */
export async function call<K extends OperationName>(operation: K, input: OpInput<K>): Promise<OpOutput<K>> {
  const result = await rawCall(operation, input);
  if (!result.ok) throw new ApiError(result.error);
  return result.value;
}

/** Engine events (calls starting/ending, progress, the model's download). Returns the unsubscribe function. */
export function onEvent(listener: (e: EngineEvent) => void): () => void {
  const c = connect();
  if (c.kind === 'desktop') return c.bridge.onEvent(listener);
  if (c.kind === 'web') return c.http.onEvent(listener);
  return () => {};
}

export type { CallProgress };

/** What a follower hears of the call it follows: its id once it starts (what `cancelCall` takes), then its progress. */
export interface CallFollower {
  onStart?: (callId: string) => void;
  onProgress: (p: CallProgress) => void;
}

/**
 * Follows the next `operation` call that starts while `ours()` holds (the caller subscribes, then
 * makes the call: the first such call to start is its own). Returns the unsubscribe.
 */
export function followNextCall(operation: OperationName, follower: CallFollower, ours: () => boolean = () => true): () => void {
  let callId: string | null = null;
  return onEvent((e) => {
    if (e.type === 'model' || e.operation !== operation) return;
    if (e.type === 'call' && e.state === 'started' && callId === null && ours()) {
      callId = e.callId;
      follower.onStart?.(callId);
    }
    if (e.type === 'progress' && e.callId === callId) follower.onProgress({ phase: e.phase, done: e.done, total: e.total, facts: e.facts });
  });
}

/** Desktop only: the system's file or folder dialog (a browser tab types paths or uploads instead). */
export async function pick(kind: PickKind): Promise<string[]> {
  const c = connect();
  return c.kind === 'desktop' ? c.bridge.pick(kind) : [];
}

/** Browser only: hands the chosen files to the bridge (kept there until imported); returns the batch id. */
export async function uploadFiles(files: readonly File[], onUploaded: (done: number, total: number) => void): Promise<string> {
  const c = connect();
  if (c.kind !== 'web') throw new ApiError(NOT_CONNECTED);
  const batch = crypto.randomUUID();
  for (const [i, file] of files.entries()) {
    const sent = await c.http.upload(batch, file);
    if (!sent.ok) throw new ApiError(sent.error);
    onUploaded(i + 1, files.length);
  }
  return batch;
}

export type ImportOptions = Omit<OpInput<'importFiles'>, 'paths' | 'ownerId'>;

/** Browser only: imports (or with `dryRun`, previews) an uploaded batch. A preview keeps the batch for the import. */
export async function importBatch(batch: string, options: ImportOptions): Promise<OpOutput<'importFiles'>> {
  const c = connect();
  if (c.kind !== 'web') throw new ApiError(NOT_CONNECTED);
  const result = await c.http.importBatch(batch, options);
  if (!result.ok) throw new ApiError(result.error);
  return result.value;
}

export async function appVersion(): Promise<string | null> {
  const c = connect();
  return c.kind === 'desktop' ? c.bridge.version() : null;
}

/** Browser only: `/mcp` of the bridge this tab talks to, with the tab's token (valid while `nemori web` runs). */
export function webMcpAddress(): { url: string; token: string } | null {
  const c = connect();
  const token = c.kind === 'web' ? readToken() : null;
  return token ? { url: `${window.location.origin}/mcp`, token } : null;
}
