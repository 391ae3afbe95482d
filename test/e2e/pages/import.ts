import type { Page } from 'playwright-core';

export interface ProgressTrace {
  phases: string[];
  /** aria-valuenow of the import progress bar each time it changed, while importing. */
  values: number[];
}

/**
 * Runs in the page (a string: this project's Node typings have no DOM). Records each phase of the
 * import section and each value its progress bar shows while importing.
 */
const TRACE_SCRIPT = `(() => {
  const trace = { phases: [], values: [] };
  window.__importTrace = trace;
  new MutationObserver(() => {
    const section = document.querySelector('[data-testid="import-progress"]');
    const phase = section && section.getAttribute('data-phase');
    if (phase && trace.phases[trace.phases.length - 1] !== phase) trace.phases.push(phase);
    const bar = section && section.querySelector('[role="progressbar"]');
    const value = bar && bar.getAttribute('aria-valuenow');
    if (phase === 'importing' && value !== null && trace.values[trace.values.length - 1] !== Number(value)) trace.values.push(Number(value));
  }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
})()`;

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
    await this.page.evaluate(TRACE_SCRIPT);
  }

  trace(): Promise<ProgressTrace> {
    return this.page.evaluate('window.__importTrace') as Promise<ProgressTrace>;
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
    return this.rows('import-report');
  }

  private rows(testId: string): Promise<string[][]> {
    return this.page.locator(`[data-testid="${testId}"] tbody tr`).evaluateAll((rows) =>
      rows.map((r) => [...r.querySelectorAll('th, td')].map((c) => (c.firstChild?.textContent ?? c.textContent ?? '').trim())),
    );
  }
}
