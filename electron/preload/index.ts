/**
 * Runs sandboxed before the renderer (bundled to CommonJS: a sandboxed preload cannot load ES
 * modules). Exposes the typed bridge on `window.nemori` and nothing else: no ipcRenderer,
 * no Node, no generic "send any channel" escape hatch.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { BRIDGE_KEY, createBridge } from '../shared/bridge';

const bridge = createBridge((channel, input) => ipcRenderer.invoke(channel, input));

contextBridge.exposeInMainWorld(BRIDGE_KEY, bridge);
