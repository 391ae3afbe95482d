import type { Page } from 'playwright-core';

export type Section = 'journal' | 'search' | 'knowledge' | 'import' | 'care' | 'settings';

/** The frame around every screen: the section links, the status line, the current screen. */
export class AppShell {
  constructor(readonly page: Page) {}

  /** Opens the link `nemori web` prints (with the token) and waits for the journal. */
  async open(url: string): Promise<void> {
    await this.page.goto(url);
    await this.page.locator('main[data-screen="journal"] h1').waitFor();
  }

  async go(section: Section): Promise<void> {
    await this.page.locator(`nav a[data-nav="${section}"]`).click();
    await this.page.locator(`main[data-screen="${section}"] h1`).waitFor();
  }

  navLabels(): Promise<string[]> {
    return this.page
      .locator('nav a[data-nav]')
      .allInnerTexts()
      .then((xs) => xs.map((x) => x.replace(/^\S+\s*/, '').trim()));
  }

  heading(): Promise<string> {
    return this.page.locator('main h1').first().innerText();
  }

  /**
   * Hides the text caret and finishes animations, so screenshots show the page, not a moment of it.
   * `whole`: the whole screen, not only what fits the window — the screen scrolls inside <main>, so
   * the window grows to its height for the shot and then shrinks back.
   */
  async screenshot(path: string, o: { whole?: boolean } = {}): Promise<void> {
    const size = this.page.viewportSize();
    if (o.whole && size) {
      const height = await this.page.locator('main').evaluate((m) => m.scrollHeight);
      await this.page.setViewportSize({ width: size.width, height: Math.max(size.height, Math.ceil(height)) });
    }
    try {
      await this.page.screenshot({ path, animations: 'disabled', caret: 'hide' });
    } finally {
      if (o.whole && size) await this.page.setViewportSize(size);
    }
  }
}
