import { useEffect, useState } from 'react';
import { call } from '../api/client';
import type { OpOutput } from '../api/types';
import { useLocale, useT, type Translate } from '../i18n';
import { formatDay } from '../lib/dates';
import { navigate } from '../store/route';

type Upcoming = OpOutput<'listUpcoming'>;

/** How often the days ahead are read again: they change as the day turns and as turns arrive. */
const REFRESH_MS = 60_000;

function soon(day: string, today: string, t: Translate): string {
  const n = Math.round((Date.parse(`${day}T00:00:00Z`) - Date.parse(`${today}T00:00:00Z`)) / 86_400_000);
  return n <= 0 ? t('journal.today') : n === 1 ? t('journal.tomorrow') : t('journal.inDays', { n });
}

/**
 * Beside the journal: what the person said of the days ahead (`listUpcoming`, read on this
 * computer's calendar), soonest first — "Friday: I have my final interview at 10", said on Monday —
 * after the question it answers when it says little alone ("When is your interview?" — "Friday at
 * 10."), with what was said since that may call it off or move it. Choosing one opens the episode that holds
 * it. Nothing ahead: nothing shown.
 */
export function ComingUp() {
  const t = useT();
  const locale = useLocale();
  const [upcoming, setUpcoming] = useState<Upcoming | null>(null);

  useEffect(() => {
    let live = true;
    const read = () =>
      void call('listUpcoming', { utcOffsetMin: -new Date().getTimezoneOffset() }).then(
        (r) => live && setUpcoming(r),
        // A day ahead missing from the side of the journal is no reason to interrupt it.
        () => {},
      );
    read();
    const timer = setInterval(read, REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, []);

  if (!upcoming || upcoming.items.length === 0) return null;
  return (
    <section className="coming-up" aria-labelledby="coming-up-title" data-testid="coming-up">
      <h2 id="coming-up-title">{t('journal.comingUp')}</h2>
      <ul>
        {upcoming.items.map((u) => (
          <li key={u.message.id} data-day={u.day}>
            <button
              type="button"
              className="coming-up-item"
              disabled={!u.episodeId}
              onClick={() => u.episodeId && navigate({ name: 'episode', id: u.episodeId })}
            >
              <span className="coming-up-day">
                {formatDay(u.day, locale)}
                {u.until && ` – ${formatDay(u.until, locale)}`} · {soon(u.day, upcoming.today, t)}
                {u.at && ` · ${u.at}`}
              </span>
              {u.answers && (
                <span className="coming-up-asked">
                  {u.answers.message.speaker}: “{u.answers.text}”
                </span>
              )}
              <span className="coming-up-text">
                {u.message.speaker}: “{u.text}”
              </span>
              {u.later && (
                <span className="coming-up-later">
                  {t('journal.sinceThen')} · {u.later.message.speaker}: “{u.later.text}”
                </span>
              )}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
