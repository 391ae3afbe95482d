/**
 * Cancelling an import, and searching by where conversations came from, in Chromium against the
 * bridge and a real engine: a long import stopped with its Cancel button and with Esc keeps whole
 * conversations, says so, and importing again adds only the rest; the Search screen's source filter
 * keeps to episodes from one source (the fixture's Nemori JSON files, or a companion feeding the API).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manyConversationsFile } from '../helpers/engine.js';
import { ensureRendererBuilt, launchChromium, openAppTab, screenshotPath, startFixtureBridge, type FixtureBridge } from './harness.js';
import { AppShell } from './pages/app.js';
import { ImportPage } from './pages/import.js';
import { SearchPage } from './pages/search.js';

/** Conversations of 5 messages each: about ten seconds of importing here, so there is time to cancel. */
const CONVERSATIONS = 200;
const MESSAGES = CONVERSATIONS * 5;

describe('cancelling an import and searching by source in Chromium', { timeout: 240_000 }, () => {
  let bridge: FixtureBridge;
  let browser: Browser;
  let page: Page;
  let app: AppShell;
  const pageErrors: string[] = [];
  /** Messages stored before the big file's first import. */
  let baseline = 0;

  const storedMessages = async () => (await bridge.engine.call('stats', {})).owners[0]!.messages;

  beforeAll(async () => {
    ensureRendererBuilt();
    [bridge, browser] = await Promise.all([startFixtureBridge(), launchChromium()]);
    // A second source next to the fixture's Nemori JSON files: a companion app talking through the API.
    await bridge.engine.call('ingestConversation', {
      source: 'companion',
      conversation: {
        id: 'companion-1',
        messages: [
          {
            speaker: 'Sam',
            text: 'The robotics startup in Zurich called back about the interview: the offer comes on Monday.',
            timestamp: '2024-03-20T18:00:00+01:00',
          },
          {
            speaker: 'Companion',
            role: 'assistant',
            text: 'Congratulations on the Zurich interview!',
            timestamp: '2024-03-20T18:01:00+01:00',
          },
        ],
      },
    });
    ({ page, app } = await openAppTab(browser, bridge.server.url, pageErrors));
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await bridge?.close();
  });

  it('keeps search to episodes from the chosen source', async () => {
    const fromCompanion = new Set((await bridge.engine.call('listEpisodes', { importSources: ['companion'] })).episodes.map((e) => e.id));
    expect(fromCompanion.size).toBeGreaterThan(0);

    await app.go('search');
    const search = new SearchPage(page);
    // The sources arrive with the page's own request for them: read once they are there.
    await expect.poll(() => search.sourceOptions()).toEqual(['All sources', 'Nemori JSON (6)', 'companion (1)']);
    await search.search('Zurich interview');
    const everywhere = await search.episodeIds();
    expect(everywhere.some((id) => fromCompanion.has(id))).toBe(true);
    expect(everywhere.some((id) => !fromCompanion.has(id))).toBe(true);

    await search.source('companion');
    await expect.poll(() => search.episodeIds()).toEqual([...fromCompanion]);
    // Like a date, a source describes episodes: with it, "All" searches episodes only, and says so.
    expect(await search.note()).toBe('With a date or a source set, only episodes are searched.');
    expect(await search.kinds()).not.toContain('semantic');
    await app.screenshot(screenshotPath('search-source-en'));

    await search.source('nemori-json');
    await expect.poll(() => search.episodeIds().then((ids) => ids.length > 0 && ids.every((id) => !fromCompanion.has(id)))).toBe(true);
    await search.source('');
    expect(await search.note()).toBeNull();
  });

  it('cancels an import with its button: whole conversations stay, fewer messages than the file holds', async () => {
    baseline = await storedMessages();
    await app.go('import');
    const imports = new ImportPage(page);
    await imports.choose([manyConversationsFile(CONVERSATIONS)]);
    await imports.start();
    await imports.waitUntilStoring();
    // The button that started the import is gone: focus is on Cancel, so the keyboard can reach it at once.
    await expect.poll(() => page.locator('[data-testid="import-cancel"]:focus').count()).toBe(1);
    await imports.cancelButton().click();
    await imports.waitUntilDone();

    const summary = await imports.summary();
    const match =
      /^Import cancelled: (\d+) new messages were stored, in \d+ new episodes\. Importing the same file again continues where it stopped\./.exec(
        summary,
      );
    expect(match, summary).not.toBeNull();
    const stored = Number(match![1]);
    expect(stored).toBeGreaterThan(0);
    expect(stored).toBeLessThan(MESSAGES);
    expect(stored % 5).toBe(0); // whole conversations only
    expect((await storedMessages()) - baseline).toBe(stored);
    // The bars stay where the engine last said the import was (its last event may still be on the way).
    expect(await imports.status()).toBe('Cancelled');
    const [storedBar] = await imports.stages();
    expect(storedBar).toMatchObject({
      stage: 'import',
      state: 'current',
      total: MESSAGES,
      text: expect.stringMatching(/^\d+ of 1,000 messages$/),
    });
    expect(storedBar!.done).toBeLessThanOrEqual(stored);
    expect(await imports.reportRows().then((rows) => rows[0]![4])).toBe(String(stored));
    await app.screenshot(screenshotPath('import-cancelled-en'));
  });

  it('cancels the next run with Esc, then imports the rest to completion', async () => {
    const before = await storedMessages();
    const imports = new ImportPage(page);
    await imports.importRest();
    await imports.waitUntilStoring();
    await page.keyboard.press('Escape');
    await imports.waitUntilDone();
    const again = Number(/^Import cancelled: (\d+) new messages/.exec(await imports.summary())?.[1]);
    expect((await storedMessages()) - before).toBe(again);

    await imports.importRest();
    await imports.waitUntilDone();
    const rest = Number(/^Imported (\d+) new messages? from 1 file into/.exec(await imports.summary())?.[1]);
    expect(rest).toBeGreaterThan(0);
    expect(await imports.status()).toBe('Done');
    expect((await imports.stages()).map((s) => [s.stage, s.state, s.done === s.total])).toEqual([
      ['import', 'done', true],
      ['episodes', 'done', true],
      ['embeddings', 'done', true],
    ]);
    // Every message of the file is stored once: what the cancelled runs left, the last one added.
    expect((await storedMessages()) - before).toBe(again + rest);
    expect(await storedMessages()).toBe(baseline + MESSAGES);
    const fromFiles = (await bridge.engine.call('stats', {})).owners[0]!.sources.find((s) => s.source === 'nemori-json');
    expect(fromFiles?.conversations).toBe(6 + CONVERSATIONS);
  });

  it('raised no script errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
