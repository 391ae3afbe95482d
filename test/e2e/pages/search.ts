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

  /** The lines saying which days a query's periods were read as ("Looked first at “last week”: …"). */
  periods(): Promise<string[]> {
    return this.page.locator('[data-testid="search-period"]').allInnerTexts();
  }

  /** Keeps to episodes whose conversations came from `source` (a format id, `api`, a companion's name; '' = all). */
  async source(source: string): Promise<void> {
    await this.page.locator('[data-testid="search-source"]').selectOption(source);
    await this.page.locator(`.results[aria-busy="false"]`).waitFor();
  }

  /** The source filter's choices as the person reads them. */
  sourceOptions(): Promise<string[]> {
    return this.page.locator('[data-testid="search-source"] option').allInnerTexts();
  }

  /** The note under the filters (e.g. that only episodes are searched), or null. */
  async note(): Promise<string | null> {
    const note = this.page.locator('.search-note');
    return (await note.count()) ? note.innerText() : null;
  }

  /** The ids of the episodes found, in rank order. */
  episodeIds(): Promise<string[]> {
    return this.page.locator('.result[data-kind="episode"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-episode') ?? ''));
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
