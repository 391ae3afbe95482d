import { BrowserWindow, nativeTheme, shell, type Session, type WebContents } from 'electron';
import { decideNavigation, isPermissionAllowed, SECURE_WEB_PREFERENCES } from './security';

export interface MainWindowOptions {
  /** `app://nemori/index.html`, or the Vite dev server URL in development. */
  entryUrl: string;
  preloadPath: string;
  /** Window icon (used on Linux; macOS and Windows take it from the package). */
  iconPath?: string;
}

/** Paper tones of the journal page (renderer/src/styles.css), shown before the first paint. */
const BACKGROUND = { light: '#f7f3ea', dark: '#1b1a17' } as const;

export function createMainWindow(options: MainWindowOptions): BrowserWindow {
  const window = new BrowserWindow({
    width: 1180,
    height: 800,
    minWidth: 720,
    minHeight: 480,
    show: false,
    title: 'Nemori',
    backgroundColor: nativeTheme.shouldUseDarkColors ? BACKGROUND.dark : BACKGROUND.light,
    autoHideMenuBar: true,
    ...(process.platform === 'linux' && options.iconPath ? { icon: options.iconPath } : {}),
    webPreferences: { ...SECURE_WEB_PREFERENCES, preload: options.preloadPath },
  });
  window.once('ready-to-show', () => window.show());
  void window.loadURL(options.entryUrl);
  return window;
}

function openExternal(url: string): void {
  shell.openExternal(url).catch((error: unknown) => console.error(`Could not open ${url}:`, error));
}

/**
 * Applied to every WebContents the app creates (`web-contents-created`): page content can
 * neither navigate the window away from the app nor open windows; web links go to the
 * system browser; `<webview>` cannot be attached.
 */
export function hardenWebContents(contents: WebContents, appEntryUrl: string): void {
  contents.on('will-navigate', (event) => {
    const decision = decideNavigation(event.url, appEntryUrl, 'navigate');
    if (decision === 'allow') return;
    event.preventDefault();
    if (decision === 'open-external') openExternal(event.url);
  });
  contents.on('will-frame-navigate', (event) => {
    if (event.isMainFrame) return; // handled by will-navigate
    if (decideNavigation(event.url, appEntryUrl, 'navigate') !== 'allow') event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (decideNavigation(url, appEntryUrl, 'new-window') === 'open-external') openExternal(url);
    return { action: 'deny' };
  });
}

/** Camera, microphone, notifications, geolocation, …: denied unless listed in ALLOWED_PERMISSIONS. */
export function denyPermissions(session: Session): void {
  session.setPermissionRequestHandler((_contents, permission, callback) => callback(isPermissionAllowed(permission)));
  session.setPermissionCheckHandler((_contents, permission) => isPermissionAllowed(permission));
}
