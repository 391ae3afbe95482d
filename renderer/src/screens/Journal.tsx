import { useCallback, useEffect, useRef, type KeyboardEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { EmptyState } from '../components/EmptyState';
import { VirtualList, type VirtualListHandle } from '../components/VirtualList';
import { useLocale, useT, type Locale, type Translate } from '../i18n';
import { formatDay, formatOffset, formatSpan } from '../lib/dates';
import { describeError } from '../lib/errors';
import { useJournalStore, type Row } from '../store/journal';
import { navigate } from '../store/route';
import { ComingUp } from './ComingUp';
import { MonthCalendar } from './MonthCalendar';

/** Fixed heights keep windowing exact; the CSS clamps each card's text to fit. */
export const ROW_HEIGHT = { day: 60, episode: 136 } as const;
const heightOf = (r: Row) => ROW_HEIGHT[r.kind];
const keyOf = (r: Row) => r.key;
export const IMPORTANT = 0.8;
/** How often the newest entries are read again: often while a conversation goes on, now and then otherwise. */
export const REFRESH_MS = { ongoing: 4_000, idle: 20_000 } as const;

function DayHeading({ row, locale, t }: { row: Row & { kind: 'day' }; locale: Locale; t: Translate }) {
  return (
    <div className="day-head" aria-hidden="true" data-day={row.day}>
      <span className="day-name">{formatDay(row.day, locale)}</span>
      <span className="day-count">{row.count === 1 ? t('journal.episode') : t('journal.episodes', { n: row.count })}</span>
    </div>
  );
}

function EntryRow({
  row,
  active,
  locale,
  t,
  onOpen,
}: {
  row: Row & { kind: 'episode' };
  active: boolean;
  locale: Locale;
  t: Translate;
  onOpen: () => void;
}) {
  const e = row.entry;
  const span = formatSpan(e.start, e.end, e.utcOffsetMin, locale);
  return (
    <div
      id={`entry-${e.id}`}
      role="option"
      aria-selected={active}
      aria-label={`${e.title} — ${formatDay(e.day, locale)}, ${span}${e.ongoing ? ` (${t('journal.ongoing')})` : ''}`}
      className="entry-row"
      data-active={active || undefined}
      data-ongoing={e.ongoing || undefined}
      data-episode={e.id}
      onClick={onOpen}
    >
      <article className="entry-card">
        <div className="entry-time">
          <time dateTime={e.start}>{span}</time>
          <span className="entry-offset">{formatOffset(e.utcOffsetMin)}</span>
          {e.ongoing && (
            <span className="entry-ongoing" title={t('journal.ongoingHint')} data-testid="entry-ongoing">
              {t('journal.ongoing')}
            </span>
          )}
          {e.importance >= IMPORTANT && (
            <span className="entry-star" title={t('journal.important')}>
              ★
            </span>
          )}
        </div>
        <h3 className="entry-title">{e.title}</h3>
        <p className="entry-summary">{e.summary}</p>
        <div className="entry-meta">
          {t('journal.messages', { n: e.messageCount })}
          {e.participants.length > 0 && <> · {e.participants.join(', ')}</>}
        </div>
      </article>
    </div>
  );
}

/** Next row index holding an episode, from `from` in direction `dir`; stays put at the ends. */
function nextEpisode(rows: readonly Row[], from: number, dir: 1 | -1, steps = 1): number {
  let i = from;
  let found = from;
  for (let s = 0; s < steps; s++) {
    i = found + dir;
    while (i >= 0 && i < rows.length && rows[i]!.kind !== 'episode') i += dir;
    if (i < 0 || i >= rows.length) break;
    found = i;
  }
  return found;
}

export function JournalScreen() {
  const t = useT();
  const locale = useLocale();
  const { rows, loading, done, error, anchorDay, activeIndex, generation } = useJournalStore(
    useShallow((s) => ({
      rows: s.rows,
      loading: s.loading,
      done: s.done,
      error: s.error,
      anchorDay: s.anchorDay,
      activeIndex: s.activeIndex,
      generation: s.generation,
    })),
  );
  const { loadMore, jumpTo, setPosition } = useJournalStore.getState();
  const list = useRef<VirtualListHandle>(null);

  useEffect(() => {
    if (rows.length === 0 && !done) void loadMore();
  }, [rows.length, done, loadMore]);

  // Live conversations (a companion's addMemory) grow while the journal is open: follow the newest entries.
  useEffect(() => {
    // Back from another screen: what changed meanwhile at the top.
    void useJournalStore.getState().refreshHead();
  }, []);
  const ongoing = rows.some((r) => r.kind === 'episode' && r.entry.ongoing);
  useEffect(() => {
    const refresh = () => {
      if (document.visibilityState === 'visible') void useJournalStore.getState().refreshHead();
    };
    const timer = setInterval(refresh, ongoing ? REFRESH_MS.ongoing : REFRESH_MS.idle);
    document.addEventListener('visibilitychange', refresh);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', refresh);
    };
  }, [ongoing]);

  const active = rows[activeIndex]?.kind === 'episode' ? activeIndex : nextEpisode(rows, -1, 1);
  const activeRow = rows[active];

  const onNearEnd = useCallback(() => void useJournalStore.getState().loadMore(), []);
  const onScrollTopChange = useCallback((top: number) => setPosition({ scrollTop: top }), [setPosition]);

  const move = (index: number) => {
    setPosition({ activeIndex: index });
    if (rows[index - 1]?.kind === 'day') list.current?.reveal(index - 1);
    list.current?.reveal(index);
  };

  const open = (index: number) => {
    const row = rows[index];
    if (row?.kind !== 'episode') return;
    setPosition({ activeIndex: index });
    navigate({ name: 'episode', id: row.entry.id });
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const page = 4;
    switch (e.key) {
      case 'ArrowDown':
        move(nextEpisode(rows, active, 1));
        break;
      case 'ArrowUp':
        move(nextEpisode(rows, active, -1));
        break;
      case 'PageDown':
        move(nextEpisode(rows, active, 1, page));
        break;
      case 'PageUp':
        move(nextEpisode(rows, active, -1, page));
        break;
      case 'Home':
        move(nextEpisode(rows, -1, 1));
        break;
      case 'End':
        move(nextEpisode(rows, rows.length, -1));
        break;
      case 'Enter':
        open(active);
        break;
      default:
        return;
    }
    e.preventDefault();
  };

  const empty = done && rows.length === 0;
  const footer = (
    <div className="list-foot" aria-live="polite">
      {loading && <p>{t('journal.loadingMore')}</p>}
      {error && (
        <p className="error">
          {describeError(error, t)}{' '}
          <button type="button" onClick={() => void loadMore()}>
            {t('common.retry')}
          </button>
        </p>
      )}
      {done && rows.length > 0 && <p className="list-end">{t('journal.end')}</p>}
    </div>
  );

  return (
    <div className="screen journal-screen">
      <header className="screen-head">
        <h1 tabIndex={-1}>{t('journal.title')}</h1>
        {anchorDay && (
          <p className="jumped">
            {t('journal.jumped', { date: formatDay(anchorDay, locale) })}{' '}
            <button type="button" className="link" onClick={() => jumpTo(null)}>
              {t('journal.newest')}
            </button>
          </p>
        )}
      </header>
      <div className="journal-body">
        {empty && !anchorDay ? (
          <EmptyState
            testId="journal-empty"
            title={t('journal.empty.title')}
            action={
              <button type="button" className="primary" onClick={() => navigate({ name: 'import' })}>
                {t('journal.empty.action')}
              </button>
            }
          >
            {t('journal.empty.body')}
          </EmptyState>
        ) : (
          <VirtualList
            ref={list}
            // A jump starts a new list at its top; coming back from an episode restores the old place.
            key={generation}
            className="journal-list"
            role="listbox"
            aria-label={t('journal.listLabel')}
            aria-activedescendant={activeRow?.kind === 'episode' ? `entry-${activeRow.entry.id}` : undefined}
            tabIndex={0}
            data-autofocus
            onKeyDown={onKeyDown}
            items={rows}
            heightOf={heightOf}
            keyOf={keyOf}
            // Read, not subscribed: following every scroll would re-render the whole page.
            initialScrollTop={useJournalStore.getState().scrollTop}
            onScrollTopChange={onScrollTopChange}
            onNearEnd={onNearEnd}
            footer={footer}
            renderItem={(row, i) =>
              row.kind === 'day' ? (
                <DayHeading row={row} locale={locale} t={t} />
              ) : (
                <EntryRow row={row} active={i === active} locale={locale} t={t} onOpen={() => open(i)} />
              )
            }
          />
        )}
        <aside className="journal-aside">
          <MonthCalendar />
          <ComingUp />
        </aside>
      </div>
    </div>
  );
}
