/**
 * Memory care in Chromium against the bridge and a real engine on the fixture store: the next
 * forgetting pass is previewed with its reasons, a pass sends episodes to the trash (they leave
 * search), and restoring one from the Memory care screen brings it back into search.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureRendererBuilt, launchChromium, openAppTab, screenshotPath, startFixtureBridge, type FixtureBridge } from './harness.js';
import { AppShell } from './pages/app.js';
import { MemoryCarePage } from './pages/care.js';
import { EpisodePage } from './pages/episode.js';
import { SearchPage } from './pages/search.js';

/** Far enough ahead that nothing in the fixture (2023–2024), unrecalled, is still fresh. */
const FAR_FUTURE = '2040-01-01';

describe('memory care in Chromium', { timeout: 240_000 }, () => {
  let bridge: FixtureBridge;
  let browser: Browser;
  let page: Page;
  let app: AppShell;
  let zurich: { id: string; title: string };
  const pageErrors: string[] = [];

  beforeAll(async () => {
    ensureRendererBuilt();
    [bridge, browser] = await Promise.all([startFixtureBridge(), launchChromium()]);
    const found = await bridge.engine.call('search', { query: 'interview Zurich', mode: 'bm25' });
    zurich = { id: found.results[0]!.id, title: found.results[0]!.title };
    ({ page, app } = await openAppTab(browser, bridge.server.url, pageErrors));
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await bridge?.close();
  });

  it('previews what the next forgetting pass would do, and why, without changing anything', async () => {
    await app.go('care');
    const care = new MemoryCarePage(page);
    await care.previewAsOf(FAR_FUTURE);
    const moves = await care.plannedMoves();
    const expected = await bridge.engine.call('runForgetting', { dryRun: true, now: FAR_FUTURE });
    expect(moves.map((m) => m.id).sort()).toEqual(expected.moves.map((m) => m.id).sort());
    const planned = moves.find((m) => m.id === zurich.id);
    expect(planned?.to).toBe('trash');
    expect(planned?.reason).toMatch(
      /^Decay score [\d,]+ ≥ 500 \(the trash threshold\): [\d,]+ days without being recalled, importance 0\.\d\d, recalled \d+×$/,
    );
    expect(await care.planSummary()).toMatch(/memories checked/);
    // A preview moves nothing.
    expect((await bridge.engine.call('listTrash', {})).items).toEqual([]);
    expect(await care.trashTitles()).toEqual([]);
  });

  it('shows a forgotten episode in the trash, out of search, and restores it from there', async () => {
    const search = new SearchPage(page);
    await app.go('search');
    await search.search('interview in Zurich');
    expect(await search.resultTitles()).toContain(zurich.title);

    // A forgetting pass run as of a far-off day, as the scheduler would run it then.
    const pass = await bridge.engine.call('runForgetting', { now: FAR_FUTURE });
    expect(pass.moved.trashed).toBeGreaterThan(0);

    await search.search('interview in Zurich');
    expect(await search.resultTitles()).not.toContain(zurich.title);

    await app.go('care');
    const care = new MemoryCarePage(page);
    await care.trashItem(zurich.title).waitFor();
    expect(await care.trashItem(zurich.title).locator('.care-meta').innerText()).toMatch(/deleted for good after/);
    // A year later the trash's retention has run out: the plan is to delete them for good.
    await care.previewAsOf('2041-01-01');
    expect((await care.plannedMoves()).map((m) => m.to)).toContain('purged');
    await app.screenshot(screenshotPath('memory-care-en'));

    await care.restoreFromTrash(zurich.title);
    expect(await care.notice()).toContain(zurich.title);
    await expect.poll(() => care.trashItem(zurich.title).count()).toBe(0);
    expect((await bridge.engine.call('listTrash', { limit: 1000 })).items.map((x) => x.id)).not.toContain(zurich.id);

    await app.go('search');
    await search.search('interview in Zurich');
    expect(await search.resultTitles()).toContain(zurich.title);
  });

  it('speaks Chinese', async () => {
    const { context: zh, page: tab, app: shell } = await openAppTab(browser, bridge.server.url, pageErrors, 'zh-CN');
    try {
      await shell.go('care');
      expect(await shell.heading()).toBe('记忆养护');
      const care = new MemoryCarePage(tab);
      // A year after the pass, the trash's retention has run out: the plan is to delete for good.
      await care.previewAsOf('2041-01-01');
      expect(await care.planSummary()).toMatch(/检查了 \d+ 段记忆/);
      const moves = await care.plannedMoves();
      expect(moves.map((m) => m.to)).toContain('purged');
      // Why, in Chinese: the engine sends reasons as data, the window words them (no English left).
      expect(moves.find((m) => m.to === 'purged')?.reason).toMatch(/^已在回收站 [\d,]+ 天（保留期 30 天）$/);
      for (const m of moves) expect(m.reason).not.toMatch(/[A-Za-z]/);
      const trashed = tab.locator('[data-testid="care-trash-list"] .care-item .care-meta').first();
      expect(await trashed.innerText()).toMatch(
        /衰减分数 [\d,]+ ≥ 500（移入回收站的阈值）：已 [\d,]+ 天未被回忆，重要度 0\.\d\d，回忆过 \d+ 次/,
      );
      expect(await trashed.innerText()).not.toMatch(/[A-Za-z]/);
      // This screenshot shows the trash with its restore buttons (the English one shows the plan).
      await tab.locator('[data-testid="care-trash-list"] .care-item').first().waitFor();
      await tab.locator('#c-trash').evaluate((el) => el.scrollIntoView({ block: 'start' }));
      await shell.screenshot(screenshotPath('memory-care-zh'));
    } finally {
      await zh.close();
    }
  });

  it('lets an episode fade, or keeps it, from its own page', async () => {
    // The Zurich episode: restored above, so active again.
    const hit = zurich;
    await page.evaluate(`location.hash = '#/episode/${hit.id}'`);
    const episode = new EpisodePage(page);
    await page.locator('[data-testid="episode-title"]').waitFor();
    await episode.action('fade').click();
    await expect.poll(() => episode.action('fade').getAttribute('aria-pressed')).toBe('true');
    expect((await bridge.engine.call('explainDecay', { id: hit.id })).marked).toBe(false);
    // Marking it important instead takes the fading back: the person's last word wins.
    await episode.action('important').click();
    await expect.poll(() => episode.action('important').getAttribute('aria-pressed')).toBe('true');
    expect(await episode.action('fade').getAttribute('aria-pressed')).toBe('false');
    const decay = await bridge.engine.call('explainDecay', { id: hit.id });
    expect([decay.marked, decay.exempt]).toEqual([true, true]);
  });

  it('raised no script errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
