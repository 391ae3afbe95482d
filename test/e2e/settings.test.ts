/**
 * The settings the engine keeps, in Chromium against the bridge and a real engine on a temporary
 * data folder: knowledge capacity and discovery ("Read them now", without and then with a scripted
 * language model), the import's discovery phase, the forgetting parameters (saved, kept across a
 * reload, a bad pair refused with the engine's reason), a backup written into the data folder, the privacy
 * filter's kinds and an encrypted backup.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLlmServer, type LlmServer } from '../helpers/llm-server.js';
import { scriptHappy, task, twoSessions } from '../llm/script.js';
import { ensureRendererBuilt, launchChromium, openAppTab, screenshotPath, startFixtureBridge, type FixtureBridge } from './harness.js';
import { AppShell } from './pages/app.js';
import { IMPORT_STAGES, ImportPage } from './pages/import.js';
import { SettingsPage } from './pages/settings.js';

describe('settings in Chromium', { timeout: 240_000 }, () => {
  let bridge: FixtureBridge;
  let browser: Browser;
  let page: Page;
  let app: AppShell;
  let settings: SettingsPage;
  let llm: LlmServer | null = null;
  let waiting: number;
  const pageErrors: string[] = [];

  const useLlm = async (on: boolean) => {
    if (on) {
      llm = await startLlmServer();
      // One fact from the fixture's birthday lunch (its own transcript line, not another episode's related memories);
      // the rest (and the two-session import) as scriptHappy has it.
      llm.on(task('semantic-gaps', '12:30 Sam: Mia turns thirty'), {
        json: {
          knowledge_gaps: [
            {
              key: 'person:Mia',
              value: 'Turns thirty on Friday 8 March 2024',
              context: 'Sam booked the Korean barbecue',
              confidence: 0.9,
              messages: [1],
            },
          ],
          relationships: [],
        },
      });
      scriptHappy(llm);
      await bridge.engine.call('setLlmSettings', { enabled: true, model: llm.model, baseUrl: llm.url, timeoutMs: 10_000, maxRetries: 0 });
    } else {
      await bridge.engine.call('setLlmSettings', { enabled: false });
      await llm?.close();
      llm = null;
    }
  };

  beforeAll(async () => {
    ensureRendererBuilt();
    [bridge, browser] = await Promise.all([startFixtureBridge(), launchChromium()]);
    waiting = (await bridge.engine.call('knowledgeCapacity', {})).discoveryQueue.waiting;
    ({ page, app } = await openAppTab(browser, bridge.server.url, pageErrors));
    settings = new SettingsPage(page);
  }, 240_000);

  afterAll(async () => {
    if (llm) await useLlm(false);
    await browser?.close();
    await bridge?.close();
  });

  it('shows the knowledge capacity, its policy and the episodes waiting for discovery', async () => {
    expect(waiting).toBeGreaterThan(0);
    await app.go('settings');
    await expect.poll(() => settings.knowledge('items')).toBe('0 of 10,000 facts');
    expect(await settings.knowledge('tokens')).toBe('0 of 1,000,000 tokens');
    expect(await settings.knowledge('queue')).toBe(`${waiting} episodes wait for discovery`);
    expect(await settings.knowledgeFacts()).toMatch(
      /at least 70% importance, or marked important, are never removed; those under 30% go first/,
    );
    expect(await settings.field('knowledge', 'Most facts').inputValue()).toBe('10000');
  });

  it('without a language model, "Read them now" says nothing was read and leads to the language model section', async () => {
    const said = await settings.readNow();
    expect(said).toContain(`No language model is set up, so nothing was read: ${waiting} episodes wait for knowledge discovery`);
    await page.getByRole('button', { name: 'Set up a language model' }).click();
    expect(await page.evaluate('document.activeElement.name')).toBe('baseUrl');
    expect(await settings.knowledge('queue')).toBe(`${waiting} episodes wait for discovery`);
  });

  it('with a language model, reads the waiting episodes with progress and counts the facts learnt', async () => {
    await useLlm(true);
    await settings.traceDiscovery();
    const said = await settings.readNow();
    expect(said).toBe(`Read ${waiting} episodes: 1 new fact, 0 updated, 0 confirmed again.`);
    const trace = await settings.discoveryTrace();
    expect(trace.phases).toEqual(['running', 'done']);
    expect(trace.values.some((v) => v > 0 && v <= 100)).toBe(true);
    expect(await settings.discoveryProgress().innerText()).toBe(`Done · ${waiting} episodes`);
    await expect.poll(() => settings.knowledge('items')).toBe('1 of 10,000 facts');
    expect(await settings.knowledge('queue')).toBe('every episode has been read');
    expect((await bridge.engine.call('getKnowledge', { key: 'person:Mia' })).fact.value).toBe('Turns thirty on Friday 8 March 2024');
  });

  it("shows the import's discovery phase: its own progress step, then the facts learnt from the new episodes", async () => {
    await app.go('import');
    const imports = new ImportPage(page);
    await imports.choose([twoSessions]);
    await imports.traceProgress();
    await imports.start();
    await imports.waitUntilDone();
    // The stage the others waited on went from storing messages through to discovery, never back.
    const { steps } = await imports.trace();
    expect([steps[0], steps.at(-1)]).toEqual(['import', 'discovery']);
    expect(steps).toEqual([...steps].sort((a, b) => IMPORT_STAGES.indexOf(a) - IMPORT_STAGES.indexOf(b)));
    expect((await imports.stages()).map((s) => [s.name, s.state, s.done === s.total])).toEqual([
      ['Messages stored', 'done', true],
      ['Episodes built', 'done', true],
      ['Embeddings', 'done', true],
      ['Knowledge', 'done', true],
    ]);
    // The Emma fact is learnt from the first episode (and, as scripted, confirmed again by the later ones).
    expect(await imports.discovery()).toMatch(/^Knowledge discovery:\s*Read 3 episodes: 1 new fact, 0 updated, \d+ confirmed again\.$/);
    await expect
      .poll(() => bridge.engine.call('getKnowledge', { key: 'person:Emma' }).then((k) => k.fact.value))
      .toBe('Emma works at the Lisbon aquarium from 1 June 2023');
    await app.screenshot(screenshotPath('import-discovery-en'));
    await useLlm(false);
  });

  it('saves the forgetting parameters, keeps them across a reload, and refuses a bad pair with the reason', async () => {
    await app.go('settings');
    await settings.field('forgetting', 'Archive at decay score').fill('150');
    await settings.field('forgetting', 'Days in the trash').fill('45');
    expect(await settings.save('forgetting')).toEqual({ saved: true, text: 'Saved.' });
    expect((await bridge.engine.call('getEngineSettings', {})).forgetting).toEqual({
      enabled: true,
      archiveThreshold: 150,
      trashThreshold: 500,
      trashRetentionDays: 45,
    });

    await page.reload();
    await page.locator('main[data-screen="settings"] h1').waitFor();
    await expect.poll(() => settings.field('forgetting', 'Archive at decay score').inputValue()).toBe('150');
    expect(await settings.field('forgetting', 'Days in the trash').inputValue()).toBe('45');
    expect(await settings.field('forgetting', 'Trash at decay score').inputValue()).toBe('500');

    // The trash threshold must stay above the archive one: the engine says no, and nothing changes.
    await settings.field('forgetting', 'Archive at decay score').fill('600');
    const refused = await settings.save('forgetting');
    expect(refused.saved).toBe(false);
    expect(refused.text).toMatch(/the trash threshold must be above the archive threshold/);
    expect((await bridge.engine.call('getEngineSettings', {})).forgetting.archiveThreshold).toBe(150);
    expect(await settings.field('forgetting', 'Archive at decay score').inputValue()).toBe('600');
  });

  it('backs the store up into the data folder and says which file and how big', async () => {
    const said = await settings.backUp();
    const match = /^Backed up: (nemori-backup-[\w-]+\.tar\.gz) \((\d+(?:\.\d)? [KMG]?B)\) in (.+)$/.exec(said);
    expect(match, said).not.toBeNull();
    const [, name, , folder] = match!;
    expect(folder).toBe(path.join(bridge.home, 'backups'));
    expect(fs.statSync(path.join(folder!, name!)).size).toBeGreaterThan(0);
    expect(await settings.folderPath()).toBe(bridge.home);
    expect(await settings.embeddingFacts()).toMatch(/nemori-tiny.* — ready/);
    await app.screenshot(screenshotPath('settings-done-en'), { whole: true });
  });

  it('switches the privacy filter kind by kind, writes an encrypted backup and an encrypted export', async () => {
    expect(await settings.field('privacy', 'Replace secrets before storing (recommended)').isChecked()).toBe(true);
    await settings.field('privacy', 'Card numbers (checked with Luhn) and their security codes').uncheck();
    expect(await settings.save('privacy')).toEqual({ saved: true, text: 'Saved.' });
    expect((await bridge.engine.call('getEngineSettings', {})).privacy.kinds).toMatchObject({ 'card-number': false, password: true });
    await settings.field('privacy', 'Card numbers (checked with Luhn) and their security codes').check();
    expect(await settings.save('privacy')).toEqual({ saved: true, text: 'Saved.' });

    const said = await settings.backUp('a passphrase for e2e');
    const name = /^Backed up: (nemori-backup-[\w-]+\.tar\.gz\.enc) /.exec(said)?.[1];
    expect(name, said).toBeDefined();
    const bytes = fs.readFileSync(path.join(bridge.home, 'backups', name!));
    expect(bytes.subarray(0, 14).toString()).toBe('NEMORI-SEALED\n');
    await expect.poll(() => settings.backups().filter({ hasText: 'encrypted' }).count()).toBe(1);

    // Export everything into a folder, sealed with the same passphrase.
    const folder = path.join(bridge.home, '..', 'exports');
    const chooser = page.locator('[data-testid="export-folder"]');
    await chooser.locator('input').fill(folder);
    await chooser.locator('button[type="submit"]').click();
    const exported = await page.locator('[data-testid="backup-notice"]').filter({ hasText: 'Exported' }).innerText({ timeout: 60_000 });
    const file = /^Exported: (.+\.zip\.enc) \(/.exec(exported)?.[1];
    expect(file, exported).toBeDefined();
    expect(path.dirname(file!)).toBe(path.resolve(folder));
    expect(fs.readFileSync(file!).subarray(0, 14).toString()).toBe('NEMORI-SEALED\n');
  });

  it('raised no script errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
