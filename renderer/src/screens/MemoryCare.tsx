import { useCallback, useEffect, useState } from 'react';
import { call } from '../api/client';
import type { OpOutput } from '../api/types';
import { useLocale, useT, type Locale, type MessageKey, type Translate } from '../i18n';
import { formatDay, formatHere } from '../lib/dates';
import { describeError, errorInfo, type ErrorInfo } from '../lib/errors';
import { describeReason } from '../lib/reasons';
import { useJournalStore } from '../store/journal';

type Plan = OpOutput<'runForgetting'>;
type Move = Plan['moves'][number];
type TierItem = OpOutput<'listTrash'>['items'][number];

const LIST_LIMIT = 200;
const PLAN_SHOWN = 200;
const MOVE_LABELS: Record<Move['to'], MessageKey> = {
  archived: 'care.move.archived',
  trash: 'care.move.trash',
  purged: 'care.move.purged',
  active: 'care.move.active',
};

function PlanMoves({ moves, t, locale }: { moves: readonly Move[]; t: Translate; locale: Locale }) {
  return (
    <ol className="care-list" data-testid="care-plan-moves">
      {moves.slice(0, PLAN_SHOWN).map((m) => (
        <li key={`${m.kind}:${m.id}`} className="care-item" data-id={m.id} data-to={m.to}>
          <div className="care-item-head">
            <span className="care-item-title">{m.title}</span>
            <span className={`care-badge to-${m.to}`}>{t(MOVE_LABELS[m.to])}</span>
          </div>
          <p className="care-reason">{describeReason(m.reason, t, locale)}</p>
          <p className="care-meta">{t('care.score', { score: m.score.toFixed(0), importance: Math.round(m.importance * 100) })}</p>
        </li>
      ))}
      {moves.length > PLAN_SHOWN && <li className="care-more">{t('care.more')}</li>}
    </ol>
  );
}

function TierList({
  items,
  tier,
  busy,
  onRestore,
  t,
  locale,
}: {
  items: readonly TierItem[];
  tier: 'archived' | 'trash';
  busy: string | null;
  onRestore: (item: TierItem) => void;
  t: Translate;
  locale: Locale;
}) {
  return (
    <ul className="care-list" data-testid={`care-${tier}-list`}>
      {items.map((x) => (
        <li key={x.id} className="care-item" data-id={x.id}>
          <div className="care-item-head">
            <span className="care-item-title">{x.title}</span>
            {x.start && <time dateTime={x.start}>{formatDay(x.start.slice(0, 10), locale)}</time>}
            <button type="button" className="care-restore" disabled={busy === x.id} onClick={() => onRestore(x)} data-action="restore">
              {t('care.restore')}
            </button>
          </div>
          {x.summary && <p className="care-summary">{x.summary}</p>}
          <p className="care-meta">
            {[
              x.since && t('care.since', { date: formatHere(x.since, locale) }),
              x.reason && describeReason(x.reason, t, locale),
              x.purgeAfter && t('care.purgeAfter', { date: formatHere(x.purgeAfter, locale) }),
            ]
              .filter(Boolean)
              .join(' · ')}
          </p>
        </li>
      ))}
    </ul>
  );
}

