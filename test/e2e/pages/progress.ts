import type { Page } from 'playwright-core';

export interface ProgressTrace {
  /** Each value the section's `stateAttr` took, in order (e.g. importing → done). */
  phases: string[];
  /** Each value the section's `stepAttr` took while running (e.g. import → discovery), when it has one. */
  steps: string[];
  /** aria-valuenow of the section's progress bar each time it changed, while running. */
  values: number[];
}

export interface TraceTarget {
  /** Where the window keeps the trace. */
  key: string;
  /** The element around the progress bar. */
  section: string;
  /** Its attribute that says what it is doing, and the value meaning "running". */
  stateAttr: string;
  running: string;
  stepAttr?: string;
}

/**
 * Starts recording a progress section (before the work starts), so a test can check the bar moved
 * through the engine's real progress, not only that it ended full. Runs in the page (a string: this
 * project's Node typings have no DOM).
 */
export async function startProgressTrace(page: Page, target: TraceTarget): Promise<void> {
  const t = JSON.stringify(target);
  await page.evaluate(`(() => {
    const t = ${t};
    const trace = { phases: [], steps: [], values: [] };
    window[t.key] = trace;
    const push = (list, x) => { if (x !== null && x !== undefined && list[list.length - 1] !== x) list.push(x); };
    new MutationObserver(() => {
      const section = document.querySelector(t.section);
      const phase = section && section.getAttribute(t.stateAttr);
      push(trace.phases, phase);
      if (phase !== t.running) return;
      if (t.stepAttr) push(trace.steps, section.getAttribute(t.stepAttr));
      const bar = section.querySelector('[role="progressbar"]');
      const value = bar && bar.getAttribute('aria-valuenow');
      if (value !== null) push(trace.values, Number(value));
    }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  })()`);
}

export function readProgressTrace(page: Page, key: string): Promise<ProgressTrace> {
  return page.evaluate(`window[${JSON.stringify(key)}]`) as Promise<ProgressTrace>;
}
