import type { Locator, Page } from 'playwright-core';

/** Memory care: the next forgetting pass (a dry run) with its reasons, the trash and the archive with restore. */
export class MemoryCarePage {
  constructor(readonly page: Page) {}

  /** Previews the pass as of `day` (YYYY-MM-DD) and waits for its plan. */
  async previewAsOf(day: string): Promise<void> {
    await this.page.locator('[data-testid="care-asof"]').fill(day);
    await this.page.locator('[data-testid="care-preview"]').click();
    await this.page.locator('[data-testid="care-plan"][aria-busy="false"] [data-testid="care-plan-summary"]').waitFor();
  }

  planSummary(): Promise<string> {
    return this.page.locator('[data-testid="care-plan-summary"]').innerText();
  }

  /** Each planned move: title, where it would go, and why. */
  plannedMoves(): Promise<{ id: string; to: string; title: string; reason: string }[]> {
    return this.page.locator('[data-testid="care-plan-moves"] .care-item').evaluateAll((items) =>
      items.map((el) => ({
        id: el.getAttribute('data-id') ?? '',
        to: el.getAttribute('data-to') ?? '',
        title: el.querySelector('.care-item-title')?.textContent ?? '',
        reason: el.querySelector('.care-reason')?.textContent ?? '',
      })),
    );
  }

  trashItem(title: string | RegExp): Locator {
    return this.page
      .locator('[data-testid="care-trash-list"] .care-item')
      .filter({ has: this.page.locator('.care-item-title', { hasText: title }) });
  }

  trashTitles(): Promise<string[]> {
    return this.page.locator('[data-testid="care-trash-list"] .care-item-title').allInnerTexts();
  }

  async restoreFromTrash(title: string | RegExp): Promise<void> {
    await this.trashItem(title).locator('[data-action="restore"]').click();
    await this.page.locator('[data-testid="care-notice"]').waitFor();
  }

  notice(): Promise<string> {
    return this.page.locator('[data-testid="care-notice"]').innerText();
  }
}
