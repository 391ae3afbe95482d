import { useEffect, useRef, useState, type ReactNode } from 'react';
import { call } from '../../api/client';
import type { FactView, KnowledgeDetail } from '../../api/types';
import { EpisodeLinks, FactBadges, entityTypeName } from '../../components/FactParts';
import { MarkButton } from '../../components/MarkButton';
import { MessageList } from '../../components/MessageList';
import type { Locale, Translate } from '../../i18n';
import { formatHere } from '../../lib/dates';
import { describeError, errorInfo, type ErrorInfo } from '../../lib/errors';
import { FactEditor } from './FactEditor';
import { FactTimeline } from './FactTimeline';
import { RelatedFacts } from './RelatedFacts';

export interface FactEvents {
  /** The fact changed (corrected, restored): the list shows it as it is now. */
  onChanged: (fact: FactView) => void;
  /** The fact went to the trash. */
  onForgotten: (fact: FactView) => void;
}

/** Takes the focus when the detail arrives, unless the person has put it somewhere on purpose. */
function useFocusOnArrival(loaded: boolean) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (!loaded) return;
    const active = document.activeElement;
    if (!active || active === document.body || active.matches('main h1')) heading.current?.focus({ preventScroll: true });
  }, [loaded]);
  return heading;
}

function Section({ id, label, children, testId }: { id: string; label: string; children: ReactNode; testId?: string }) {
  return (
    <section aria-labelledby={id} data-testid={testId}>
      <h3 id={id} className="section-label">
        {label}
      </h3>
      {children}
    </section>
  );
}

