import type { Page } from 'playwright-core';

/** One memory: its title, exact time, narrative, source messages and actions. */
export class EpisodePage {
  constructor(readonly page: Page) {}

  title(): Promise<string> {
    return this.page.locator('[data-testid="episode-title"]').innerText();
  }

  span(): Promise<string> {
    return this.page.locator('[data-testid="episode-span"]').innerText();
  }

  async expandMessages(): Promise<void> {
    const details = this.page.locator('[data-testid="episode-messages"]');
    if ((await details.getAttribute('open')) === null) await details.locator('summary').click();
  }

  messageTexts(): Promise<string[]> {
    return this.page.locator('[data-testid="episode-messages"] .message-text').allInnerTexts();
  }

  speakers(): Promise<string[]> {
    return this.page.locator('[data-testid="episode-messages"] .speaker').allInnerTexts();
  }

  action(name: 'important' | 'edit' | 'delete' | 'fade') {
    return this.page.locator(`.episode-actions [data-action="${name}"]`);
  }

  async back(): Promise<void> {
    await this.page.locator('button.back').click();
  }
}
