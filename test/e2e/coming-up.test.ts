/**
 * "Coming up" beside the journal in a real browser: what the person said of the days ahead (a week
 * from its first day to its last), read on the browser's calendar, with the day written into the
 * message, after the question it answers, and what was said since that may call it off; choosing it
 * opens its episode. In English
 * and in Chinese.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureRendererBuilt, launchChromium, openAppTab, screenshotPath, startFixtureBridge, type FixtureBridge } from './harness.js';

/** A wall-clock moment at `offsetMin` as ISO 8601 with that offset, and its local day. */
function local(at: number, offsetMin: number): { iso: string; day: string } {
  const wall = new Date(at + offsetMin * 60_000).toISOString().slice(0, 19);
  const sign = offsetMin < 0 ? '-' : '+';
  const abs = Math.abs(offsetMin);
  const zone = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return { iso: `${wall}${zone}`, day: wall.slice(0, 10) };
}

describe('Coming up beside the journal, in Chromium', { timeout: 120_000 }, () => {
  let bridge: FixtureBridge;
  let browser: Browser;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    ensureRendererBuilt();
    [bridge, browser] = await Promise.all([startFixtureBridge([]), launchChromium()]);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await bridge?.close();
  });

  it('shows the day ahead the person spoke of and opens the episode that holds it', async () => {
    const { context, page, app } = await openAppTab(browser, bridge.server.url, pageErrors);
    try {
      // Said a minute ago on the browser's clock: "tomorrow" is its next day there.
      const offset = await page.evaluate(() => -new Date().getTimezoneOffset());
      const said = local(Date.now() - 60_000, offset);
      const later = local(Date.now() - 30_000, offset);
      const asked = local(Date.now() - 50_000, offset);
      const answered = local(Date.now() - 45_000, offset);
      const afterTomorrow = local(Date.now() - 45_000 + 2 * 86_400_000, offset).day;
      const tomorrow = local(Date.now() - 60_000 + 86_400_000, offset).day;
      await bridge.engine.call('ingestConversation', {
        source: 'api',
        conversation: {
          id: 'dentist',
          messages: [
            { id: 'd1', speaker: 'Lena', text: 'I have my dentist appointment tomorrow at 9.', timestamp: said.iso },
            { id: 'd2', speaker: 'Lena', text: "Next week I'm in Lisbon for the conference.", timestamp: said.iso },
            // A day given in answer: shown after the question.
            { id: 'd4', speaker: 'Nemo', text: 'When is the haircut?', timestamp: asked.iso },
            { id: 'd5', speaker: 'Lena', text: 'The day after tomorrow.', timestamp: answered.iso },
            // Said after: the plan is shown with it.
            { id: 'd3', speaker: 'Lena', text: 'The dentist might be cancelled, they have a flu outbreak.', timestamp: later.iso },
          ],
        },
      });
      await page.reload();
      const item = page.locator(`[data-testid="coming-up"] li[data-day="${tomorrow}"]`);
      await item.waitFor();
      expect(await page.locator('#coming-up-title').textContent()).toBe('Coming up');
      expect(await item.textContent()).toContain(`Lena: “I have my dentist appointment tomorrow at 9 (${tomorrow}).”`);
      expect(await item.locator('.coming-up-day').textContent()).toMatch(/ · (tomorrow|today) · 09:00$/);
      expect(await item.locator('.coming-up-later').textContent()).toBe(
        'Since then · Lena: “The dentist might be cancelled, they have a flu outbreak.”',
      );
      const answer = page.locator(`[data-testid="coming-up"] li[data-day="${afterTomorrow}"]`);
      expect(await answer.locator('.coming-up-asked').textContent()).toBe('Nemo: “When is the haircut?”');
      expect(await answer.locator('.coming-up-text').textContent()).toBe(`Lena: “The day after tomorrow (${afterTomorrow}).”`);
      // A week: from its first day to its last.
      const week = page.locator('[data-testid="coming-up"] li', { hasText: 'Lisbon' });
      expect(await week.locator('.coming-up-day').textContent()).toMatch(/^.+ – .+ · /);
      await app.screenshot(screenshotPath('journal-coming-up-en'));
      await item.locator('button').click();
      await page.locator('[data-testid="episode-title"]').waitFor();
      expect(page.url()).toContain('#/episode/');
    } finally {
      await context.close();
    }

    const { context: zh, page: tab } = await openAppTab(browser, bridge.server.url, pageErrors, 'zh-CN');
    try {
      await tab.locator('[data-testid="coming-up"] li').first().waitFor();
      expect(await tab.locator('#coming-up-title').textContent()).toBe('即将到来');
      expect(await tab.locator('.coming-up-day').first().textContent()).toMatch(/ · (明天|今天) · 09:00$/);
    } finally {
      await zh.close();
    }
    expect(pageErrors).toEqual([]);
  });
});
