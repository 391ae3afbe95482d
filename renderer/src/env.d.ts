import type { NemoriBridge } from '../../electron/shared/bridge';

declare global {
  interface Window {
    /** Exposed by the Electron preload; absent when the renderer runs in a plain browser. */
    readonly nemori?: NemoriBridge;
  }
}
