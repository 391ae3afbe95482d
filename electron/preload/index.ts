/**
 * Runs sandboxed before the renderer (bundled to CommonJS: a sandboxed preload cannot load ES
 * modules). Exposes the typed bridge on `window.nemori` and nothing else: no ipcRenderer,
 * no Node, no generic "send any channel" escape hatch.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { BRIDGE_KEY, createBridge } from '../../core/api/bridge';

contextBridge.exposeInMainWorld(BRIDGE_KEY, createBridge(ipcRenderer));