/** One fact in full: its value now, how it changed and why, the episodes and messages behind it, what it relates to. */
export function FactDetail({ id, locale, t, onChanged, onForgotten }: { id: string; locale: Locale; t: Translate } & FactEvents) {
  const [detail, setDetail] = useState<KnowledgeDetail | null>(null);
  const [error, setError] = useState<ErrorInfo | null>(null);
  const [editing, setEditing] = useState(false);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const heading = useFocusOnArrival(detail !== null);

  const load = async () => {
    try {
      setDetail(await call('getKnowledge', { key: id }));
    } catch (e) {
      setError(errorInfo(e));
    }
  };
  useEffect(() => {
    void load();
    // One fact per mount (the screen keys this component by id).
  }, []);

  if (error) {
    return (
      <div className="fact-detail" data-testid="fact-detail">
        <h2 tabIndex={-1}>{error.code === 'NOT_FOUND' ? t('knowledge.notFound') : t('common.error')}</h2>
        {error.code !== 'NOT_FOUND' && <p className="error">{describeError(error, t)}</p>}
      </div>
    );
  }
  if (!detail) {
    return (
      <div className="fact-detail" aria-busy="true">
        <p className="muted">{t('common.loading')}</p>
      </div>
    );
  }

  const f = detail.fact;
  const act = async (work: () => Promise<void>) => {
    setBusy(true);
    setNotice(null);
    try {
      await work();
    } catch (e) {
      setNotice(describeError(e, t));
    } finally {
      setBusy(false);
    }
  };
  const forget = () =>
    act(async () => {
      await call('forgetKnowledge', { instruction: `key:${f.key}`, mode: 'soft' });
      onForgotten(f);
    });
  /** Important (never forgotten, never evicted), let it fade, or no word (null): the person's mark wins. */
  const mark = (important: boolean | null) =>
    act(async () => {
      const r = await call('markMemory', { id: f.id, important });
      const fact = { ...f, marked: r.marked, importance: r.importance, tier: r.tier };
      setDetail({ ...detail, fact });
      onChanged(fact);
      if (r.marked === false) setNotice(t('mark.faded'));
    });
  const restore = () =>
    act(async () => {
      onChanged(await call('undeleteKnowledge', { key: f.id }));
      await load();
      setNotice(t('knowledge.restored', { label: f.label }));
    });
  const episodes = detail.linkedEpisodes.length + detail.evolutionEpisodes.length;

  return (
    <article className="fact-detail" data-testid="fact-detail" data-fact={f.id} data-tier={f.tier}>
      <header className="fact-detail-head">
        <p className="fact-kind">
          {entityTypeName(f.entityType, t)} · <code>{f.key}</code>
        </p>
        <h2 ref={heading} tabIndex={-1} data-testid="fact-label">
          {f.label}
        </h2>
        <p className="fact-current" data-testid="fact-value">
          {f.value}
        </p>
        <p className="fact-detail-meta">
          <FactBadges version={f.version} confidence={f.confidence} t={t} /> ·{' '}
          <span className="muted">{t('knowledge.changed', { date: formatHere(f.updatedAt, locale) })}</span>
        </p>
        {f.tier === 'archived' && <p className="muted">{t('knowledge.archived')}</p>}
      </header>

      {f.tier === 'trash' ? (
        <div className="episode-actions" role="toolbar" aria-label={t('knowledge.actions')}>
          <p className="muted">{t('knowledge.inTrash')}</p>
          <button type="button" className="primary" disabled={busy} onClick={() => void restore()} data-action="restore">
            {t('knowledge.restore')}
          </button>
        </div>
      ) : (
        !editing && (
          <div className="episode-actions" role="toolbar" aria-label={t('knowledge.actions')}>
            <MarkButton which="important" marked={f.marked} onMark={(m) => void mark(m)} t={t} />
            <button type="button" onClick={() => setEditing(true)} data-action="correct">
              {t('knowledge.correct')}
            </button>
            <button
              type="button"
              className="danger"
              disabled={busy}
              title={t('knowledge.forgetHint')}
              onClick={() => void forget()}
              data-action="forget"
            >
              {t('knowledge.forget')}
            </button>
            <MarkButton which="fade" marked={f.marked} onMark={(m) => void mark(m)} t={t} />
          </div>
        )
      )}
      {notice && (
        <p className="notice" role="status" data-testid="fact-notice">
          {notice}
        </p>
      )}
      {editing && (
        <FactEditor
          fact={f}
          t={t}
          onCancel={() => setEditing(false)}
          onSaved={(w) => {
            setEditing(false);
            onChanged(w.fact);
            void load().then(() => setNotice(t('knowledge.corrected')));
          }}
        />
      )}

      <Section id="fact-history" label={t('knowledge.timeline')}>
        <FactTimeline versions={detail.timeline} current={f.version} locale={locale} t={t} />
      </Section>

      <Section id="fact-episodes" label={t('knowledge.episodes')} testId="fact-episodes">
        {episodes === 0 && <p className="muted">{t('knowledge.episodes.none')}</p>}
        {detail.linkedEpisodes.length > 0 && (
          <>
            <h4 className="fact-subhead">{t('knowledge.episodes.linked')}</h4>
            <EpisodeLinks episodes={detail.linkedEpisodes} locale={locale} testId="linked-episodes" />
          </>
        )}
        {detail.evolutionEpisodes.length > 0 && (
          <>
            <h4 className="fact-subhead">{t('knowledge.episodes.evolution')}</h4>
            <EpisodeLinks episodes={detail.evolutionEpisodes} locale={locale} testId="evolution-episodes" />
          </>
        )}
        {detail.sources.length > 0 && (
          <MessageList
            messages={detail.sources}
            summary={t('knowledge.sources', { n: detail.sources.length })}
            locale={locale}
            testId="fact-sources"
            withDate
          />
        )}
      </Section>

      {detail.related.direct.length + detail.related.indirect.length > 0 && (
        <Section id="fact-related" label={t('knowledge.related')} testId="fact-related">
          <RelatedFacts direct={detail.related.direct} indirect={detail.related.indirect} t={t} />
        </Section>
      )}
    </article>
  );
}
