/**
 * Settings → Companions and a live conversation, in Chromium against the bridge: each client's entry
 * (the snippet, and "Add to Cursor" merging it into the client's file in a scratch home folder), the
 * /mcp address; a companion connecting over /mcp with the SDK's client is listed with its version and
 * last call, and turning "May write" off makes add_memory refuse it. What it adds shows in the journal
 * as an ongoing entry that grows, and loses the mark when the conversation ends. In English and Chinese.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/engine.js';
import { ensureRendererBuilt, launchChromium, openAppTab, screenshotPath, startFixtureBridge, type FixtureBridge } from './harness.js';
import { AppShell } from './pages/app.js';
import { CompanionsPage } from './pages/companions.js';
import { JournalPage } from './pages/journal.js';
import { SettingsPage } from './pages/settings.js';

type ToolResult = { content: { type: string; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

describe('companions in Chromium', { timeout: 240_000 }, () => {
  // "Add to <client>" writes the client's own file under the home folder: a scratch one here.
  const user = tempDir('nemori-e2e-user-');
  const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
  let bridge: FixtureBridge;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let app: AppShell;
  let companions: CompanionsPage;
  let mcp: Client;
  let conversationId: string;
  const pageErrors: string[] = [];

  const tool = async (name: string, args: Record<string, unknown>) => (await mcp.callTool({ name, arguments: args })) as ToolResult;

  beforeAll(async () => {
    process.env.HOME = user;
    process.env.XDG_CONFIG_HOME = path.join(user, '.config');
    ensureRendererBuilt();
    [bridge, browser] = await Promise.all([startFixtureBridge(), launchChromium()]);
    ({ context, page, app } = await openAppTab(browser, bridge.server.url, pageErrors));
    companions = new CompanionsPage(page);
  }, 240_000);

  afterAll(async () => {
    await mcp?.close();
    await context?.close();
    await browser?.close();
    await bridge?.close();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    fs.rmSync(user, { recursive: true, force: true });
  });

  it("shows each client's entry, adds it to Cursor's file, and gives the /mcp address", async () => {
    await app.go('settings');
    expect(await companions.heading()).toBe('Companions');
    await expect.poll(() => companions.connected()).toContain('No companion has connected yet');
    expect(await companions.shownClient()).toBe('claude-desktop');
    const desktop = JSON.parse(await companions.snippet()) as { mcpServers: { nemori: { command: string; args: string[] } } };
    expect(desktop.mcpServers.nemori.command).toBe(process.execPath);
    expect(desktop.mcpServers.nemori.args.slice(1)).toEqual(['--home', bridge.home, 'mcp']);
    expect(await companions.configFile()).toBe(path.join(user, '.config', 'Claude', 'claude_desktop_config.json'));

    await companions.chooseClient('Claude Code');
    expect(await companions.command().innerText()).toMatch(/^claude mcp add -s user nemori (?:-e \S+ )*-- /);
    await companions.chooseClient('VS Code');
    expect(JSON.parse(await companions.snippet())).toMatchObject({ servers: { nemori: { type: 'stdio' } } });

    await companions.chooseClient('Cursor');
    const cursorFile = path.join(user, '.cursor', 'mcp.json');
    await companions.add();
    await expect.poll(() => companions.addNotice()).toBe(`Created ${cursorFile} with the nemori entry. Restart Cursor to load it.`);
    expect(JSON.parse(fs.readFileSync(cursorFile, 'utf8'))).toEqual({ mcpServers: { nemori: desktop.mcpServers.nemori } });
    fs.writeFileSync(cursorFile, '{\n  // mine\n  "mcpServers": { "other": { "command": "x", "args": [] } }\n}\n');
    await companions.add();
    await expect
      .poll(() => companions.addNotice())
      .toMatch(
        new RegExp(
          `^Added the nemori entry to ${cursorFile}; the previous file is kept as ${cursorFile}\\.\\d{8}T\\d{6}Z\\.bak\\. Restart Cursor to load it\\.$`,
        ),
      );
    expect(fs.readFileSync(cursorFile, 'utf8')).toContain('// mine');

    expect(await companions.httpUrl()).toBe(`${bridge.server.origin}/mcp`);
  });

  it('lists a companion after its first call over /mcp, and refuses its writing once "May write" is off', async () => {
    mcp = new Client({ name: 'pocket-companion', version: '2.4.1' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${bridge.server.origin}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${bridge.server.token}` } },
      }),
    );
    expect((await tool('load_context', { query: 'what did we plan?' })).isError).toBeFalsy();

    await companions.companion('pocket-companion').waitFor({ timeout: 15_000 });
    expect(await companions.companion('pocket-companion').innerText()).toContain('v2.4.1 · over HTTP');
    await expect.poll(() => companions.lastCall('pocket-companion')).toMatch(/^Last call: load_context, now \(.+\) · 1 call$/);
    expect(await companions.mayWrite('pocket-companion').isChecked()).toBe(true);

    await companions.setMayWrite('pocket-companion', false);
    await expect.poll(() => companions.accessNotice()).toBe('pocket-companion may only read now: it is told so when it tries to write.');
    expect((await bridge.engine.call('listCompanions', {})).companions[0]).toMatchObject({ name: 'pocket-companion', canWrite: false });
    const refused = await tool('add_memory', { messages: [{ speaker: 'Ana', role: 'user', text: 'Remember the ferry at six.' }] });
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toContain('Settings → Companions');
    // The list is read again every few seconds while Settings is open.
    await expect
      .poll(() => companions.lastCall('pocket-companion'), { timeout: 10_000 })
      .toMatch(/^Last call: add_memory, now \(.+\) · 2 calls$/);
    await companions.screenshot(screenshotPath('companions-en'));

    await companions.setMayWrite('pocket-companion', true);
    await expect.poll(() => companions.accessNotice()).toBe('pocket-companion may write again.');
  });

  it('reads in Chinese', async () => {
    const settings = new SettingsPage(page);
    await settings.language('中文');
    try {
      // Read afresh, so no English notice of the steps before stays on the page.
      await page.reload();
      await companions.section.waitFor();
      expect(await companions.heading()).toBe('陪伴应用');
      await companions.companion('pocket-companion').waitFor();
      expect(await companions.companion('pocket-companion').innerText()).toContain('允许写入');
      await expect
        .poll(() => companions.lastCall('pocket-companion'), { timeout: 10_000 })
        .toMatch(/^最近一次调用：add_memory，.+（.+）· 共 2 次调用$/);
      await companions.screenshot(screenshotPath('companions-zh'));
    } finally {
      await settings.language('English');
    }
  });

  it('shows the conversation a companion is adding as an ongoing journal entry that grows, until it ends', async () => {
    const first = await tool('add_memory', {
      messages: [
        { speaker: 'Ana', role: 'user', text: 'We are taking the night ferry to the islands on Friday, cabin 12.' },
        { speaker: 'Nemo', role: 'assistant', text: 'A night ferry sounds lovely. Cabin 12 noted; pack something warm for the deck.' },
      ],
    });
    expect(first.isError).toBeFalsy();
    conversationId = first.structuredContent!.conversationId as string;
    await bridge.engine.idle();

    await app.go('journal');
    const journal = new JournalPage(page);
    await journal.waitForEntries();
    const live = page.locator('[data-episode][data-ongoing]');
    await live.waitFor({ timeout: 15_000 });
    expect(await live.count()).toBe(1);
    expect(await live.locator('[data-testid="entry-ongoing"]').innerText()).toBe('ongoing');
    expect(await live.locator('.entry-meta').innerText()).toMatch(/^2 messages/);
    // The newest entry of the journal: today, above the imported days.
    expect(await page.locator('[data-episode]').first().getAttribute('data-ongoing')).not.toBeNull();

    await tool('add_memory', {
      conversation_id: conversationId,
      messages: [
        { speaker: 'Ana', role: 'user', text: 'The ferry leaves at eleven at night from pier 3.' },
        { speaker: 'Nemo', role: 'assistant', text: 'Eleven at night from pier 3: I will remind you on Friday afternoon.' },
      ],
    });
    await bridge.engine.idle();
    // The journal reads its newest entries again while one is ongoing: the entry grows in place.
    await expect
      .poll(() => page.locator('[data-episode][data-ongoing] .entry-meta').innerText(), { timeout: 20_000 })
      .toMatch(/^4 messages/);
    await app.screenshot(screenshotPath('journal-live-en'));

    await bridge.engine.call('endConversation', { conversationId });
    await bridge.engine.idle();
    await expect.poll(() => page.locator('[data-episode][data-ongoing]').count(), { timeout: 20_000 }).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
