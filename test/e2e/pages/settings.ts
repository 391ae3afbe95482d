import type { Locator, Page } from 'playwright-core';
import { readProgressTrace, startProgressTrace, type ProgressTrace } from './progress.js';

const DISCOVERY_TRACE = {
  key: '__discoveryTrace',
  section: '[data-testid="discovery-progress"]',
  stateAttr: 'data-state',
  running: 'running',
};

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

  form(name: 'forgetting' | 'knowledge' | 'privacy'): Locator {
    return this.page.locator(`[data-testid="${name}-form"]`);
  }

  field(form: 'forgetting' | 'knowledge' | 'privacy', label: string): Locator {
    return this.form(form).getByLabel(label, { exact: true });
  }

  /** Presses Save and returns the notice ("Saved.") or the engine's error. */
  async save(form: 'forgetting' | 'knowledge' | 'privacy'): Promise<{ saved: boolean; text: string }> {
    await this.form(form).getByRole('button', { name: 'Save' }).click();
    const outcome = this.page.locator(`[data-testid="${form}-notice"], [data-testid="${form}-error"]`);
    const text = await outcome.innerText();
    return { saved: (await outcome.getAttribute('role')) === 'status', text };
  }

  // ── Import ──

  /** Types a folder into "Import new exports from this folder" and watches it; returns what Settings then says. */
  async watchFolder(folder: string): Promise<string> {
    const chooser = this.page.locator('[data-testid="watched-folder-choose"]');
    await chooser.locator('input').fill(folder);
    await chooser.locator('button[type="submit"]').click();
    await this.page.locator('[data-testid="watched-folder-notice"]').waitFor();
    return this.watchedFolder();
  }

  watchedFolder(): Promise<string> {
    return this.page.locator('[data-testid="watched-folder"]').innerText();
  }

  async stopWatching(): Promise<void> {
    await this.page.locator('[data-testid="watched-folder-clear"]').click();
  }

  /** The last files imported from the watched folder, one line each. */
  watchedRecent(): Locator {
    return this.page.locator('[data-testid="watched-recent"] li');
  }

  /** What every window says the watched folder just imported. */
  watchedNotice(): Locator {
    return this.page.locator('[data-testid="watched-notice"]');
  }

  // ── Data ──

  folderPath(): Promise<string> {
    return this.page.locator('[data-testid="settings-folder-path"]').innerText();
  }

  /** Types a folder into "Choose another folder" (a browser tab has no folder dialog), checks it, and returns what Settings says of it. */
  async chooseFolder(folder: string): Promise<string> {
    const chooser = this.page.locator('[data-testid="settings-folder-choose"]');
    await chooser.locator('input').fill(folder);
    await chooser.locator('button[type="submit"]').click();
    return this.page.locator('[data-testid="settings-folder-choice"]').innerText();
  }

  /** "Move my memory here" / "Open this memory" / "Start a new memory here"; the window reloads. */
  async applyFolder(how: 'move' | 'open'): Promise<void> {
    const reloaded = this.page.waitForEvent('load', { timeout: 60_000 });
    await this.page.locator(`[data-testid="settings-folder-${how}"]`).click();
    await reloaded;
  }

  /** The notice Settings shows after the reload that followed a move, switch or restore. */
  flash(): Promise<string> {
    return this.page.locator('[data-testid="settings-flash"]').innerText({ timeout: 60_000 });
  }

  /** Chooses a model (an offered one by its id, or any other typed in) and presses "Use this model"; returns the notice or error. */
  async useModel(modelId: string, o: { typed?: boolean } = {}): Promise<string> {
    await this.page.locator('[data-testid="settings-model-select"]').selectOption(o.typed ? '' : modelId);
    if (o.typed) await this.page.locator('[data-testid="settings-model-id"]').fill(modelId);
    await this.page.locator('[data-testid="settings-model-use"]').click();
    return this.page.locator('[data-testid="settings-model-notice"], [data-testid="settings-model-error"]').innerText({ timeout: 60_000 });
  }

  reembedOffer(): Locator {
    return this.page.locator('[data-testid="settings-model-reembed"]');
  }

  async embedNow(): Promise<string> {
    await this.page.locator('[data-testid="settings-model-embed"]').click();
    return this.page.locator('[data-testid="settings-model-notice"], [data-testid="settings-model-error"]').innerText({ timeout: 60_000 });
  }

  backups(): Locator {
    return this.page.locator('[data-testid="backup-list"] li');
  }

  /** Restores the backup in row `index` of the list, confirming the question; the window reloads. */
  async restoreListed(index: number): Promise<void> {
    await this.backups().nth(index).getByRole('button').click();
    const reloaded = this.page.waitForEvent('load', { timeout: 60_000 });
    await this.page
      .locator('dialog[open]')
      .getByRole('button', { name: /^(Restore|恢复)$/ })
      .click();
    await reloaded;
  }

  /** Presses "Back up now" (encrypted with `passphrase` when given) and returns what it says when done (the file and its size, or the error). */
  async backUp(passphrase?: string): Promise<string> {
    if (passphrase !== undefined) {
      await this.page.locator('[data-testid="backup-encrypt"]').check();
      await this.page.locator('[data-testid="backup-passphrase"]').fill(passphrase);
    }
    await this.page.locator('[data-testid="backup-run"]').click();
    return this.page.locator('[data-testid="backup-notice"], [data-testid="backup-error"]').innerText({ timeout: 60_000 });
  }
}