/** Archive and trash with restore, and what the next forgetting pass would do and why (a dry run). */
export function MemoryCareScreen() {
  const t = useT();
  const locale = useLocale();
  const [plan, setPlan] = useState<Plan | null>(null);
  const [archive, setArchive] = useState<TierItem[] | null>(null);
  const [trash, setTrash] = useState<TierItem[] | null>(null);
  const [asOf, setAsOf] = useState('');
  const [error, setError] = useState<ErrorInfo | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);

  const loadPlan = useCallback(async (day: string) => {
    setPlan(null);
    try {
      setPlan(await call('runForgetting', { dryRun: true, ...(day ? { now: day } : {}) }));
    } catch (e) {
      setError(errorInfo(e));
    }
  }, []);

  const loadTiers = useCallback(async () => {
    try {
      const [a, tr] = await Promise.all([call('listArchive', { limit: LIST_LIMIT }), call('listTrash', { limit: LIST_LIMIT })]);
      setArchive(a.items);
      setTrash(tr.items);
    } catch (e) {
      setError(errorInfo(e));
    }
  }, []);

  useEffect(() => {
    void loadTiers();
    void loadPlan('');
  }, [loadTiers, loadPlan]);

  const restore = async (item: TierItem) => {
    setBusy(item.id);
    setNotice(null);
    try {
      await call(item.tier === 'trash' ? 'restoreFromTrash' : 'restoreFromArchive', { id: item.id });
      setNotice(t('care.restored', { title: item.title }));
      useJournalStore.getState().reload();
      await Promise.all([loadTiers(), loadPlan(asOf)]);
    } catch (e) {
      setNotice(describeError(e, t));
    } finally {
      setBusy(null);
    }
  };

  return (
    <div className="screen care-screen">
      <header className="screen-head">
        <h1 tabIndex={-1}>{t('care.title')}</h1>
      </header>
      <p className="care-intro muted">{t('care.intro')}</p>
      {error && (
        <p className="error" role="alert">
          {describeError(error, t)}
        </p>
      )}
      {notice && (
        <p className="notice" role="status" data-testid="care-notice">
          {notice}
        </p>
      )}

      <section className="settings-section" aria-labelledby="c-plan" aria-busy={!plan} data-testid="care-plan">
        <h2 id="c-plan">{t('care.plan')}</h2>
        <form
          className="care-asof"
          onSubmit={(e) => {
            e.preventDefault();
            void loadPlan(asOf);
          }}
        >
          <label>
            {t('care.planAsOf')}{' '}
            <input
              type="date"
              value={asOf}
              onChange={(e) => setAsOf(e.target.value)}
              data-testid="care-asof"
              aria-describedby="c-asof-hint"
            />
          </label>
          <span id="c-asof-hint" className="muted">
            {asOf ? '' : t('care.planToday')}
          </span>
          <button type="submit" data-testid="care-preview">
            {t('care.planPreview')}
          </button>
        </form>
        {plan && (
          <>
            <p className="care-summary-line" data-testid="care-plan-summary">
              {plan.moves.length === 0
                ? t('care.planNone')
                : t('care.planSummary', {
                    evaluated: plan.evaluated,
                    archived: plan.moved.archived,
                    trashed: plan.moved.trashed,
                    purged: plan.moved.purged,
                    restored: plan.moved.restored,
                  })}{' '}
              <span className="muted">{t('care.tiers', plan.tiers)}</span>
            </p>
            {plan.moves.length > 0 && <PlanMoves moves={plan.moves} t={t} locale={locale} />}
          </>
        )}
      </section>

      <section className="settings-section" aria-labelledby="c-trash" aria-busy={!trash}>
        <h2 id="c-trash">
          {t('care.trash')} {trash && trash.length > 0 && <span className="muted">({trash.length})</span>}
        </h2>
        {trash &&
          (trash.length ? (
            <TierList items={trash} tier="trash" busy={busy} onRestore={(x) => void restore(x)} t={t} locale={locale} />
          ) : (
            <p className="muted">{t('care.trashEmpty')}</p>
          ))}
      </section>

      <section className="settings-section" aria-labelledby="c-archive" aria-busy={!archive}>
        <h2 id="c-archive">
          {t('care.archive')} {archive && archive.length > 0 && <span className="muted">({archive.length})</span>}
        </h2>
        {archive &&
          (archive.length ? (
            <TierList items={archive} tier="archived" busy={busy} onRestore={(x) => void restore(x)} t={t} locale={locale} />
          ) : (
            <p className="muted">{t('care.archiveEmpty')}</p>
          ))}
      </section>
    </div>
  );
}
