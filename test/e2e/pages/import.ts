import type { Page } from 'playwright-core';
import { readProgressTrace, startProgressTrace, type ProgressTrace } from './progress.js';

const TRACE = { key: '__importTrace', section: '[data-testid="import-progress"]', stateAttr: 'data-phase', running: 'importing', stepAttr: 'data-step' };

/** Choosing files, the import's progress, and its report. */
export class ImportPage {
  constructor(readonly page: Page) {}

  async choose(files: string[]): Promise<void> {
    await this.page.locator('[data-testid="import-input"]').setInputFiles(files);
  }

  chosenNames(): Promise<string[]> {
    return this.page.locator('.chosen .file-name').allInnerTexts();
  }

  /**
   * Starts watching the progress section (before the import starts), so a test can check the bar
   * moved through real progress, not only that it ended full.
   */
  traceProgress(): Promise<void> {
    return startProgressTrace(this.page, TRACE);
  }

  /** The phases of the import section (uploading, importing, done), the engine's steps (import, discovery), the bar's values. */
  trace(): Promise<ProgressTrace> {
    return readProgressTrace(this.page, TRACE.key);
  }

  /** The dry run: what the files hold, before anything is stored. */
  async check(): Promise<void> {
    await this.page.locator('[data-testid="import-check"]').click();
    await this.page.locator('[data-testid="import-preview"]').waitFor({ timeout: 120_000 });
  }

  previewSummary(): Promise<string> {
    return this.page.locator('[data-testid="import-preview-summary"]').innerText();
  }

  previewRows(): Promise<string[][]> {
    return this.rows('import-preview');
  }

  async chooseMe(name: string): Promise<void> {
    await this.page.locator('[data-testid="import-me"]').selectOption({ label: name });
  }

  async start(): Promise<void> {
    await this.page.locator('[data-testid="import-start"]').click();
  }

  /** Until the engine reports storing messages (after the upload and the file's validation). */
  async waitUntilStoring(): Promise<void> {
    await this.page.locator('[data-testid="import-progress"][data-phase="importing"][data-step="import"]').waitFor({ timeout: 120_000 });
  }

  /** The Cancel button of the running import. */
  cancelButton() {
    return this.page.locator('[data-testid="import-cancel"]');
  }

  /** After a cancelled import: imports the same files again (only the rest is added). */
  async importRest(): Promise<void> {
    await this.page.locator('[data-testid="import-rest"]').click();
    // The last report goes as the new import starts: what waitUntilDone finds next is the new one.
    await this.page.locator('[data-testid="import-summary"]').waitFor({ state: 'detached' });
  }

  async waitUntilDone(): Promise<void> {
    await this.page.locator('[data-testid="import-summary"]').waitFor({ timeout: 120_000 });
  }

  progressValue(): Promise<string | null> {
    return this.page.locator('[data-testid="import-progress"] [role="progressbar"]').getAttribute('aria-valuenow');
  }

  progressText(): Promise<string> {
    return this.page.locator('[data-testid="import-progress"] .progress-text').innerText();
  }

  summary(): Promise<string> {
    return this.page.locator('[data-testid="import-summary"]').innerText();
  }

  /** What knowledge discovery made of the new episodes, or that it waits for a language model. */
  discovery(): Promise<string> {
    return this.page.locator('[data-testid="import-discovery"]').innerText();
  }

  /** The report table as rows of cell texts: file, format, conversations, messages, new, episodes, participants. */
  reportRows(): Promise<string[][]> {
    return this.rows('import-report');
  }

  private rows(testId: string): Promise<string[][]> {
    return this.page.locator(`[data-testid="${testId}"] tbody tr`).evaluateAll((rows) =>
      rows.map((r) => [...r.querySelectorAll('th, td')].map((c) => (c.firstChild?.textContent ?? c.textContent ?? '').trim())),
    );
  }
}
