import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { intlTag, useLocale, useT } from '../i18n';
import { addMonths, dayKeyOf, formatDay, formatMonth, monthGrid } from '../lib/dates';
import { useCalendarStore } from '../store/calendar';
import { useJournalStore } from '../store/journal';

/** 0 (nothing) … 4 (the month's busiest days). */
function level(count: number, max: number): number {
  if (!count) return 0;
  return Math.max(1, Math.ceil((count / Math.max(max, 1)) * 4));
}

function weekdayNames(locale: ReturnType<typeof useLocale>): string[] {
  const f = new Intl.DateTimeFormat(intlTag(locale), { weekday: 'narrow', timeZone: 'UTC' });
  // 2024-01-01 was a Monday.
  return Array.from({ length: 7 }, (_, i) => f.format(new Date(Date.UTC(2024, 0, 1 + i))));
}

/**
 * A month as a heat-map: each day shaded by how many episodes it holds. Choosing a day opens the
 * journal at that day; the month's name opens its last day. Arrow keys move between days.
 */
export function MonthCalendar() {
  const t = useT();
  const locale = useLocale();
  const { year, month, counts, truncated, loading, show, initialise } = useCalendarStore();
  const jumpTo = useJournalStore((s) => s.jumpTo);
  const anchorDay = useJournalStore((s) => s.anchorDay);
  const [focusDay, setFocusDay] = useState(1);
  const refs = useRef<Record<number, HTMLButtonElement | null>>({});
  const moved = useRef(false);

  useEffect(() => {
    void initialise();
  }, [initialise]);

  const grid = useMemo(() => monthGrid(year, month), [year, month]);
  const days = grid.filter((d): d is number => d !== null).length;
  const max = Math.max(0, ...Object.values(counts));
  const weekdays = useMemo(() => weekdayNames(locale), [locale]);

  useEffect(() => {
    if (focusDay > days) setFocusDay(days);
  }, [days, focusDay]);
  useEffect(() => {
    if (moved.current) refs.current[focusDay]?.focus();
    moved.current = false;
  }, [focusDay]);

  const go = (delta: number) => {
    const next = addMonths(year, month, delta);
    void show(next.year, next.month);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -7, ArrowDown: 7 }[e.key];
    if (e.key === 'PageUp' || e.key === 'PageDown') {
      e.preventDefault();
      go(e.key === 'PageUp' ? -1 : 1);
      return;
    }
    if (!step) return;
    e.preventDefault();
    moved.current = true;
    setFocusDay(Math.min(days, Math.max(1, focusDay + step)));
  };

  const weeks: (number | null)[][] = [];
  for (let i = 0; i < grid.length; i += 7) weeks.push(grid.slice(i, i + 7));
  const lastDay = dayKeyOf(year, month, days);
  const monthName = formatMonth(year, month, locale);

  return (
    <section className="calendar" aria-label={t('calendar.label')} data-loading={loading || undefined}>
      <div className="cal-head">
        <button type="button" className="icon" aria-label={t('calendar.prev')} onClick={() => go(-1)}>
          ‹
        </button>
        <button
          type="button"
          className="cal-title"
          aria-label={t('calendar.jumpMonth', { month: monthName })}
          onClick={() => jumpTo(lastDay)}
        >
          {monthName}
        </button>
        <button type="button" className="icon" aria-label={t('calendar.next')} onClick={() => go(1)}>
          ›
        </button>
      </div>
      <table role="grid" className="cal-grid" onKeyDown={onKeyDown}>
        <thead>
          <tr>
            {weekdays.map((w, i) => (
              <th key={i} scope="col" abbr={w}>
                {w}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {weeks.map((week, w) => (
            <tr key={w}>
              {week.map((day, i) => {
                if (day === null) return <td key={i} />;
                const key = dayKeyOf(year, month, day);
                const count = counts[key] ?? 0;
                const label = count
                  ? t('calendar.day', { date: formatDay(key, locale), n: count })
                  : t('calendar.dayNone', { date: formatDay(key, locale) });
                return (
                  <td key={i} role="gridcell" aria-selected={anchorDay === key}>
                    <button
                      ref={(el) => {
                        refs.current[day] = el;
                      }}
                      type="button"
                      className="cal-day"
                      data-level={level(count, max)}
                      data-day={key}
                      tabIndex={day === focusDay ? 0 : -1}
                      aria-label={label}
                      title={label}
                      onFocus={() => setFocusDay(day)}
                      onClick={() => jumpTo(key)}
                    >
                      {day}
                    </button>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      <div className="cal-legend" aria-hidden="true">
        <span>{t('calendar.legendLess')}</span>
        {[0, 1, 2, 3, 4].map((l) => (
          <i key={l} data-level={l} />
        ))}
        <span>{t('calendar.legendMore')}</span>
      </div>
      {truncated && <p className="cal-note">{t('calendar.more', { n: 3000 })}</p>}
    </section>
  );
}
