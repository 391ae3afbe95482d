import { useEffect, useState } from 'react';
import { call } from '../api/client';
import type { EpisodeView, OpOutput } from '../api/types';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { EditorForm } from '../components/EditorForm';
import { MarkButton } from '../components/MarkButton';
import { MessageList } from '../components/MessageList';
import { useLocale, useT, type Translate } from '../i18n';
import { formatDateTime, formatDay, formatOffset, formatSpan, dayKey } from '../lib/dates';
import { describeError, errorInfo, type ErrorInfo } from '../lib/errors';
import { useJournalStore } from '../store/journal';
import { goBack } from '../store/route';
import { EpisodeFacts } from './EpisodeFacts';
import { IMPORTANT } from './Journal';

type Detail = OpOutput<'getEpisode'>;

function Chips({ label, items, testId }: { label: string; items: readonly string[]; testId?: string }) {
  if (!items.length) return null;
  return (
    <div className="chips-block" data-testid={testId}>
      <h3>{label}</h3>
      <ul className="chips">
        {items.map((x) => (
          <li key={x}>{x}</li>
        ))}
      </ul>
    </div>
  );
}

function Editor({
  episode,
  onSaved,
  onCancel,
  t,
}: {
  episode: EpisodeView;
  onSaved: (e: EpisodeView) => void;
  onCancel: () => void;
  t: Translate;
}) {
  const [title, setTitle] = useState(episode.title);
  const [summary, setSummary] = useState(episode.summary);
  const [content, setContent] = useState(episode.content);
  return (
    <EditorForm
      className="editor"
      submit={t('common.save')}
      save={async () => onSaved(await call('updateEpisode', { id: episode.id, patch: { title, summary, content } }))}
      onCancel={onCancel}
    >
      <label>
        {t('episode.edit.title')}
        <input value={title} onChange={(e) => setTitle(e.target.value)} required data-autofocus autoFocus />
      </label>
      <label>
        {t('episode.edit.summary')}
        <textarea value={summary} onChange={(e) => setSummary(e.target.value)} rows={3} />
      </label>
      <label>
        {t('episode.edit.content')}
        <textarea value={content} onChange={(e) => setContent(e.target.value)} rows={10} required />
      </label>
    </EditorForm>
  );
}

function valenceLabel(v: number, t: Translate): string {
  return v > 0.15 ? t('episode.valence.positive') : v < -0.15 ? t('episode.valence.negative') : t('episode.valence.neutral');
}

