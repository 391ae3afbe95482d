/**
 * Settings that reopen the store, in Chromium against the bridge as `nemori web` runs it (nothing
 * pinned, Settings saved in a temporary startup.json): choosing the embedding model and embedding
 * the episodes again, backing up and restoring, and moving the memory to another folder. A browser
 * tab has no folder dialog, so paths are typed, as a person using `nemori web` would.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eFixture, ensureRendererBuilt, launchChromium, openAppTab, screenshotPath, startAppBridge, type AppBridge } from './harness.js';
import { AppShell } from './pages/app.js';
import { SettingsPage } from './pages/settings.js';

describe('data folder, model and backups from Settings, in Chromium', { timeout: 240_000 }, () => {
  let bridge: AppBridge;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let app: AppShell;
  let settings: SettingsPage;
  const pageErrors: string[] = [];
  const episodes = async () => (await bridge.engine.call('stats', {})).owners.reduce((n, o) => n + o.episodes, 0);

  beforeAll(async () => {
    ensureRendererBuilt();
    [bridge, browser] = await Promise.all([startAppBridge(), launchChromium()]);
    ({ context, page, app } = await openAppTab(browser, bridge.server.url, pageErrors));
    settings = new SettingsPage(page);
    await app.go('settings');
  }, 240_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await bridge?.close();
  });

  it('switches to a model that loads, embeds the episodes again on request, and keeps it when another cannot load', async () => {
    expect(await settings.embeddingFacts()).toMatch(/not available/);
    expect(await settings.useModel('nemori-tiny', { typed: true })).toBe('Now searching with nemori-tiny.');
    const total = await episodes();
    await expect.poll(() => settings.reembedOffer().innerText()).toContain(`${total} episodes have no vectors from this model yet`);
    expect(await settings.embedNow()).toBe(`Embedded ${total} episodes.`);
    await expect.poll(() => settings.embeddingFacts()).toMatch(/nemori-tiny — ready/);
    expect(await settings.reembedOffer().count()).toBe(0);

    const refused = await settings.useModel('Xenova/multilingual-e5-base');
    expect(refused).toMatch(/Xenova\/multilingual-e5-base could not be used .*Nemori keeps nemori-tiny/);
    expect((await bridge.engine.call('health', {})).embedding).toMatchObject({ available: true, modelId: 'nemori-tiny' });
    expect(JSON.parse(fs.readFileSync(bridge.startup.file, 'utf8'))).toMatchObject({ embeddingModel: 'nemori-tiny' });
  });

  it('backs up, lists the backup, and restores it after asking: later memories are gone, the present was saved first', async () => {
    await settings.backUp();
    await expect.poll(() => settings.backups().count()).toBe(1);
    const atBackup = await episodes();
    await bridge.engine.call('importFiles', { paths: [e2eFixture('spring-week.json')] });
    expect(await episodes()).toBeGreaterThan(atBackup);

    await settings.restoreListed(0);
    expect(await settings.flash()).toMatch(
      /^Restored nemori-backup-[\w-]+\.tar\.gz\. What you had before is kept as nemori-backup-[\w-]+\.tar\.gz\.$/,
    );
    expect(await episodes()).toBe(atBackup);
    // The safety copy is listed too: the restore can be undone the same way.
    await expect.poll(() => settings.backups().count()).toBe(2);
    await app.screenshot(screenshotPath('settings-restored-en'), { whole: true });
  });

  it('marks an encrypted backup that may still hold secrets the privacy rules took out since', async () => {
    await bridge.engine.call('addMemory', { messages: [{ speaker: 'Ana', role: 'user', text: 'the door code is DOR-40917' }], end: true });
    const sealed = await bridge.engine.call('backup', { passphrase: 'correct horse battery' });
    await bridge.engine.call('setEngineSettings', { privacy: { patterns: [{ name: 'door code', regex: 'DOR-\\d{5}' }] } });
    await bridge.engine.call('rebuildIndexes', {});
    const marked = async () => (await bridge.engine.call('listBackups', {})).backups.filter((b) => b.mayHoldSecrets).map((b) => b.file);
    await expect.poll(marked).toEqual([sealed.file]);
    // Settings lists the backups again when it is opened.
    await app.go('journal');
    await app.go('settings');
    const note = page.getByTestId('backup-may-hold-secrets');
    await expect.poll(() => note.count()).toBe(1);
    expect(await note.innerText()).toMatch(/^It may still hold secrets that older privacy rules let through/);
    await app.screenshot(screenshotPath('settings-backup-secrets-en'), { whole: true });
  });

  it('moves the memory to an empty folder: the window reopens on it and the old folder is emptied', async () => {
    const from = bridge.startup.home;
    expect(await settings.folderPath()).toBe(from);
    const to = path.join(bridge.root, 'Documents', 'Nemori');
    expect(await settings.chooseFolder(to)).toContain('empty: your memory can move here');
    const before = await episodes();
    await settings.applyFolder('move');
    expect(await settings.flash()).toBe(`Your memory now lives in ${to}.`);
    expect(await settings.folderPath()).toBe(to);
    expect(await episodes()).toBe(before);
    expect(fs.existsSync(path.join(from, 'db'))).toBe(false);
    expect(JSON.parse(fs.readFileSync(bridge.startup.file, 'utf8'))).toMatchObject({ dataDir: to });
  });

  it('watches a folder chosen in Settings → Import: a chat saved there is imported, the window says so and lists its report', async () => {
    const folder = path.join(bridge.root, 'Chat exports');
    fs.mkdirSync(folder);
    expect(await settings.watchFolder(folder)).toBe(`Watching ${folder}`);
    const t0 = Date.parse('2024-06-01T08:00:00+02:00');
    const chat = {
      conversations: [
        {
          id: 'harbour',
          messages: ['The sailing course starts on the first Monday of July', '我报名了帆船课', 'Bring sunscreen and a hat'].map(
            (text, n) => ({
              id: `harbour-${n}`,
              speaker: n % 2 ? 'Lin' : 'Ana',
              text,
              timestamp: new Date(t0 + n * 60_000).toISOString(),
            }),
          ),
        },
      ],
    };
    fs.writeFileSync(path.join(folder, 'sailing.json'), JSON.stringify(chat));
    await expect.poll(() => settings.watchedNotice().innerText(), { timeout: 60_000 }).toContain('sailing.json: 3 new messages');
    await expect.poll(() => settings.watchedRecent().count()).toBe(1);
    expect(await settings.watchedRecent().innerText()).toContain('sailing.json: 3 new messages, 1 episode');
    await app.screenshot(screenshotPath('settings-watched-folder'), { whole: true });
    await settings.stopWatching();
    await expect.poll(() => settings.watchedFolder()).toBe('No folder is watched.');
  });

  it('in Chinese, says why a folder cannot be used and offers nothing', async () => {
    const busy = path.join(bridge.root, '笔记');
    fs.mkdirSync(busy, { recursive: true });
    fs.writeFileSync(path.join(busy, 'notes.txt'), '我的');
    await settings.language('中文');
    const said = await settings.chooseFolder(busy);
    expect(said).toContain('里面有其他文件');
    expect(said).toContain('那个文件夹里有其他文件，却没有 Nemori 记忆');
    expect(await page.locator('[data-testid="settings-folder-move"], [data-testid="settings-folder-open"]').count()).toBe(0);
    await app.screenshot(screenshotPath('settings-folder-zh'), { whole: true });
    await settings.language('English');
  });

  it('raised no script errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
