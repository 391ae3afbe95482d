/**
 * A person who has not imported anything yet: every place says what it is for and what to do; and on
 * the very first start, while the search model downloads (from a local mirror), the status line and
 * Settings show how far it is, in English and Chinese.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelStatus } from '../../core/api/model-status.js';
import { startWeb } from '../../core/http/web.js';
import { resolveStartup } from '../../core/engine/startup.js';
import { tempDir } from '../helpers/engine.js';
import { mirrorEnv, startModelMirror, tinyModelBytes, tinyOnnxBytes } from '../helpers/model-mirror.js';
import {
  ensureRendererBuilt,
  launchChromium,
  newContext,
  RENDERER_DIR,
  screenshotPath,
  startFixtureBridge,
  type FixtureBridge,
} from './harness.js';
import { AppShell } from './pages/app.js';
import { SettingsPage } from './pages/settings.js';

describe('the first start, with nothing remembered yet', { timeout: 180_000 }, () => {
  let bridge: FixtureBridge;
  let browser: Browser;

  beforeAll(async () => {
    ensureRendererBuilt();
    [bridge, browser] = await Promise.all([startFixtureBridge([]), launchChromium()]);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await bridge?.close();
  });

  for (const [locale, lang] of [
    ['en-US', 'en'],
    ['zh-CN', 'zh'],
  ] as const) {
    it(`tells a new user what to do (${lang})`, async () => {
      const context = await newContext(browser, locale);
      try {
        const page = await context.newPage();
        const app = new AppShell(page);
        await app.open(bridge.server.url);
        const empty = page.locator('[data-testid="journal-empty"]');
        await empty.waitFor();
        expect(await empty.locator('h2').innerText()).toBe(lang === 'en' ? 'Your journal is empty' : '日记还是空的');
        await app.screenshot(screenshotPath(`journal-empty-${lang}`));

        // Its one action leads to the import.
        await empty.getByRole('button').click();
        await page.locator('main[data-screen="import"] h1').waitFor();

        await app.go('search');
        expect(await page.locator('[data-testid="search-hint"] h2').innerText()).toBe(
          lang === 'en' ? 'Ask in your own words' : '用你自己的话来问',
        );
      } finally {
        await context.close();
      }
    });
  }

  it('ships a renderer with none of the engine in it: no zod, no Node modules', () => {
    const assets = path.join(RENDERER_DIR, 'assets');
    const code = fs
      .readdirSync(assets)
      .filter((f) => f.endsWith('.js'))
      .map((f) => fs.readFileSync(path.join(assets, f), 'utf8'))
      .join('\n');
    expect(code).not.toMatch(/ZodError|from ["']node:|require\(["']node:/);
    expect(code).not.toContain('@electric-sql/pglite');
  });

  it('a tab opened without the link asks for it, and reaches nothing', async () => {
    const context = await newContext(browser, 'en-US');
    try {
      const page = await context.newPage();
      await page.goto(bridge.server.origin);
      expect(await page.locator('h1').innerText()).toBe('Open Nemori from its link');
      expect(await page.locator('nav').count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});

describe('the very first start, while the search model downloads', { timeout: 180_000 }, () => {
  let browser: Browser;
  beforeAll(async () => {
    ensureRendererBuilt();
    browser = await launchChromium();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('shows the download in the status line and in Settings, then the usual status once the model is ready', async () => {
    const total = await tinyModelBytes();
    const mirror = await startModelMirror({ holdAt: 300_000 });
    const held = total - (await tinyOnnxBytes()) + 300_000;
    const seen: ModelStatus[] = [];
    const { server, engine } = await startWeb({
      startup: resolveStartup(tempDir('nemori-e2e-first-'), mirrorEnv(mirror)),
      staticDir: RENDERER_DIR,
      env: mirrorEnv(mirror),
      warn: () => {},
      onModel: (s) => seen.push(s),
    });
    const contexts = await Promise.all([newContext(browser, 'en-US'), newContext(browser, 'zh-CN')]);
    try {
      // The mirror holds the model file part-way: the tabs open in the middle of the download. The model
      // loads in its own thread, which on a busy machine takes longer than a poll's default second to start.
      await expect.poll(() => seen.some((s) => s.state === 'downloading' && s.loaded === held), { timeout: 60_000 }).toBe(true);
      const [en, zh] = await Promise.all(contexts.map((c) => c.newPage()));
      const tabs = [
        { page: en!, downloading: /^Downloading the search model: \d+ of \d+\u00a0KB$/, idle: 'Browser · this computer only' },
        { page: zh!, downloading: /^正在下载搜索模型：\d+ \/ \d+\u00a0KB$/, idle: '浏览器 · 仅限本机' },
      ];
      const percent = String(Math.round((held / total) * 100));
      for (const tab of tabs) {
        const app = new AppShell(tab.page);
        await app.open(server.url);
        const status = tab.page.locator('[data-testid="status-model"]');
        expect(await status.getAttribute('data-state')).toBe('downloading');
        expect(await status.locator('.progress-text').innerText()).toMatch(tab.downloading);
        expect(await status.getByRole('progressbar').getAttribute('aria-valuenow')).toBe(percent);
        await app.go('settings');
        const inSettings = tab.page.locator('[data-testid="settings-model-progress"]');
        expect(await inSettings.locator('.progress-text').innerText()).toMatch(tab.downloading);
        expect(await inSettings.getByRole('progressbar').getAttribute('aria-valuenow')).toBe(percent);
      }
      expect(await tabs[0]!.page.locator('[data-testid="status-model"] .progress-text').innerText()).toBe(
        `Downloading the search model: ${Math.round(held / 1024)} of ${Math.round(total / 1024)}\u00a0KB`,
      );
      await new AppShell(en!).screenshot(screenshotPath('model-download-en'));
      await new AppShell(zh!).screenshot(screenshotPath('model-download-zh'));

      mirror.release();
      for (const tab of tabs) {
        await tab.page.locator('.status[data-state="idle"]').waitFor();
        expect(await tab.page.locator('.status').innerText()).toBe(tab.idle);
        expect(await tab.page.locator('[data-testid="settings-model-progress"]').count()).toBe(0);
      }
      // Settings, waiting for the engine meanwhile, now tells the model is ready.
      await expect.poll(() => new SettingsPage(en!).embeddingFacts()).toMatch(/nemori-tiny — ready/);
    } finally {
      // A failed check must not leave the engine waiting for the rest of the model.
      mirror.release();
      await Promise.all(contexts.map((c) => c.close()));
      await server.close();
      await (await engine).close();
      await mirror.close();
    }
  });
});
