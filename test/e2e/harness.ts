/**
 * What every browser test needs: a built renderer, an engine on a temporary data folder holding
 * the fixture store, the HTTP bridge in front of it, and Debian's Chromium driven by playwright-core.
 *
 * The renderer is built by `npm run build` (which `.ci/run` runs before `npm test`); when out/renderer
 * is missing or older than the sources, the suite builds it itself, so `npm test` alone also works.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { openAppEngine, type AppEngine } from '../../core/engine/app-engine.js';
import type { EngineEvent } from '../../core/api/wire.js';
import { openEngine, type Engine } from '../../core/engine/open-engine.js';
import { openEmbedder } from '../../core/embed/index.js';
import { startWebServer, type WebServer } from '../../core/http/server.js';
import { resolveStartup, type Startup } from '../../core/engine/startup.js';
import { TINY_MODEL_DIR, tinyModelOptions } from '../fixtures/tiny-model/index.js';
import { fixture, tempDir } from '../helpers/engine.js';
import { AppShell } from './pages/app.js';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');
export const RENDERER_DIR = path.join(ROOT, 'out', 'renderer');
export const SCREENSHOT_DIR = path.join(ROOT, 'test-artifacts', 'screenshots');
export const CHROMIUM = process.env.NEMORI_CHROMIUM ?? '/usr/bin/chromium';
export const e2eFixture = (name: string) => path.join(import.meta.dirname, 'fixtures', name);

/** The two fixture files every browser test starts from: English and Chinese, several days. */
export const FIXTURE_FILES = [fixture('import', 'two-days.json'), e2eFixture('spring-week.json')];

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    newest = Math.max(newest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/** Builds out/renderer when it is missing or older than its sources. Serialised across test files by a lock dir. */
export function ensureRendererBuilt(): void {
  const index = path.join(RENDERER_DIR, 'index.html');
  const sources = Math.max(
    newestMtime(path.join(ROOT, 'renderer')),
    newestMtime(path.join(ROOT, 'core', 'api')),
    fs.statSync(path.join(ROOT, 'electron.vite.config.ts')).mtimeMs,
  );
  const fresh = () => fs.existsSync(index) && fs.statSync(index).mtimeMs >= sources;
  if (fresh()) return;
  const lock = path.join(ROOT, 'out', '.e2e-build-lock');
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      // Another test file is building; wait for it (Atomics.wait: a synchronous sleep).
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
      if (!fs.existsSync(lock) && fresh()) return;
    }
  }
  try {
    if (fresh()) return;
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'], {
      cwd: ROOT,
      stdio: 'pipe',
      env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
    });
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

export interface FixtureBridge {
  engine: Engine;
  server: WebServer;
  home: string;
  close(): Promise<void>;
}

/** An engine (with the tiny embedding model, so hybrid search is real) on a temporary folder, the fixtures imported, behind the bridge. */
export async function startFixtureBridge(files: readonly string[] = FIXTURE_FILES): Promise<FixtureBridge> {
  const home = tempDir('nemori-e2e-');
  const engine = await openEngine({ home, embedder: await openEmbedder(tinyModelOptions()) });
  if (files.length) {
    const imported = await engine.call('importFiles', { paths: [...files] });
    const failed = imported.files.filter((f) => f.error);
    if (failed.length) throw new Error(`fixture import failed: ${failed.map((f) => f.error?.message).join('; ')}`);
  }
  const server = await startWebServer({ engine, staticDir: RENDERER_DIR, log: () => {} });
  return {
    engine,
    server,
    home,
    async close() {
      await server.close();
      await engine.close();
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}

export interface AppBridge {
  engine: AppEngine;
  server: WebServer;
  /** Where Settings saves its choices (`<XDG_DATA_HOME>/nemori/startup.json`), the default data folder beside it. */
  startup: Startup;
  /** A scratch folder for the test's own files (other data folders, backups). */
  root: string;
  close(): Promise<void>;
}

/**
 * The bridge as `nemori web` runs it: an app engine that can move its data folder, change its model
 * and restore backups, with nothing pinned. The tiny model is found by its id; nothing can be
 * downloaded, so the default model is unavailable until Settings switches to the tiny one.
 */
export async function startAppBridge(files: readonly string[] = [fixture('import', 'two-days.json')]): Promise<AppBridge> {
  const root = tempDir('nemori-e2e-app-');
  const env = { XDG_DATA_HOME: path.join(root, 'share'), NEMORI_MODEL_DIR: path.dirname(TINY_MODEL_DIR), NEMORI_ALLOW_DOWNLOAD: '0' };
  const startup = resolveStartup(undefined, env);
  // The engine's own calls (the watched folder's imports) reach the tab as `nemori web` sends them.
  let announce: (e: EngineEvent) => void = () => {};
  const engine = await openAppEngine({ startup, env, warn: () => {}, onEvent: (e) => announce(e) });
  if (files.length) await engine.call('importFiles', { paths: [...files] });
  const server = await startWebServer({ engine, staticDir: RENDERER_DIR, log: () => {} });
  announce = server.emit;
  return {
    engine,
    server,
    startup,
    root,
    async close() {
      await server.close();
      await engine.close();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Debian's Chromium; never a downloaded one. Missing → a clear failure, not a skip. */
export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}. The browser tests need Debian's chromium: \`apt-get install chromium\` ` +
        '(.ci/run installs it when missing), or point NEMORI_CHROMIUM at a Chromium binary.',
    );
  }
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** A browser context as a person in `locale` would have it; the episode times never depend on its time zone. */
export function newContext(browser: Browser, locale: 'en-US' | 'zh-CN', colorScheme: 'light' | 'dark' = 'light'): Promise<BrowserContext> {
  return browser.newContext({ locale, timezoneId: 'America/New_York', viewport: { width: 1280, height: 860 }, colorScheme });
}

/** A tab on the app in its own context (locale, colour scheme), collecting page errors, opened on the journal. */
export async function openAppTab(
  browser: Browser,
  url: string,
  pageErrors: string[],
  locale: 'en-US' | 'zh-CN' = 'en-US',
  colorScheme: 'light' | 'dark' = 'light',
): Promise<{ context: BrowserContext; page: Page; app: AppShell }> {
  const context = await newContext(browser, locale, colorScheme);
  const page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  const app = new AppShell(page);
  await app.open(url);
  return { context, page, app };
}

export function screenshotPath(name: string): string {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return path.join(SCREENSHOT_DIR, `${name}.png`);
}
