import type { NemoriBridge } from '../../electron/shared/bridge';

/**
 * The one way the renderer reaches the engine. Inside Electron that is the preload's
 * `window.nemori`; in a plain browser (web mode, e2e tests) it will be the HTTP bridge,
 * built from the same contract with `createBridge`. Until that exists, null means "no engine".
 */
export function getBridge(): NemoriBridge | null {
  return window.nemori ?? null;
}
