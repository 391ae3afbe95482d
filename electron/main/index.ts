/**
 * The main process: lifecycle only. One instance per user profile (PGlite does not lock its
 * data directory, so a second instance hands over to the first and exits), one window,
 * and every exit path closes what was opened.
 */
import path from 'node:path';
import { app, BrowserWindow, session } from 'electron';
import { APP_ENTRY_URL } from './app-scheme';
import { registerBridgeHandlers } from './ipc';
import { registerAppSchemePrivileges, serveRenderer } from './protocol';
import { createShutdown } from './shutdown';
import { createMainWindow, denyPermissions, hardenWebContents } from './window';

const here = import.meta.dirname; // out/main (inside app.asar when packaged)
const paths = {
  renderer: path.join(here, '../renderer'),
  preload: path.join(here, '../preload/index.cjs'),
  resources: path.join(app.isPackaged ? process.resourcesPath : app.getAppPath(), 'resources'),
};

/** Set by `electron-vite dev`: the renderer is served by the Vite dev server (with HMR). */
const devServerUrl = !app.isPackaged ? process.env.ELECTRON_RENDERER_URL : undefined;
const entryUrl = devServerUrl ?? APP_ENTRY_URL;

/**
 * Resources closed on quit, last registered first. The engine host (utility process running
 * core/api and PGlite) is added here when it starts: `shutdown.add('engine', () => engine.close())`.
 */
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
    return;
  }
  if (mainWindow.isMinimized()) mainWindow.restore();
  mainWindow.show();
  mainWindow.focus();
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
      registerBridgeHandlers({ version: () => app.getVersion() }, entryUrl);
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
