import type { Locator, Page } from 'playwright-core';

/** Settings → Companions: the connected clients with their "may write" switch, each client's entry, the /mcp address. */
export class CompanionsPage {
  readonly section: Locator;
  constructor(readonly page: Page) {
    this.section = page.locator('[data-testid="settings-companions"]');
  }

  heading(): Promise<string> {
    return this.section.locator('h2').innerText();
  }

  /** Picks the client whose entry is shown ("Claude Desktop", "Claude Code", "Cursor", "VS Code"). */
  async chooseClient(name: string): Promise<void> {
    await this.section.locator('.segmented[data-name="companion-client"]').getByRole('radio', { name }).click();
    await this.section.locator('[data-testid="companion-setup"]').waitFor();
  }

  shownClient(): Promise<string | null> {
    return this.section.locator('[data-testid="companion-setup"]').getAttribute('data-client');
  }

  snippet(): Promise<string> {
    return this.section.locator('[data-testid="companion-snippet"]').innerText();
  }

  configFile(): Promise<string> {
    return this.section.locator('[data-testid="companion-file"]').innerText();
  }

  command(): Locator {
    return this.section.locator('[data-testid="companion-command"]');
  }

  /** Presses "Add to <client>"; `addNotice` then says what happened. */
  async add(): Promise<void> {
    await this.section.locator('[data-testid="companion-add"]').click();
  }

  addNotice(): Promise<string> {
    return this.section
      .locator('[data-testid="companion-add-notice"], [data-testid="companion-add-error"]')
      .innerText({ timeout: 1_000 })
      .catch(() => '');
  }

  httpUrl(): Promise<string> {
    return this.section.locator('[data-testid="companions-http-url"]').innerText();
  }

  connected(): Promise<string> {
    return this.section.locator('[data-testid="companions-connected"]').innerText();
  }

  companion(name: string): Locator {
    return this.section.locator(`li.companion[data-companion="${name}"]`);
  }

  lastCall(name: string): Promise<string> {
    return this.companion(name).locator('[data-testid="companion-last"]').innerText();
  }

  mayWrite(name: string): Locator {
    return this.companion(name).getByRole('switch');
  }

  /** Flips the companion's "may write" switch; `accessNotice` then says what it changed. */
  async setMayWrite(name: string, on: boolean): Promise<void> {
    const toggle = this.mayWrite(name);
    if ((await toggle.isChecked()) !== on) await toggle.click();
  }

  accessNotice(): Promise<string> {
    return this.section
      .locator('[data-testid="companions-access-notice"]')
      .innerText({ timeout: 1_000 })
      .catch(() => '');
  }

  /** The whole section: the window grows to hold it for the shot (the screen scrolls inside <main>), then shrinks back. */
  async screenshot(path: string): Promise<void> {
    const size = this.page.viewportSize();
    const height = await this.section.evaluate((el) => el.getBoundingClientRect().height);
    if (size) await this.page.setViewportSize({ width: size.width, height: Math.max(size.height, Math.ceil(height) + 120) });
    try {
      await this.section.scrollIntoViewIfNeeded();
      await this.section.screenshot({ path, animations: 'disabled', caret: 'hide' });
    } finally {
      if (size) await this.page.setViewportSize(size);
    }
  }
}
