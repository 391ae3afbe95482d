import type { Locator, Page } from 'playwright-core';
import { readProgressTrace, startProgressTrace, type ProgressTrace } from './progress.js';

const DISCOVERY_TRACE = { key: '__discoveryTrace', section: '[data-testid="discovery-progress"]', stateAttr: 'data-state', running: 'running' };

/**
 * Appearance (language, theme), the data (where it lives, backup, the embedding model), the
 * language model, knowledge (capacity, discovery) and forgetting.
 */
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

  // ── Knowledge ──

  /** One line of the capacity facts: 'items' ("132 of 10,000 facts"), 'tokens' or 'queue'. */
  knowledge(line: 'items' | 'tokens' | 'queue'): Promise<string> {
    return this.page.locator(`[data-testid="knowledge-${line}"]`).innerText();
  }

  knowledgeFacts(): Promise<string> {
    return this.page.locator('[data-testid="settings-knowledge"]').innerText();
  }

  traceDiscovery(): Promise<void> {
    return startProgressTrace(this.page, DISCOVERY_TRACE);
  }

  discoveryTrace(): Promise<ProgressTrace> {
    return readProgressTrace(this.page, DISCOVERY_TRACE.key);
  }

  /** Presses "Read them now", waits for the run to end and returns what it says. */
  async readNow(): Promise<string> {
    await this.page.locator('[data-testid="discovery-run"]').click();
    return this.page.locator('[data-testid="discovery-result"]').innerText({ timeout: 60_000 });
  }

  discoveryProgress(): Locator {
    return this.page.locator('[data-testid="discovery-progress"]');
  }

  // ── Forms (forgetting, knowledge limits): fields found by their labels, as a screen reader would ──

  form(name: 'forgetting' | 'knowledge'): Locator {
    return this.page.locator(`[data-testid="${name}-form"]`);
  }

  field(form: 'forgetting' | 'knowledge', label: string): Locator {
    return this.form(form).getByLabel(label, { exact: true });
  }

  /** Presses Save and returns the notice ("Saved.") or the engine's error. */
  async save(form: 'forgetting' | 'knowledge'): Promise<{ saved: boolean; text: string }> {
    await this.form(form).getByRole('button', { name: 'Save' }).click();
    const outcome = this.page.locator(`[data-testid="${form}-notice"], [data-testid="${form}-error"]`);
    const text = await outcome.innerText();
    return { saved: (await outcome.getAttribute('role')) === 'status', text };
  }

  // ── Data ──

  /** Presses "Back up now" and returns what it says when done (the file and its size, or the error). */
  async backUp(): Promise<string> {
    await this.page.locator('[data-testid="backup-run"]').click();
    return this.page.locator('[data-testid="backup-notice"], [data-testid="backup-error"]').innerText({ timeout: 60_000 });
  }
}
