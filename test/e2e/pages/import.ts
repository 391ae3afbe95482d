import type { Page } from 'playwright-core';
import { readProgressTrace, startProgressTrace, type ProgressTrace } from './progress.js';

/** One stage bar of the import: what it counts, where it stands, and what it says. */
export interface ImportStageView {
  stage: string;
  name: string;
  /** done | current | pending */
  state: string;
  done: number | null;
  total: number | null;
  /** aria-valuenow of its bar (percent). */
  value: string | null;
  text: string;
}

/** The stages in the order the engine works through them (core/api/handlers/import-progress.ts). */
export const IMPORT_STAGES = ['import', 'episodes', 'embeddings', 'discovery'];

const TRACE = {
  key: '__importTrace',
  section: '[data-testid="import-progress"]',
  stateAttr: 'data-phase',
  running: 'importing',
  stepAttr: 'data-step',
};

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

  /**
   * The phases of the import section (uploading, importing, done), the stage the others waited on
   * (import, episodes, embeddings, discovery), and the first bar's values (messages stored).
   */
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

  /** The day/month order the preview read WhatsApp dates in (shown where the file does not settle it). */
  async dateOrder(): Promise<'dmy' | 'mdy'> {
    return (await this.page.locator('[data-testid="import-date-order"]').inputValue()) === 'mdy' ? 'mdy' : 'dmy';
  }

  /** Reads the files again with the other order: a new preview. */
  async setDateOrder(order: 'dmy' | 'mdy'): Promise<void> {
    await this.page.locator('[data-testid="import-date-order"]').selectOption(order);
  }

  async chooseMe(name: string): Promise<void> {
    await this.page.locator('[data-testid="import-me"]').selectOption({ label: name });
  }

  async start(): Promise<void> {
    await this.page.locator('[data-testid="import-start"]').click();
  }

  /** Until the engine has stored some messages (after the upload and the files' validation). */
  async waitUntilStoring(): Promise<void> {
    await this.page
      .locator(
        '[data-testid="import-progress"][data-phase="importing"][data-step="import"] [data-stage="import"][data-done]:not([data-done="0"])',
      )
      .waitFor({ timeout: 120_000 });
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

  /** What the import as a whole is doing, or how it ended (Done, Cancelled). */
  status(): Promise<string> {
    return this.page.locator('[data-testid="import-status"]').innerText();
  }

  /** The stage bars, in order. */
  stages(): Promise<ImportStageView[]> {
    return this.page.locator('[data-testid="import-progress"] [data-stage]').evaluateAll((rows) =>
      rows.map((r) => {
        const number = (name: string) => (r.getAttribute(name) === null ? null : Number(r.getAttribute(name)));
        return {
          stage: r.getAttribute('data-stage') ?? '',
          name: r.querySelector('.import-stage-name')?.textContent ?? '',
          state: r.getAttribute('data-state') ?? '',
          done: number('data-done'),
          total: number('data-total'),
          value: r.querySelector('[role="progressbar"]')?.getAttribute('aria-valuenow') ?? null,
          text: r.querySelector('.progress-text')?.textContent ?? '',
        };
      }),
    );
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
    return this.page
      .locator(`[data-testid="${testId}"] tbody tr`)
      .evaluateAll((rows) =>
        rows.map((r) => [...r.querySelectorAll('th, td')].map((c) => (c.firstChild?.textContent ?? c.textContent ?? '').trim())),
      );
  }
}
