import type { Page } from 'playwright-core';

/** The search box with its mode and filters, and the results with why each matched. */
export class SearchPage {
  constructor(readonly page: Page) {}

  async search(query: string): Promise<void> {
    const input = this.page.locator('#search-input');
    await input.fill(query);
    await input.press('Enter');
    await this.page.locator(`.results[aria-busy="false"]`).waitFor();
    await this.page.locator('.result, .no-results').first().waitFor();
  }

  resultTitles(): Promise<string[]> {
    return this.page.locator('.result-title').allInnerTexts();
  }

  /** The words marked in the results (the engine's matched terms). */
  highlighted(): Promise<string[]> {
    return this.page.locator('.result mark').allInnerTexts();
  }

  explanations(): Promise<string[]> {
    return this.page.locator('.result .explanation').allInnerTexts();
  }

  async mode(label: string): Promise<void> {
    await this.page.getByRole('radio', { name: label }).click();
  }

  /** All, Episodes or Facts (or their Chinese names). */
  async kind(label: string): Promise<void> {
    await this.page.locator('.segmented[data-name="kind"]').getByRole('radio', { name: label, exact: true }).click();
  }

  /** Each result's kind, in rank order: 'episode' or 'semantic'. */
  kinds(): Promise<string[]> {
    return this.page.locator('.result').evaluateAll((els) => els.map((e) => e.getAttribute('data-kind') ?? ''));
  }

  fact(label: string | RegExp) {
    return this.page.locator('.result[data-kind="semantic"]').filter({ hasText: label }).first();
  }

  async openFact(label: string | RegExp): Promise<void> {
    await this.fact(label).locator('.result-link').click();
    await this.page.locator('[data-testid="fact-detail"][data-fact]').waitFor();
  }

  async open(title: string | RegExp): Promise<void> {
    await this.page.locator('.result-link').filter({ hasText: title }).first().click();
    await this.page.locator('[data-testid="episode-title"]').waitFor();
  }
}
