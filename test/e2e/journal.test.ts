/**
 * The journal viewer in a real browser (Debian's Chromium) against the HTTP bridge and a real
 * engine holding the fixture store: what a person sees and does, in English and in Chinese.
 * Screenshots of every screen in both languages go to test-artifacts/screenshots/.
 *
 * Needs the built renderer: `npm run build` (done by .ci/run), or the suite builds it when stale.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, tempDir } from '../helpers/engine.js';
import { writeClubExport } from './generated.js';
import { ensureRendererBuilt, launchChromium, openAppTab, screenshotPath, startFixtureBridge, type FixtureBridge } from './harness.js';
import { AppShell } from './pages/app.js';
import { EpisodePage } from './pages/episode.js';
import { IMPORT_STAGES, ImportPage } from './pages/import.js';
import { JournalPage } from './pages/journal.js';
import { KnowledgePage } from './pages/knowledge.js';
import { SearchPage } from './pages/search.js';
import { SettingsPage } from './pages/settings.js';

const FIXTURE_DAYS = ['2024-03-09', '2024-03-05', '2024-03-01', '2023-06-12', '2023-05-08'];

describe('the journal viewer in Chromium', { timeout: 240_000 }, () => {
  let bridge: FixtureBridge;
  let browser: Browser;
  let page: Page;
  let app: AppShell;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    ensureRendererBuilt();
    [bridge, browser] = await Promise.all([startFixtureBridge(), launchChromium()]);
    ({ page, app } = await openAppTab(browser, bridge.server.url, pageErrors));
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await bridge?.close();
  });

  it('keeps the token out of the address bar', () => {
    expect(page.url()).not.toContain('token');
    expect(page.url()).toMatch(/#\/journal$/);
  });

  it('shows the imported days newest first, each with its entries', async () => {
    const journal = new JournalPage(page);
    await journal.waitForEntries();
    expect(await journal.dayKeys()).toEqual(FIXTURE_DAYS);
    const names = await journal.dayNames();
    expect(names[0]).toBe('Saturday, March 9, 2024');
    expect(names).toContain('Tuesday, March 5, 2024');
    // The heat-map opens on the newest month and marks the days that hold memories.
    expect(await journal.calendarDay('2024-03-05').getAttribute('data-level')).not.toBe('0');
    expect(await journal.calendarDay('2024-03-04').getAttribute('data-level')).toBe('0');
    await app.screenshot(screenshotPath('journal-en'));
  });

  it('jumps through months from the calendar', async () => {
    const journal = new JournalPage(page);
    await journal.calendarDay('2024-03-01').click();
    await page.locator('.jumped').waitFor();
    await expect.poll(() => journal.dayNames().then((d) => d[0])).toBe('Friday, March 1, 2024');
    await page.locator('.jumped button').click();
    await expect.poll(() => journal.dayNames().then((d) => d[0])).toBe('Saturday, March 9, 2024');
  });

  it('opens an episode with its exact time and its source messages', async () => {
    await new JournalPage(page).openEntry(/cousin|Zurich|interview|robotics/i);
    const episode = new EpisodePage(page);
    expect(await episode.span()).toContain('09:15 – 09:21 · UTC+01:00');
    await episode.expandMessages();
    expect(await episode.speakers()).toEqual(['Sam', 'Lena', 'Sam']);
    expect((await episode.messageTexts())[0]).toBe('The robotics startup in Zurich invited me for a second interview next Thursday.');
    expect(await page.locator('[data-testid="recall-count"]').innerText()).toMatch(/once|\d+ times/);
    await app.screenshot(screenshotPath('episode-en'));
  });

  it('moves through the journal with the keyboard: arrows, Enter, Escape', async () => {
    await page.keyboard.press('Escape');
    const journal = new JournalPage(page);
    await journal.list.waitFor();
    await journal.list.focus();
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowDown');
    const active = await page.locator('[role="option"][aria-selected="true"] .entry-title').innerText();
    await page.keyboard.press('Enter');
    await expect.poll(() => new EpisodePage(page).title()).toContain(active.replace(/^★\s*/, ''));
    await page.keyboard.press('Escape');
    await page.locator('main[data-screen="journal"]').waitFor();
  });

  it('marks an episode important and shows it in the journal', async () => {
    const journal = new JournalPage(page);
    await journal.openEntry(/Lisbon|Emma|aquarium/i);
    const episode = new EpisodePage(page);
    await episode.action('important').click();
    await expect.poll(() => episode.action('important').getAttribute('aria-pressed')).toBe('true');
    await episode.back();
    await expect
      .poll(() =>
        journal
          .entry(/Lisbon|Emma|aquarium/i)
          .locator('.entry-star')
          .count(),
      )
      .toBe(1);
  });

  it('finds an English and a Chinese memory, says why, and opens the result', async () => {
    await app.go('search');
    const search = new SearchPage(page);
    await search.search('interview in Zurich');
    const english = await search.resultTitles();
    expect(english.length).toBeGreaterThan(0);
    expect((await search.explanations())[0]).toMatch(/matched by/);
    expect((await search.highlighted()).map((w) => w.toLowerCase())).toEqual(expect.arrayContaining(['zurich']));
    await app.screenshot(screenshotPath('search-en'));
    expect(await search.periods()).toEqual([]);

    // A period the query names is read and said, and what it holds comes first.
    await search.search('interview in March 2024');
    expect(await search.periods()).toEqual(['Looked first at March 2024']);
    expect((await search.explanations())[0]).toMatch(/^matched by .*, and around “March 2024”$/);
    await app.screenshot(screenshotPath('search-period-en'));

    await search.search('西湖');
    const chinese = await search.resultTitles();
    expect(chinese[0]).toContain('西湖');
    expect(await search.highlighted()).toContain('西湖');
    await search.open(/西湖/);
    await new EpisodePage(page).expandMessages();
    expect((await new EpisodePage(page).messageTexts()).join('\n')).toContain('杭州西湖骑自行车');
  });

  it('previews files, asks who "me" is, then imports with progress to completion and a report per file', async () => {
    await app.go('import');
    const dir = tempDir('nemori-e2e-upload-');
    const club = writeClubExport(dir);
    const whatsapp = fixture('ingest', 'whatsapp', 'WhatsApp Chat with Emma.txt');
    const imports = new ImportPage(page);
    await imports.choose([club.file, whatsapp]);
    expect(await imports.chosenNames()).toEqual(['garden-club.json', 'WhatsApp Chat with Emma.txt']);

    await imports.check();
    const preview = await imports.previewRows();
    expect(preview.map((r) => r.slice(0, 4))).toEqual([
      ['garden-club.json', 'json', '30', String(club.messages)],
      ['WhatsApp Chat with Emma.txt', 'whatsapp', '1', expect.stringMatching(/^\d+$/)],
    ]);
    expect(preview[0]![4]).toBe('2024-04-01 – 2024-04-30');
    expect(await imports.previewSummary()).toMatch(/Nothing is stored until you import/);
    await imports.chooseMe('Sam');
    await app.screenshot(screenshotPath('import-preview-en'));
    // A preview stores nothing.
    expect((await bridge.engine.call('stats', {})).owners[0]?.messages).toBe(20);

    await imports.traceProgress();
    await imports.start();
    await imports.waitUntilDone();

    const trace = await imports.trace();
    expect(trace.phases).toEqual(expect.arrayContaining(['importing', 'done']));
    // The bars showed the engine's own progress (not only a jump to the end), stage after stage.
    expect(trace.values.some((v) => v > 0 && v <= 100)).toBe(true);
    expect(trace.steps[0]).toBe('import');
    expect(trace.steps).toEqual([...trace.steps].sort((a, b) => IMPORT_STAGES.indexOf(a) - IMPORT_STAGES.indexOf(b)));
    expect(await imports.status()).toBe('Done');
    // No language model here: no knowledge stage; the tiny embedding model embeds every episode.
    const stages = await imports.stages();
    expect(stages.map((s) => [s.name, s.state, s.value])).toEqual([
      ['Messages stored', 'done', '100'],
      ['Episodes built', 'done', '100'],
      ['Embeddings', 'done', '100'],
    ]);
    // Totals over both files, reached also for the WhatsApp chat the store already held.
    const messages = club.messages + Number(preview[1]![3]);
    const [stored, built, embedded] = stages;
    expect(stored).toMatchObject({ done: messages, total: messages, text: `${messages} of ${messages} messages` });
    expect(built).toMatchObject({
      done: messages,
      total: messages,
      text: expect.stringMatching(new RegExp(`^${messages} of ${messages} messages · \\d+ episodes$`)),
    });
    expect(embedded!.done).toBe(embedded!.total);
    expect(embedded!.total).toBeGreaterThan(0);
    expect(embedded!.text).toBe(`${embedded!.done} of ${embedded!.total} episodes`);

    const rows = await imports.reportRows();
    expect(rows).toHaveLength(2);
    expect(rows[0]!.slice(0, 5)).toEqual(['garden-club.json', 'json', '30', String(club.messages), String(club.messages)]);
    expect(rows[1]!.slice(0, 2)).toEqual(['WhatsApp Chat with Emma.txt', 'whatsapp']);
    expect(await imports.summary()).toMatch(/^Imported \d+ new messages from 2 files into \d+ new episodes\./);
    // No language model here: the facts in the new episodes wait for one.
    expect(await imports.discovery()).toMatch(/^Knowledge discovery:\s*no facts learnt yet\. It needs a language model/);
    await app.screenshot(screenshotPath('import-en'));

    await page.getByRole('button', { name: 'Open the journal' }).click();
    const journal = new JournalPage(page);
    await expect.poll(() => journal.dayNames().then((d) => d[0])).toBe('Tuesday, April 30, 2024');
  });

  it('shows settings and an honest knowledge page', async () => {
    await app.go('settings');
    const settings = new SettingsPage(page);
    await expect.poll(() => settings.folderPath()).toBe(bridge.home);
    expect(await settings.embeddingFacts()).toContain('nemori-tiny');
    await expect.poll(() => settings.knowledge('queue')).toMatch(/^\d+ episodes wait for discovery$/);
    await app.screenshot(screenshotPath('settings-en'), { whole: true });
    // No language model in the fixture: the section says so, and the test reports it plainly.
    expect(await settings.llmFacts()).toMatch(/Status\s+off/);
    expect(await settings.testLlm()).toBe('No language model is set up yet.');
    await page.locator('#s-llm').evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await app.screenshot(screenshotPath('settings-llm-en'));

    await app.go('knowledge');
    expect(await new KnowledgePage(page).emptyStateTitle()).toBe('Nothing learnt yet');
    await app.screenshot(screenshotPath('knowledge-empty-en'));
  });

  it('switches the whole interface to Chinese', async () => {
    await app.go('settings');
    const settings = new SettingsPage(page);
    await settings.language('中文');
    await expect.poll(() => app.navLabels()).toEqual(['日记', '搜索', '知识', '导入', '记忆养护', '设置']);
    expect(await page.locator('html').getAttribute('lang')).toBe('zh-CN');
    await expect.poll(() => settings.knowledge('items')).toBe('0 / 10,000 条事实');
    await app.screenshot(screenshotPath('settings-zh'), { whole: true });

    await app.go('journal');
    const journal = new JournalPage(page);
    await journal.waitForEntries();
    expect(await app.heading()).toBe('日记');
    expect(await journal.dayNames()).toContain('2024年4月30日星期二');
    await journal.jumpToDay('2024-03-09');
    await expect.poll(() => journal.dayNames().then((d) => d[0])).toBe('2024年3月9日星期六');
    await app.screenshot(screenshotPath('journal-zh'));

    await journal.openEntry(/小林|西湖/);
    await new EpisodePage(page).expandMessages();
    await app.screenshot(screenshotPath('episode-zh'));

    await app.go('search');
    const search = new SearchPage(page);
    await search.search('龙井 自行车');
    expect((await search.resultTitles())[0]).toContain('西湖');
    expect(await page.locator('[data-testid="results-count"]').innerText()).toMatch(/段记忆/);
    // Why it matched, in Chinese too: the words it shares with the query, and how close in meaning.
    expect((await search.explanations())[0]).toMatch(/^命中字词 “龙井”.*（BM25 [\d.]+）；含义相近（相似度 [\d.]+）$/);
    await app.screenshot(screenshotPath('search-zh'));

    await app.go('import');
    const imports = new ImportPage(page);
    await imports.choose([fixture('ingest', 'whatsapp', '与小明的 WhatsApp 聊天.txt')]);
    await imports.traceProgress();
    await imports.start(); // straight away, without the preview
    await imports.waitUntilDone();
    expect(await imports.summary()).toMatch(/^从 1 个文件导入了 \d+ 条新消息/);
    expect(await imports.discovery()).toMatch(/^知识发现：还没有学到事实。它需要语言模型/);
    expect((await imports.trace()).phases).toEqual(expect.arrayContaining(['uploading', 'importing', 'done']));
    expect(await imports.status()).toBe('完成');
    const stages = await imports.stages();
    expect(stages.map((s) => [s.name, s.state, s.value])).toEqual([
      ['存入消息', 'done', '100'],
      ['生成片段', 'done', '100'],
      ['向量化', 'done', '100'],
    ]);
    expect(stages[0]!.text).toMatch(/^(\d+)\/\1 条消息$/);
    await app.screenshot(screenshotPath('import-zh'));

    await app.go('knowledge');
    expect(await new KnowledgePage(page).emptyStateTitle()).toBe('还没有学到什么');
    await app.screenshot(screenshotPath('knowledge-empty-zh'));

    await app.go('settings');
    await new SettingsPage(page).language('English');
    await expect.poll(() => app.navLabels()).toEqual(['Journal', 'Search', 'Knowledge', 'Import', 'Memory care', 'Settings']);
  });

  it('follows the browser language and dark mode on first start', async () => {
    const { context: zh, page: tab, app: shell } = await openAppTab(browser, bridge.server.url, pageErrors, 'zh-CN', 'dark');
    try {
      expect(await shell.navLabels()).toEqual(['日记', '搜索', '知识', '导入', '记忆养护', '设置']);
      await new JournalPage(tab).waitForEntries();
      const background = await tab.evaluate('getComputedStyle(document.body).backgroundColor');
      expect(background).toBe('rgb(27, 26, 23)');
      await shell.screenshot(screenshotPath('journal-zh-dark'));
    } finally {
      await zh.close();
    }
  });

  it('deletes an episode only after confirmation', async () => {
    await app.go('journal');
    const journal = new JournalPage(page);
    await journal.jumpToDay('2024-03-05');
    await journal.openEntry(/钢琴|王老师/);
    const episode = new EpisodePage(page);
    await episode.action('delete').click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    expect(await episode.title()).toMatch(/王老师|钢琴/);
    await episode.action('delete').click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.locator('main[data-screen="journal"]').waitFor();
    await expect.poll(() => journal.entry(/钢琴|王老师/).count()).toBe(0);
  });

  it('says which day/month order it guessed for a WhatsApp chat whose dates read either way, and reads them the other way when told', async () => {
    await app.go('import');
    const file = path.join(tempDir('nemori-e2e-order-'), 'WhatsApp Chat with Sam.txt');
    fs.writeFileSync(file, '[03/04/2024, 10:00:00] Sam: The meeting moved to the small room\n[05/04/2024, 11:00:00] Kim: 好的\n');
    const imports = new ImportPage(page);
    await imports.choose([file]);
    await imports.check();
    const guessed = await imports.dateOrder();
    expect(await page.locator('label:has([data-testid="import-date-order"])').innerText()).toMatch(/could be day or month first/);
    const span = { dmy: '2024-04-03 – 2024-04-05', mdy: '2024-03-04 – 2024-05-04' };
    expect((await imports.previewRows())[0]![4]).toBe(span[guessed]);
    const other = guessed === 'dmy' ? 'mdy' : 'dmy';
    await imports.setDateOrder(other);
    await expect.poll(async () => (await imports.previewRows())[0]![4]).toBe(span[other]);
    expect(await imports.dateOrder()).toBe(other);
    await app.screenshot(screenshotPath('import-date-order-en'));
    await page.getByRole('button', { name: 'Remove WhatsApp Chat with Sam.txt' }).click();
  });

  it('raised no script errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
