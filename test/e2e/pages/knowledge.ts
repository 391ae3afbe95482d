import type { Locator, Page } from 'playwright-core';

export interface TimelineRow {
  version: number;
  value: string;
  /** first · updates · corrects */
  change: string;
  corrected: boolean;
  episode: string | null;
}

/** Matches a whole label, not a part of it ("Mia" is not "Mia's allergy"), with or without the star of an important fact. */
const exactly = (text: string) => new RegExp(`^(★\\s*)?${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
const unstarred = (labels: string[]) => labels.map((l) => l.replace(/^★\s*/, ''));

/** The knowledge section: facts by kind, one fact's history and sources, correcting and forgetting. */
export class KnowledgePage {
  readonly list: Locator;
  readonly detail: Locator;
  constructor(readonly page: Page) {
    this.list = page.locator('[data-testid="fact-list"]');
    this.detail = page.locator('[data-testid="fact-detail"]');
  }

  emptyStateTitle(): Promise<string> {
    return this.page.locator('[data-testid="knowledge-empty"] h2').innerText();
  }

  async waitForFacts(): Promise<void> {
    await this.list.locator('.fact-card').first().waitFor();
  }

  labels(): Promise<string[]> {
    return this.list.locator('.fact-label').allInnerTexts().then(unstarred);
  }

  /** Whether the fact's line shows the star of an important fact. */
  starred(label: string): Promise<boolean> {
    return this.card(label)
      .locator('.entry-star')
      .count()
      .then((n) => n > 0);
  }

  card(label: string): Locator {
    return this.list.locator('.fact-card').filter({ has: this.page.locator('.fact-label', { hasText: exactly(label) }) });
  }

  version(label: string): Promise<string> {
    return this.card(label).locator('[data-testid="fact-version"]').innerText();
  }

  /** Picks an entity type in the filter ("People (3)" → by its name). */
  async filter(name: string | RegExp): Promise<void> {
    await this.page.locator('.segmented[data-name="entity-type"]').getByRole('radio', { name }).click();
  }

  async open(label: string): Promise<void> {
    await this.card(label).click();
    await this.waitForDetail(label);
  }

  async waitForDetail(label: string): Promise<void> {
    await this.page.locator('[data-testid="fact-label"]', { hasText: exactly(label) }).waitFor();
  }

  detailLabel(): Promise<string> {
    return this.page.locator('[data-testid="fact-label"]').innerText();
  }

  detailValue(): Promise<string> {
    return this.page.locator('[data-testid="fact-value"]').innerText();
  }

  timeline(): Promise<TimelineRow[]> {
    return this.page.locator('[data-testid="fact-timeline"] > li').evaluateAll((rows) =>
      rows.map((li) => ({
        version: Number(li.getAttribute('data-version')),
        value: li.querySelector('.fact-version-value')?.textContent ?? '',
        change: li.getAttribute('data-link') ?? '',
        corrected: li.hasAttribute('data-corrected') && li.querySelector('.fact-version-value del') !== null,
        episode: li.querySelector('.episode-link-title')?.textContent ?? null,
      })),
    );
  }

  episodeTitles(list: 'linked-episodes' | 'evolution-episodes'): Promise<string[]> {
    return this.page.locator(`[data-testid="${list}"] .episode-link-title`).allInnerTexts();
  }

  related(which: 'direct' | 'indirect'): Promise<string[]> {
    return this.page.locator(`[data-testid="related-${which}"] .fact-label`).allInnerTexts().then(unstarred);
  }

  relatedNote(label: string): Promise<string> {
    return this.page
      .locator('[data-testid="fact-related"] .fact-card')
      .filter({ has: this.page.locator('.fact-label', { hasText: exactly(label) }) })
      .locator('.fact-note')
      .innerText();
  }

  async sources(): Promise<string[]> {
    const details = this.page.locator('[data-testid="fact-sources"]');
    if ((await details.getAttribute('open')) === null) await details.locator('summary').click();
    return details.locator('.message-text').allInnerTexts();
  }

  action(name: 'correct' | 'forget' | 'restore' | 'important' | 'fade'): Locator {
    return this.detail.locator(`[data-action="${name}"]`);
  }

  /** Corrects the open fact through its form and waits for the new history. */
  async correct(value: string): Promise<void> {
    await this.action('correct').click();
    await this.page.locator('[data-testid="fact-correct-form"] textarea').fill(value);
    await this.page.locator('[data-testid="fact-correct-form"] button[type="submit"]').click();
    await this.page.locator('[data-testid="fact-notice"]').waitFor();
  }

  /** Adds a fact through the "Add a fact" form and waits for it to open. */
  async add(kind: string, about: string, value: string): Promise<void> {
    await this.page.locator('[data-action="add"]').first().click();
    const form = this.page.locator('[data-testid="fact-add-form"]');
    await form.locator('input').first().fill(kind);
    await form.locator('[data-field="name"]').fill(about);
    await form.locator('[data-field="value"]').fill(value);
    await form.locator('button[type="submit"]').click();
    await this.waitForDetail(about);
  }

  async forget(): Promise<void> {
    await this.action('forget').click();
    await this.page.locator('[data-testid="knowledge-notice"] [data-action="undo"]').waitFor();
  }

  async undo(): Promise<void> {
    await this.page.locator('[data-testid="knowledge-notice"] [data-action="undo"]').click();
  }

  notice(): Promise<string> {
    return this.page.locator('[data-testid="knowledge-notice"]').innerText();
  }
}
