/**
 * A person who has not imported anything yet: every place says what it is for and what to do.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureRendererBuilt, launchChromium, newContext, RENDERER_DIR, screenshotPath, startFixtureBridge, type FixtureBridge } from './harness.js';
import { AppShell } from './pages/app.js';

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
        expect(await page.locator('[data-testid="search-hint"] h2').innerText()).toBe(lang === 'en' ? 'Ask in your own words' : '用你自己的话来问');
      } finally {
        await context.close();
      }
    });
  }

  it('ships a renderer with none of the engine in it: no zod, no Node modules', () => {
    const assets = path.join(RENDERER_DIR, 'assets');
    const code = fs.readdirSync(assets).filter((f) => f.endsWith('.js')).map((f) => fs.readFileSync(path.join(assets, f), 'utf8')).join('\n');
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
