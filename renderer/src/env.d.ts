import type { NemoriBridge } from '../../core/api/bridge';

declare global {
  interface Window {
    /** Exposed by the Electron preload; absent when the renderer runs in a plain browser. */
    readonly nemori?: NemoriBridge;
  }
}
