import type { Page } from 'playwright-core';

export interface ProgressTrace {
  phases: string[];
  /** aria-valuenow of the import progress bar each time it changed, while importing. */
  values: number[];
}

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
  async traceProgress(): Promise<void> {
    await this.page.evaluate(() => {
      const trace = { phases: [] as string[], values: [] as number[] };
      (window as unknown as { __importTrace: typeof trace }).__importTrace = trace;
      new MutationObserver(() => {
        const section = document.querySelector('[data-testid="import-progress"]');
        const phase = section?.getAttribute('data-phase');
        if (phase && trace.phases.at(-1) !== phase) trace.phases.push(phase);
        const bar = section?.querySelector('[role="progressbar"]');
        const value = bar?.getAttribute('aria-valuenow');
        if (phase === 'importing' && value !== null && value !== undefined && trace.values.at(-1) !== Number(value)) trace.values.push(Number(value));
      }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    });
  }

  trace(): Promise<ProgressTrace> {
    return this.page.evaluate(() => (window as unknown as { __importTrace: ProgressTrace }).__importTrace);
  }

  async start(): Promise<void> {
    await this.page.locator('[data-testid="import-start"]').click();
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

  /** The report table as rows of cell texts: file, format, conversations, messages, new, episodes, participants. */
  reportRows(): Promise<string[][]> {
    return this.page.locator('[data-testid="import-report"] tbody tr').evaluateAll((rows) =>
      rows.map((r) => [...r.querySelectorAll('th, td')].map((c) => (c.firstChild?.textContent ?? c.textContent ?? '').trim())),
    );
  }
}
