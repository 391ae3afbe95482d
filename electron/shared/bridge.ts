/**
 * The contract between the renderer and the main process: one list of operations, each with
 * its IPC channel, input and output. Main registers a handler per operation, the preload
 * exposes exactly these operations on `window.nemori`, and the renderer sees only this type.
 *
 * When the engine facade lands, the operations here become the `core/api` operations and their
 * input/output types come from its zod schemas; `createBridge` keeps turning that list into the
 * window API (over IPC in Electron, over the HTTP bridge in a plain browser).
 *
 * Plain data and types only: this file is bundled into the sandboxed preload and the renderer.
 */

/** The global the preload exposes: `window.nemori`. */
export const BRIDGE_KEY = 'nemori';

/** Input and output of every operation. `void` input means the operation takes no argument. */
export interface BridgeOperations {
  /** The app's version string, e.g. "0.1.0". */
  version: { input: void; output: string };
}

export type BridgeOperation = keyof BridgeOperations;
export type BridgeInput<K extends BridgeOperation> = BridgeOperations[K]['input'];
export type BridgeOutput<K extends BridgeOperation> = BridgeOperations[K]['output'];

/** Operation → IPC channel. The only place channel names are spelled. */
export const BRIDGE_CHANNELS = Object.freeze({
  version: 'app:version',
} as const satisfies { readonly [K in BridgeOperation]: string });

/** The API the renderer calls: one async function per operation. */
export type NemoriBridge = {
  readonly [K in BridgeOperation]: BridgeInput<K> extends void
    ? () => Promise<BridgeOutput<K>>
    : (input: BridgeInput<K>) => Promise<BridgeOutput<K>>;
};

/** Sends one call over a transport (ipcRenderer.invoke, an HTTP POST, …). */
export type BridgeTransport = (channel: string, input: unknown) => Promise<unknown>;

/** Builds the window API from the contract: exactly one function per operation, nothing else. */
export function createBridge(transport: BridgeTransport): NemoriBridge {
  const bridge: Record<string, (input?: unknown) => Promise<unknown>> = {};
  for (const [operation, channel] of Object.entries(BRIDGE_CHANNELS)) {
    bridge[operation] = (input?: unknown) => transport(channel, input);
  }
  return Object.freeze(bridge) as unknown as NemoriBridge;
}
