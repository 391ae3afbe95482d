import type { Locator, Page } from 'playwright-core';

/** The journal: day headings with their entries (a windowed list) and the month heat-map. */
export class JournalPage {
  readonly list: Locator;
  constructor(readonly page: Page) {
    this.list = page.getByRole('listbox');
  }

  async waitForEntries(): Promise<void> {
    await this.page.locator('[data-episode]').first().waitFor();
  }

  /** Every day heading, top to bottom, scrolling the windowed list through to its end. */
  async dayKeys(): Promise<string[]> {
    const days: string[] = [];
    await this.list.evaluate((el) => (el.scrollTop = 0));
    for (;;) {
      for (const d of await this.page.locator('.day-head').evaluateAll((els) => els.map((e) => e.getAttribute('data-day') ?? ''))) {
        if (!days.includes(d)) days.push(d);
      }
      const atEnd = await this.list.evaluate((el) => {
        const before = el.scrollTop;
        el.scrollTop += el.clientHeight;
        return el.scrollTop === before;
      });
      if (atEnd) break;
      // Let the list render the rows for the new position (one animation frame).
      await this.page.evaluate('new Promise((resolve) => requestAnimationFrame(resolve))');
    }
    await this.list.evaluate((el) => (el.scrollTop = 0));
    return days.sort().reverse();
  }

  /** The rendered day headings as written (textContent: the stylesheet shows them in capitals). */
  dayNames(): Promise<string[]> {
    return this.page.locator('.day-head .day-name').allTextContents();
  }

  entry(title: string | RegExp): Locator {
    return this.page.locator('[data-episode]').filter({ has: this.page.locator('.entry-title', { hasText: title }) });
  }

  async openEntry(title: string | RegExp): Promise<void> {
    await this.entry(title).first().click();
    await this.page.locator('[data-testid="episode-title"]').waitFor();
  }

  calendarDay(day: string): Locator {
    return this.page.locator(`.cal-day[data-day="${day}"]`);
  }

  /** Leafs the heat-map to the day's month and opens the journal at that day. */
  async jumpToDay(day: string): Promise<void> {
    const wanted = day.slice(0, 7);
    for (let i = 0; i < 240; i++) {
      const shown = await this.page.locator('.cal-day').first().getAttribute('data-day');
      const month = shown?.slice(0, 7) ?? wanted;
      if (month === wanted) break;
      await this.page.locator(month > wanted ? '.cal-head button.icon >> nth=0' : '.cal-head button.icon >> nth=1').click();
      for (;;) {
        const now = await this.page.locator('.cal-day').first().getAttribute('data-day');
        if (now?.slice(0, 7) !== month) break;
      }
    }
    await this.calendarDay(day).click();
    await this.page.locator('.jumped').waitFor();
  }

  renderedRows(): Promise<number> {
    return this.page.locator('.vrow').count();
  }
}
