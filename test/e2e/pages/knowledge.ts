import type { Page } from 'playwright-core';

/** The knowledge section: for now an honest empty state. */
export class KnowledgePage {
  constructor(readonly page: Page) {}

  emptyStateTitle(): Promise<string> {
    return this.page.locator('[data-testid="knowledge-empty"] h2').innerText();
  }
}