/** One memory in full: what happened, when exactly, from which messages, and what can be done with it. */
export function EpisodeScreen({ id }: { id: string }) {
  const t = useT();
  const locale = useLocale();
  const [detail, setDetail] = useState<Detail | null>(null);
  const [error, setError] = useState<ErrorInfo | null>(null);
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  /** The person's own word on this memory (markMemory): important, not important (fading), or none. */
  const [marked, setMarked] = useState<boolean | null>(null);

  useEffect(() => {
    let live = true;
    call('getEpisode', { id })
      .then((d) => live && setDetail(d))
      .catch((e: unknown) => live && setError(errorInfo(e)));
    // The mark lives with the forgetting state; a failure here only leaves the buttons unpressed.
    call('explainDecay', { id })
      .then((d) => live && setMarked(d.marked))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [id]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && !editing && !confirming && !(e.target as HTMLElement | null)?.closest('input, textarea')) goBack();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [editing, confirming]);

  const back = (
    <button type="button" className="link back" onClick={goBack}>
      ← {t('episode.back')}
    </button>
  );

  if (error) {
    return (
      <div className="screen episode-screen">
        {back}
        <h1 tabIndex={-1}>{error.code === 'NOT_FOUND' ? t('episode.notFound') : t('common.error')}</h1>
        {error.code !== 'NOT_FOUND' && <p className="error">{describeError(error, t)}</p>}
      </div>
    );
  }
  if (!detail) {
    return (
      <div className="screen episode-screen" aria-busy="true">
        {back}
        <p>{t('common.loading')}</p>
      </div>
    );
  }

  const e = detail.episode;
  const important = e.importance >= IMPORTANT;
  const update = (next: EpisodeView) => {
    setDetail({ ...detail, episode: next });
    useJournalStore.getState().patchEntry(next.id, { title: next.title, summary: next.summary, importance: next.importance });
  };
  const mark = async (important: boolean | null) => {
    setNotice(null);
    try {
      const r = await call('markMemory', { id: e.id, important });
      setMarked(r.marked);
      update({ ...e, importance: r.importance });
      if (r.marked === false) setNotice(t('mark.faded'));
    } catch (err) {
      setNotice(describeError(err, t));
    }
  };
  const remove = async () => {
    try {
      await call('deleteEpisode', { id: e.id });
      useJournalStore.getState().removeEntry(e.id);
      setConfirming(false);
      goBack();
    } catch (err) {
      setConfirming(false);
      setNotice(describeError(err, t));
    }
  };

  const meta = e.metadata;
  const day = dayKey(e.start, e.utcOffsetMin);

  return (
    <div className="screen episode-screen" data-testid="episode">
      {back}
      <article className="episode">
        <header className="episode-head">
          <p className="episode-date">
            <time dateTime={e.start}>{formatDay(day, locale)}</time>
          </p>
          <p className="episode-span" data-testid="episode-span">
            {formatSpan(e.start, e.end, e.utcOffsetMin, locale)} · {formatOffset(e.utcOffsetMin)}
            {e.processingStatus === 'open' && (
              <>
                {' '}
                <span className="entry-ongoing" title={t('journal.ongoingHint')}>
                  {t('journal.ongoing')}
                </span>
              </>
            )}
          </p>
          {!editing && (
            <h1 tabIndex={-1} data-testid="episode-title">
              {important && (
                <span className="entry-star" aria-label={t('journal.important')}>
                  ★{' '}
                </span>
              )}
              {e.title}
            </h1>
          )}
        </header>

        {!editing && (
          <div className="episode-actions" role="toolbar" aria-label={t('episode.facts')}>
            <MarkButton which="important" marked={marked} onMark={(m) => void mark(m)} t={t} />
            <button type="button" onClick={() => setEditing(true)} data-action="edit">
              {t('episode.edit')}
            </button>
            <button type="button" className="danger" onClick={() => setConfirming(true)} data-action="delete">
              {t('episode.delete')}
            </button>
            <MarkButton which="fade" marked={marked} onMark={(m) => void mark(m)} t={t} />
          </div>
        )}
        {notice && (
          <p className="notice" role="status">
            {notice}
          </p>
        )}

        {editing ? (
          <Editor
            episode={e}
            t={t}
            onCancel={() => setEditing(false)}
            onSaved={(next) => {
              update(next);
              setEditing(false);
              setNotice(t('episode.edit.saved'));
            }}
          />
        ) : (
          <div className="episode-body">
            <div className="episode-main">
              {e.summary && e.summary !== e.content && <p className="episode-summary">{e.summary}</p>}
              <section aria-labelledby="narrative">
                <h2 id="narrative" className="section-label">
                  {t('episode.narrative')}
                </h2>
                <div className="episode-content" data-testid="episode-content">
                  {e.content.split(/\n{1,}/).map((para, i) => (
                    <p key={i}>{para}</p>
                  ))}
                </div>
              </section>
              <MessageList
                messages={detail.messages}
                summary={t('episode.messages', { n: detail.messages.length })}
                locale={locale}
                testId="episode-messages"
              />
              <EpisodeFacts episodeId={e.id} linked={e.semanticNodeIds.length > 0} t={t} />
            </div>
            <aside className="episode-side">
              <h2 className="section-label">{t('episode.facts')}</h2>
              <dl className="facts">
                <dt>{t('episode.importance')}</dt>
                <dd>
                  <span className="importance" aria-hidden="true">
                    <span style={{ width: `${Math.round(e.importance * 100)}%` }} />
                  </span>
                  {Math.round(e.importance * 100)}%
                </dd>
                <dt>{t('episode.recalls')}</dt>
                <dd data-testid="recall-count">
                  {e.recallCount === 1 ? t('episode.recallsOnce') : t('episode.recallsValue', { n: e.recallCount })}
                </dd>
                <dt>{t('episode.lastAccessed')}</dt>
                <dd>{e.lastAccessed ? formatDateTime(e.lastAccessed, e.utcOffsetMin, locale) : t('episode.never')}</dd>
                <dt>{t('episode.builder')}</dt>
                <dd>{t(`episode.builder.${e.builder}`)}</dd>
                {meta.participants.length > 0 && (
                  <>
                    <dt>{t('episode.participants')}</dt>
                    <dd>{meta.participants.join(', ')}</dd>
                  </>
                )}
              </dl>
              <Chips label={t('episode.entities')} items={meta.entities} testId="entities" />
              <Chips label={t('episode.topics')} items={meta.topics} />
              <Chips label={t('episode.keywords')} items={e.keywords} testId="keywords" />
              {meta.emotions.length > 0 && (
                <div className="chips-block">
                  <h3>{t('episode.emotions')}</h3>
                  <ul className="chips">
                    {meta.emotions.map((m) => (
                      <li key={m.label} title={`${valenceLabel(m.valence, t)} · ${Math.round(m.intensity * 100)}%`}>
                        {m.label} · {valenceLabel(m.valence, t)}
                      </li>
                    ))}
                  </ul>
                </div>
              )}
              {meta.timeReferences.length > 0 && (
                <div className="chips-block">
                  <h3>{t('episode.timeRefs')}</h3>
                  <ul className="time-refs">
                    {meta.timeReferences.map((r, i) => (
                      <li key={i}>
                        “{r.phrase}” → <time dateTime={r.start}>{r.start.slice(0, 10)}</time>
                      </li>
                    ))}
                  </ul>
                </div>
              )}
            </aside>
          </div>
        )}
      </article>
      <ConfirmDialog
        open={confirming}
        title={t('episode.delete.title')}
        body={t('episode.delete.body', { title: e.title })}
        confirm={t('episode.delete.confirm')}
        cancel={t('common.cancel')}
        onConfirm={() => void remove()}
        onCancel={() => setConfirming(false)}
      />
    </div>
  );
}
