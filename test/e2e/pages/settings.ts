import type { Page } from 'playwright-core';

/** Appearance (language, theme), where the data lives, the embedding model's state. */
export class SettingsPage {
  constructor(readonly page: Page) {}

  async language(name: 'English' | '中文' | 'System' | '跟随系统'): Promise<void> {
    await this.page.locator('.segmented[data-name="language"]').getByRole('radio', { name }).click();
  }

  dataFacts(): Promise<string> {
    return this.page.locator('[data-testid="settings-data"]').innerText();
  }

  embeddingFacts(): Promise<string> {
    return this.page.locator('[data-testid="settings-embedding"]').innerText();
  }

  llmFacts(): Promise<string> {
    return this.page.locator('[data-testid="settings-llm"]').innerText();
  }

  /** Presses "Test connection" and returns what it says. */
  async testLlm(): Promise<string> {
    await this.page.locator('[data-testid="llm-test"]').click();
    return this.page.locator('[data-testid="llm-test-result"]').innerText();
  }
}
