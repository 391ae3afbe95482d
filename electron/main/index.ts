/**
 * The main process: lifecycle only. One instance per user profile (PGlite does not lock its
 * data directory, so a second instance hands over to the first and exits), one window,
 * and every exit path closes what was opened.
 */
import path from 'node:path';
import { app, BrowserWindow, dialog, safeStorage, session } from 'electron';
import { createDispatcher } from '../../core/api/dispatch';
import type { EngineEvent } from '../../core/api/wire';
import { BRIDGE_CHANNELS, type PickKind } from '../../core/api/bridge';
import { APP_ENTRY_URL } from './app-scheme';
import { createBroadcaster, type EventTarget } from './broadcast';
import { startEngineHost } from './engine-host';
import { registerBridgeHandlers } from './ipc';
import { createKeyVault, vaultKeyOf } from './key-vault';
import { registerAppSchemePrivileges, serveRenderer } from './protocol';
import { createShutdown } from './shutdown';
import { createMainWindow, denyPermissions, hardenWebContents } from './window';

const here = import.meta.dirname; // out/main (inside app.asar when packaged)
const paths = {
  renderer: path.join(here, '../renderer'),
  preload: path.join(here, '../preload/index.cjs'),
  engine: path.join(here, 'engine.js'),
  resources: path.join(app.isPackaged ? process.resourcesPath : app.getAppPath(), 'resources'),
};

/** Set by `electron-vite dev`: the renderer is served by the Vite dev server (with HMR). */
const devServerUrl = !app.isPackaged ? process.env.ELECTRON_RENDERER_URL : undefined;
const entryUrl = devServerUrl ?? APP_ENTRY_URL;

/** Resources closed on quit, last registered first: the engine's database above all. */
const shutdown = createShutdown({
  onError: (name, error) => console.error(`[nemori] closing ${name} failed:`, error),
});

let mainWindow: BrowserWindow | null = null;

function showMainWindow(): void {
  if (!mainWindow || mainWindow.isDestroyed()) {
    mainWindow = createMainWindow({
      entryUrl,
      preloadPath: paths.preload,
      iconPath: path.join(paths.resources, 'icon.png'),
    });
    mainWindow.on('closed', () => {
      mainWindow = null;
    });
    const window = mainWindow;
    window.webContents.on('did-finish-load', () => events.replayTo(eventTarget(window)));
    return;
  }
  if (mainWindow.isMinimized()) mainWindow.restore();
  mainWindow.show();
  mainWindow.focus();
}

/** A window as an event target: its page, on the bridge's event channel. */
const eventTarget = (window: BrowserWindow): EventTarget => ({
  isDestroyed: () => window.isDestroyed(),
  send: (event) => window.webContents.send(BRIDGE_CHANNELS.event, event),
});

/** Engine events go to every window of the app (there is one, but a second must not miss progress). */
const events = createBroadcaster(() => BrowserWindow.getAllWindows().map(eventTarget));
const broadcast = (event: EngineEvent) => events.send(event);

const PICKERS: Record<PickKind, Electron.OpenDialogOptions> = {
  import: { title: 'Import conversations', properties: ['openFile', 'multiSelections'] },
  folder: { title: 'Where Nemori keeps your memory', properties: ['openDirectory', 'createDirectory', 'promptToCreate'] },
  backup: { title: 'Restore a backup', properties: ['openFile'], filters: [{ name: 'Nemori backup', extensions: ['gz'] }] },
};

async function pick(kind: PickKind): Promise<string[]> {
  const options = PICKERS[kind];
  const result = mainWindow ? await dialog.showOpenDialog(mainWindow, options) : await dialog.showOpenDialog(options);
  return result.canceled ? [] : result.filePaths;
}

/** Hold the quit until every closer has run, then quit for real. Safe to call from any exit path. */
function closeBeforeQuit(event: { preventDefault(): void }): void {
  if (shutdown.state === 'closed') return;
  event.preventDefault();
  void shutdown.run().then(() => app.quit());
}

function start(): void {
  app.enableSandbox();
  registerAppSchemePrivileges();

  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents, entryUrl));
  app.on('second-instance', () => {
    if (app.isReady()) showMainWindow();
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) showMainWindow();
  });

  app.on('before-quit', closeBeforeQuit);
  app.on('will-quit', closeBeforeQuit);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => app.quit());

  app
    .whenReady()
    .then(() => {
      serveRenderer(paths.renderer);
      denyPermissions(session.defaultSession);
      // Sealed by this machine's keychain, so it stays with the app's profile, not the (movable) data folder.
      const vault = createKeyVault(path.join(app.getPath('userData'), 'llm-api-key.bin'), safeStorage, (m) =>
        console.warn(`[nemori] ${m}`),
      );
      const engine = startEngineHost({
        entryPath: paths.engine,
        ...(vault.available ? { llmKey: vault.load() } : {}),
        // First run: the embedding model's download, shown in the window while the engine opens.
        onModel: (status) => broadcast({ type: 'model', ...status }),
        // The watched folder's imports, shown in every window like a window's own import.
        onEvent: broadcast,
      });
      shutdown.add('engine', () => engine.close());
      registerBridgeHandlers(
        {
          dispatcher: createDispatcher({
            call: async (name, input, options) => {
              const out = await engine.call(name, input, options);
              // Only settings the engine accepted reach the keychain.
              vaultKeyOf(vault, name, input);
              return out;
            },
            emit: broadcast,
            log: (message, error) => console.error(`[nemori] ${message}:`, error),
          }),
          pick,
          version: () => app.getVersion(),
        },
        entryUrl,
      );
      showMainWindow();
    })
    .catch((error: unknown) => {
      console.error('[nemori] failed to start:', error);
      app.exit(1);
    });
}

if (app.requestSingleInstanceLock()) {
  start();
} else {
  // Another Nemori owns this profile (and its database); it receives `second-instance` and comes forward.
  app.quit();
}
