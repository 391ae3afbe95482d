/**
 * Semantic memory in Chromium against the bridge and a real engine: facts learnt from the fixture
 * episodes by knowledge discovery (a scripted LLM) and changed through the API, then browsed,
 * searched, corrected, forgotten and brought back from the Knowledge screen, the search screen and
 * an episode's page. Screenshots of the Knowledge screen in English and Chinese (light and dark).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureRendererBuilt, launchChromium, openAppTab, screenshotPath, startFixtureBridge, type FixtureBridge } from './harness.js';
import { FACTS, VALUES, seedKnowledge } from './knowledge-seed.js';
import { AppShell } from './pages/app.js';
import { EpisodePage } from './pages/episode.js';
import { KnowledgePage } from './pages/knowledge.js';
import { SearchPage } from './pages/search.js';

describe('the knowledge screen in Chromium', { timeout: 240_000 }, () => {
  let bridge: FixtureBridge;
  let browser: Browser;
  let page: Page;
  let app: AppShell;
  let knowledge: KnowledgePage;
  let zurich: { id: string; title: string };
  const pageErrors: string[] = [];

  beforeAll(async () => {
    ensureRendererBuilt();
    [bridge, browser] = await Promise.all([startFixtureBridge(), launchChromium()]);
    await seedKnowledge(bridge.engine);
    const found = await bridge.engine.call('search', { query: 'robotics startup Zurich interview', mode: 'bm25', kind: 'episodic' });
    zurich = { id: found.results[0]!.id, title: found.results[0]!.title };
    ({ page, app } = await openAppTab(browser, bridge.server.url, pageErrors));
    knowledge = new KnowledgePage(page);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await bridge?.close();
  });

  it('lists the facts, most recently changed first, each with its version, and filters them by kind', async () => {
    await app.go('knowledge');
    await knowledge.waitForFacts();
    const labels = await knowledge.labels();
    expect(labels[0]).toBe(FACTS.job.label);
    expect(labels).toEqual(expect.arrayContaining(Object.values(FACTS).map((f) => f.label)));
    expect(await knowledge.version(FACTS.job.label)).toBe('v2');
    expect(await knowledge.version(FACTS.cousin.label)).toBe('v1');
    expect(await knowledge.card(FACTS.job.label).locator('.fact-value').innerText()).toBe(VALUES.jobNow);

    // The kinds with their counts: five people (no other kind in this store) and "all".
    expect(await page.locator('.segmented[data-name="entity-type"] [role="radio"]').allInnerTexts()).toEqual(['All (5)', 'People (5)']);
    await knowledge.filter(/^People/);
    await expect.poll(() => knowledge.labels().then((l) => l.length)).toBe(5);
    await knowledge.filter(/^All/);
  });

  it('opens a fact: its value now, both versions in the timeline, the episode and messages behind it, related facts', async () => {
    await knowledge.open(FACTS.job.label);
    expect(page.url()).toMatch(/#\/knowledge\/[0-9a-f-]{36}$/);
    expect(await knowledge.detailValue()).toBe(VALUES.jobNow);
    expect(await knowledge.timeline()).toEqual([
      { version: 1, value: VALUES.jobFirst, change: 'first', corrected: false, episode: zurich.title },
      { version: 2, value: VALUES.jobNow, change: 'updates', corrected: false, episode: null },
    ]);
    expect(await knowledge.episodeTitles('linked-episodes')).toEqual([zurich.title]);
    expect(await knowledge.sources()).toEqual(['The robotics startup in Zurich invited me for a second interview next Thursday.']);
    // Direct: learnt together (cousin) and the relation the model proposed (Mia, the same week); Mia's allergy through Mia.
    expect((await knowledge.related('direct')).sort()).toEqual([FACTS.mia.label, FACTS.cousin.label].sort());
    expect(await knowledge.relatedNote(FACTS.mia.label)).toContain('at the same time');
    expect(await knowledge.related('indirect')).toEqual([FACTS.allergy.label]);
    expect(await page.locator('[data-testid="related-indirect"] .fact-note').innerText()).toContain(`via ${FACTS.mia.label}`);
    await page.locator('.fact-detail-pane').evaluate((el) => (el.scrollTop = 0));
    await app.screenshot(screenshotPath('knowledge-en'));

    // A related fact is a link to it.
    await page.locator('[data-testid="related-indirect"] .fact-card').click();
    await knowledge.waitForDetail(FACTS.allergy.label);
    expect(await knowledge.detailValue()).toBe('Allergic to peanuts');
  });

  it('goes from a fact to the episode that taught it, and from the episode back to its facts', async () => {
    await knowledge.open(FACTS.job.label);
    await page.locator('[data-testid="linked-episodes"] .episode-link').click();
    const episode = new EpisodePage(page);
    await expect.poll(() => episode.title()).toContain(zurich.title);
    const facts = page.locator('[data-testid="episode-facts"] .fact-card');
    await facts.first().waitFor();
    expect((await facts.locator('.fact-label').allInnerTexts()).sort()).toEqual([FACTS.cousin.label, FACTS.job.label].sort());
    expect(await facts.filter({ hasText: FACTS.job.label }).locator('.fact-note').innerText()).toBe('learnt here');
    await page.locator('[data-testid="episode-facts"]').evaluate((el) => el.scrollIntoView({ block: 'center' }));
    await app.screenshot(screenshotPath('episode-facts-en'));
    await facts.filter({ hasText: FACTS.job.label }).click();
    await knowledge.waitForDetail(FACTS.job.label);
  });

  it('corrects a fact: the wrong value stays in the history, struck through', async () => {
    await knowledge.open(FACTS.mia.label);
    await knowledge.correct(VALUES.miaRight);
    await expect.poll(() => knowledge.detailValue()).toBe(VALUES.miaRight);
    expect(await knowledge.timeline()).toEqual([
      { version: 1, value: VALUES.miaWrong, change: 'first', corrected: true, episode: expect.any(String) },
      { version: 2, value: VALUES.miaRight, change: 'corrects', corrected: false, episode: null },
    ]);
    expect(await knowledge.version(FACTS.mia.label)).toBe('v2');
    await app.screenshot(screenshotPath('knowledge-corrected-en'));
    const stored = await bridge.engine.call('getKnowledge', { key: FACTS.mia.key });
    expect(stored.timeline.map((v) => [v.value, v.link, v.corrected, v.method])).toEqual([
      [VALUES.miaWrong, null, true, 'diff_analysis'],
      [VALUES.miaRight, 'corrects', false, 'user_feedback'],
    ]);
  });

  it('marks a fact important (exempt from forgetting and eviction), or lets it fade', async () => {
    await knowledge.open(FACTS.allergy.label);
    await knowledge.action('important').click();
    await expect.poll(() => knowledge.action('important').getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => knowledge.starred(FACTS.allergy.label)).toBe(true);
    const fact = (await bridge.engine.call('getKnowledge', { key: FACTS.allergy.key })).fact;
    expect((await bridge.engine.call('explainDecay', { id: fact.id })).exempt).toBe(true);
    // Letting it fade instead takes the importance back: the person's last word wins.
    await knowledge.action('fade').click();
    await expect.poll(() => knowledge.action('fade').getAttribute('aria-pressed')).toBe('true');
    expect(await knowledge.action('important').getAttribute('aria-pressed')).toBe('false');
    expect(await knowledge.starred(FACTS.allergy.label)).toBe(false);
    expect((await bridge.engine.call('explainDecay', { id: fact.id })).marked).toBe(false);
    // And back to no word at all, so the rest of the story is unchanged.
    await knowledge.action('fade').click();
    await expect.poll(() => knowledge.action('fade').getAttribute('aria-pressed')).toBe('false');
  });

  it('finds facts when searching for facts only, marked as facts, and opens one', async () => {
    await app.go('search');
    const search = new SearchPage(page);
    await search.kind('Facts');
    await search.search('robotics startup offer');
    expect(new Set(await search.kinds())).toEqual(new Set(['semantic']));
    const hit = search.fact(FACTS.job.label);
    expect(await hit.locator('.fact-badge').innerText()).toMatch(/fact/i);
    expect(await hit.locator('[data-testid="fact-version"]').innerText()).toBe('v2');
    expect(await hit.locator('.result-snippet').innerText()).toBe(VALUES.jobNow);
    await app.screenshot(screenshotPath('search-facts-en'));

    // "All" ranks the episode and the fact together; "Episodes" leaves the facts out.
    await search.kind('All');
    await search.search('robotics startup Zurich');
    expect(new Set(await search.kinds())).toEqual(new Set(['episode', 'semantic']));
    await search.kind('Episodes');
    await expect.poll(() => search.kinds().then((k) => [...new Set(k)])).toEqual(['episode']);

    await search.kind('Facts');
    await expect.poll(() => search.kinds().then((k) => [...new Set(k)])).toEqual(['semantic']);
    await search.openFact(FACTS.job.label);
    expect(await knowledge.detailLabel()).toBe(FACTS.job.label);
    expect(page.url()).toContain('#/knowledge/');
  });

  it('forgets a fact (it leaves the list, into the trash) and brings it back with Undo', async () => {
    await app.go('knowledge');
    await knowledge.open(FACTS.cousin.label);
    await knowledge.forget();
    expect(await knowledge.notice()).toContain(`“${FACTS.cousin.label}” was forgotten`);
    await expect.poll(() => knowledge.card(FACTS.cousin.label).count()).toBe(0);
    expect((await bridge.engine.call('listKnowledge', { tier: 'trash' })).facts.map((f) => f.label)).toEqual([FACTS.cousin.label]);

    await knowledge.undo();
    await knowledge.waitForDetail(FACTS.cousin.label);
    await expect.poll(() => knowledge.card(FACTS.cousin.label).count()).toBe(1);
    expect(await knowledge.notice()).toContain('is back');
    expect((await bridge.engine.call('getKnowledge', { key: FACTS.cousin.key })).fact.tier).toBe('active');
  });

  it('is used with the keyboard: arrows through the list, Enter opens, Esc closes', async () => {
    await app.go('knowledge');
    await knowledge.waitForFacts();
    await knowledge.list.locator('.fact-card').first().focus();
    await page.keyboard.press('ArrowDown');
    const second = await page.evaluate('document.activeElement.querySelector(".fact-label").textContent');
    await page.keyboard.press('Enter');
    await knowledge.waitForDetail(second as string);
    await expect.poll(() => page.evaluate('document.activeElement.dataset.testid')).toBe('fact-label');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.url()).toMatch(/#\/knowledge$/);
    await expect.poll(() => page.evaluate('document.activeElement.querySelector(".fact-label")?.textContent')).toBe(second);
  });

  it('speaks Chinese, in light and dark', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const { context: zh, page: tab, app: shell } = await openAppTab(browser, bridge.server.url, pageErrors, 'zh-CN', scheme);
      try {
        await shell.go('knowledge');
        expect(await shell.heading()).toBe('知识');
        const zhKnowledge = new KnowledgePage(tab);
        await zhKnowledge.waitForFacts();
        expect(await tab.locator('.segmented[data-name="entity-type"] [role="radio"]').allInnerTexts()).toEqual(['全部（5）', '人物（5）']);
        await zhKnowledge.open(FACTS.xiaolin.label);
        expect(await zhKnowledge.timeline()).toEqual([
          { version: 1, value: expect.stringContaining('断桥'), change: 'first', corrected: false, episode: expect.any(String) },
        ]);
        expect(await tab.locator('.fact-change[data-change="first"]').innerText()).toBe('首次学到');
        await shell.screenshot(screenshotPath(scheme === 'light' ? 'knowledge-zh' : 'knowledge-zh-dark'));
      } finally {
        await zh.close();
      }
    }
  });

  it('adds a fact by hand, under its own kind', async () => {
    await app.go('knowledge');
    await knowledge.waitForFacts();
    await knowledge.add('place', 'Korean barbecue on Mill Street', 'Booked for eight people on Friday 8 March 2024');
    expect(await knowledge.detailValue()).toBe('Booked for eight people on Friday 8 March 2024');
    expect(await knowledge.timeline()).toEqual([
      { version: 1, value: 'Booked for eight people on Friday 8 March 2024', change: 'first', corrected: false, episode: null },
    ]);
    await expect
      .poll(() => page.locator('.segmented[data-name="entity-type"] [role="radio"]').allInnerTexts())
      .toEqual(['All (6)', 'People (5)', 'Places (1)']);
    await knowledge.filter(/^Places/);
    await expect.poll(() => knowledge.labels()).toEqual(['Korean barbecue on Mill Street']);
    expect((await bridge.engine.call('getKnowledge', { key: 'place:Korean barbecue on Mill Street' })).fact.discoveryMethod).toBe('upsert');
  });

  it('pages through a long list as it scrolls', async () => {
    // 60 more facts (the tiny test embedder may merge a near-duplicate or two: the engine's count is the truth).
    const words = 'apple river candle mountain violin pepper harbour lantern meadow copper falcon orchard velvet glacier saffron'.split(
      ' ',
    );
    for (let i = 0; i < 60; i++) {
      await bridge.engine.call('upsertKnowledge', {
        key: `fact:note ${i}`,
        value: `${words[i % 15]} ${words[(i * 7 + 3) % 15]} ${words[(i * 11 + 5) % 15]} number ${i}`,
      });
    }
    const total = (await bridge.engine.call('listKnowledge', { limit: 1000 })).facts.length;
    expect(total).toBeGreaterThan(60);
    await app.go('journal');
    await app.go('knowledge');
    await knowledge.filter(/^All/);
    // One page of 50 first; scrolling to its end brings the rest.
    await expect.poll(() => knowledge.labels().then((l) => l.length)).toBe(50);
    await page.locator('.fact-list-pane').evaluate((el) => (el.scrollTop = el.scrollHeight));
    await expect.poll(() => knowledge.labels().then((l) => l.length)).toBe(total);
    expect(new Set(await knowledge.labels()).size).toBe(total);
    expect(await page.locator('.fact-list-pane .show-more').count()).toBe(0);
  });

  it('raised no script errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
