/**
 * Main-process wiring with a stand-in for the `electron` module (the binary cannot run here): the
 * window gets exactly the secure webPreferences, pages are served with the CSP, and IPC calls are
 * refused from foreign frames and validated against the contract before the engine sees them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Engine } from '../../core/engine/open-engine';
import { createDispatcher } from '../../core/api/dispatch';
import type { EngineEvent } from '../../core/api/wire';
import { BRIDGE_CHANNELS } from '../../core/api/bridge';
import { openMemoryEngine, tempDir } from '../helpers/engine';

const electron = vi.hoisted(() => {
  const handlers = new Map<string, (event: unknown, ...args: unknown[]) => unknown>();
  const windows: { options: Record<string, unknown>; loaded: string | null }[] = [];
  let protocolHandler: ((request: Request) => Promise<Response>) | null = null;
  class BrowserWindow {
    constructor(options: Record<string, unknown>) {
      windows.push({ options, loaded: null });
    }
    once() {}
    on() {}
    show() {}
    loadURL(url: string) {
      windows.at(-1)!.loaded = url;
      return Promise.resolve();
    }
  }
  return {
    handlers,
    windows,
    get protocolHandler() {
      return protocolHandler;
    },
    module: {
      BrowserWindow,
      nativeTheme: { shouldUseDarkColors: false },
      shell: { openExternal: async () => {} },
      ipcMain: {
        handle: (channel: string, fn: (event: unknown, ...args: unknown[]) => unknown) => handlers.set(channel, fn),
        removeHandler: (channel: string) => handlers.delete(channel),
      },
      protocol: {
        registerSchemesAsPrivileged: () => {},
        handle: (_scheme: string, fn: (request: Request) => Promise<Response>) => {
          protocolHandler = fn;
        },
      },
    },
  };
});
vi.mock('electron', () => electron.module);

const { createMainWindow } = await import('../../electron/main/window');
const { registerBridgeHandlers } = await import('../../electron/main/ipc');
const { serveRenderer } = await import('../../electron/main/protocol');
const { SECURE_WEB_PREFERENCES, CONTENT_SECURITY_POLICY } = await import('../../electron/main/security');

const APP = 'app://nemori/index.html';
const fromApp = { senderFrame: { url: 'app://nemori/index.html#/journal' } };
const fromElsewhere = { senderFrame: { url: 'https://evil.example/' } };

describe('the main window', () => {
  it('is created with exactly the secure webPreferences plus the preload', () => {
    createMainWindow({ entryUrl: APP, preloadPath: '/app/out/preload/index.cjs' });
    const { options, loaded } = electron.windows.at(-1)!;
    expect(options.webPreferences).toEqual({ ...SECURE_WEB_PREFERENCES, preload: '/app/out/preload/index.cjs' });
    expect(options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true });
    expect(loaded).toBe(APP);
  });

  it('is served from app:// with the Content-Security-Policy header', async () => {
    const dir = tempDir('nemori-app-');
    fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html>');
    serveRenderer(dir);
    const response = await electron.protocolHandler!(new Request(APP));
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Security-Policy')).toBe(CONTENT_SECURITY_POLICY);
    expect((await electron.protocolHandler!(new Request('app://nemori/../../etc/passwd'))).status).toBe(404);
  });
});

describe('IPC from the window', () => {
  let engine: Engine;
  const events: EngineEvent[] = [];
  let called: string[] = [];

  beforeAll(async () => {
    engine = await openMemoryEngine();
    const dispatcher = createDispatcher({
      call: (name, input, options) => {
        called.push(name);
        return engine.call(name, input as never, options);
      },
      emit: (e) => events.push(e),
    });
    registerBridgeHandlers(
      { dispatcher, pick: async (kind) => (kind === 'folder' ? ['/home/me/Memory'] : ['/home/me/chat.txt']), version: () => '0.1.0' },
      APP,
    );
  });
  afterAll(() => engine.close());

  // ipcMain.handle turns a thrown error into a rejected invoke(); so does this.
  const invoke = (channel: string, event: unknown, ...args: unknown[]) =>
    Promise.resolve().then(() => electron.handlers.get(channel)!(event, ...args));

  it('registers the bridge channels and nothing else', () => {
    expect([...electron.handlers.keys()].sort()).toEqual([BRIDGE_CHANNELS.call, BRIDGE_CHANNELS.pick, BRIDGE_CHANNELS.version].sort());
  });

  it('runs a contract operation and returns its result envelope', async () => {
    called = [];
    await expect(invoke(BRIDGE_CHANNELS.call, fromApp, 'stats', {})).resolves.toEqual({ ok: true, value: { owners: [] } });
    expect(called).toEqual(['stats']);
    expect(events.map((e) => e.type)).toEqual(['call', 'call']);
  });

  it('validates input against the contract before the engine sees it', async () => {
    called = [];
    await expect(invoke(BRIDGE_CHANNELS.call, fromApp, 'search', { query: '' })).resolves.toEqual({
      ok: false,
      error: { code: 'INVALID_INPUT', message: 'search: query: the search text is empty' },
    });
    await expect(invoke(BRIDGE_CHANNELS.call, fromApp, 'deleteEverything', {})).resolves.toMatchObject({
      ok: false,
      error: { code: 'UNKNOWN_OPERATION' },
    });
    await expect(invoke(BRIDGE_CHANNELS.call, fromApp, '__proto__', {})).resolves.toMatchObject({
      ok: false,
      error: { code: 'UNKNOWN_OPERATION' },
    });
    expect(called).toEqual([]);
  });

  it('refuses every channel to frames that are not the app', async () => {
    called = [];
    for (const channel of Object.values(BRIDGE_CHANNELS).filter((c) => c !== BRIDGE_CHANNELS.event)) {
      await expect(invoke(channel, fromElsewhere, 'stats', {})).rejects.toThrow(/did not come from the Nemori window/);
    }
    expect(called).toEqual([]);
  });

  it('answers the file and folder pickers and the version; refuses a picker it does not know', async () => {
    await expect(invoke(BRIDGE_CHANNELS.pick, fromApp, 'import')).resolves.toEqual(['/home/me/chat.txt']);
    await expect(invoke(BRIDGE_CHANNELS.pick, fromApp, 'folder')).resolves.toEqual(['/home/me/Memory']);
    await expect(invoke(BRIDGE_CHANNELS.pick, fromApp, '../../etc')).rejects.toThrow(/unknown kind/);
    await expect(invoke(BRIDGE_CHANNELS.version, fromApp)).resolves.toBe('0.1.0');
  });
});
