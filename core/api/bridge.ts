/**
 * The contract between the renderer and the main process. The operations are exactly those of
 * `core/api/contract.ts` (types imported from there, so a new operation appears here by itself);
 * main validates every call against the contract's zod schemas before the engine sees it. Besides
 * the operations, the window gets the engine's events, the native file and folder pickers and the
 * app's version.
 *
 * Only types and plain data come from core: this file is bundled into the sandboxed preload and
 * the renderer, neither of which may load zod or Node code.
 */
import type { OperationName, OpInput } from './contract';
import type { CallResult, EngineEvent } from './wire';

/** The global the preload exposes: `window.nemori`. */
export const BRIDGE_KEY = 'nemori';

/** Every IPC channel, spelled once. Operations share one channel; main checks the name against the contract. */
export const BRIDGE_CHANNELS = Object.freeze({
  call: 'nemori:call',
  event: 'nemori:event',
  pick: 'nemori:pick',
  version: 'nemori:version',
} as const);

/** What the system dialog is for: chats to import, a data folder, a backup to restore. */
export const PICK_KINDS = ['import', 'folder', 'backup'] as const;
export type PickKind = (typeof PICK_KINDS)[number];

/** The API the renderer sees on `window.nemori`. */
export interface NemoriBridge {
  /** Runs one contract operation. Never rejects for engine errors: they come back as `{ ok: false, error }`. */
  call<K extends OperationName>(operation: K, input: OpInput<K>): Promise<CallResult<K>>;
  /** Engine events (calls starting and ending, progress, the embedding model's download). Returns the unsubscribe function. */
  onEvent(listener: (event: EngineEvent) => void): () => void;
  /** The system's file or folder dialog; absolute paths of what was chosen, empty when cancelled. */
  pick(kind: PickKind): Promise<string[]>;
  /** The app's version string, e.g. "0.1.0". */
  version(): Promise<string>;
}

/** The slice of `ipcRenderer` the bridge needs (a fake one in tests). */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

/**
 * Builds `window.nemori` over IPC. Page scripts get plain functions only: never `ipcRenderer`, never
 * the IPC event object (it carries `sender`), no way to name a channel.
 */
export function createBridge(ipc: IpcRendererLike): NemoriBridge {
  const bridge: NemoriBridge = {
    call: (operation, input) => {
      if (typeof operation !== 'string') return Promise.reject(new TypeError('operation must be a string'));
      return ipc.invoke(BRIDGE_CHANNELS.call, operation, input) as Promise<CallResult<typeof operation>>;
    },
    onEvent(listener) {
      if (typeof listener !== 'function') throw new TypeError('listener must be a function');
      const forward = (_event: unknown, payload: unknown) => listener(payload as EngineEvent);
      ipc.on(BRIDGE_CHANNELS.event, forward);
      return () => void ipc.removeListener(BRIDGE_CHANNELS.event, forward);
    },
    pick: (kind) => ipc.invoke(BRIDGE_CHANNELS.pick, kind) as Promise<string[]>,
    version: () => ipc.invoke(BRIDGE_CHANNELS.version) as Promise<string>,
  };
  return Object.freeze(bridge);
}
