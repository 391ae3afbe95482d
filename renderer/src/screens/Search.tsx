import { useEffect, useMemo } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { EpisodeResult, FactResult, SearchKind, SearchMode, SearchResult } from '../api/types';
import { EmptyState } from '../components/EmptyState';
import { FactBadges, entityTypeName } from '../components/FactParts';
import { RouteLink } from '../components/RouteLink';
import { Segmented } from '../components/Segmented';
import { useLocale, useT, type Locale, type Translate } from '../i18n';
import { formatDateTime, formatDays, formatHere, formatOffset } from '../lib/dates';
import { describeError } from '../lib/errors';
import { highlight, termPattern } from '../lib/highlight';
import { snippet } from '../lib/terms';
import { navigate } from '../store/route';
import { useSearchStore } from '../store/search';
import { SourceFilter } from './search/SourceFilter';
import { describeMatch } from '../lib/match';

const IMPORTANCE_STEPS = [
  { value: 0, key: 'search.importance.any' },
  { value: 0.3, key: 'search.importance.some' },
  { value: 0.5, key: 'search.importance.medium' },
  { value: 0.8, key: 'search.importance.high' },
] as const;

/** Why a result matched: by words and/or meaning, which words and how close, the score. */
function Why({ r, t }: { r: SearchResult; t: Translate }) {
  return (
    <p className="result-why">
      <span className="why-label">{t('search.why')}:</span>{' '}
      {r.reason.matchedBy.map((m) => (
        <span key={m} className="badge" data-match={m}>
          {t(`search.matchedBy.${m}`)}
        </span>
      ))}{' '}
      <span className="explanation">{describeMatch(r, t)}</span>{' '}
      <span className="score">{t('search.score', { score: r.score.toFixed(3) })}</span>
    </p>
  );
}

/** Which days a period the query named was read as; the days alone when the query named them so ("March 2024"). */
function PeriodRead({ phrase, days, t }: { phrase: string; days: string; t: Translate }) {
  return <>{days.toLowerCase() === phrase.toLowerCase() ? t('search.periodAsSaid', { days }) : t('search.period', { phrase, days })}</>;
}

/** An episode found: its title, when it happened (in its own time zone), the summary or the matching messages with the matched words marked. */
function EpisodeHit({ r, locale, t }: { r: EpisodeResult; locale: Locale; t: Translate }) {
  const pattern = useMemo(() => termPattern(r.reason.terms), [r.reason.terms]);
  return (
    <li className="result" data-kind="episode" data-episode={r.id}>
      <RouteLink to={{ name: 'episode', id: r.id }} className="result-link">
        <span className="result-title">{highlight(r.title, pattern)}</span>
        <time className="result-time" dateTime={r.start}>
          {formatDateTime(r.start, r.utcOffsetMin, locale)} · {formatOffset(r.utcOffsetMin)}
        </time>
      </RouteLink>
      <p className="result-snippet">{highlight(snippet(r.summary, r.text, pattern), pattern)}</p>
      <Why r={r} t={t} />
    </li>
  );
}

/** A fact found: marked as a fact, its kind and label, its current value, version and when it last changed. */
function FactHit({ r, locale, t }: { r: FactResult; locale: Locale; t: Translate }) {
  const pattern = useMemo(() => termPattern(r.reason.terms), [r.reason.terms]);
  return (
    <li className="result result-fact" data-kind="semantic" data-fact={r.id}>
      <RouteLink to={{ name: 'knowledge', id: r.id }} className="result-link">
        <span className="result-title">
          <span className="badge fact-badge">{t('search.fact')}</span>{' '}
          <span className="result-type">{entityTypeName(r.entityType, t)}</span> {highlight(r.title, pattern)}
        </span>
        <span className="result-time">
          <FactBadges version={r.version} confidence={r.confidence} t={t} /> ·{' '}
          <time dateTime={r.updatedAt}>{t('knowledge.changed', { date: formatHere(r.updatedAt, locale) })}</time>
        </span>
      </RouteLink>
      <p className="result-snippet">{highlight(r.summary, pattern)}</p>
      <Why r={r} t={t} />
    </li>
  );
}

export function SearchScreen({ q }: { q: string }) {
  const t = useT();
  const locale = useLocale();
  const { text, mode, kind, filters, sources, output, loading, error } = useSearchStore(
    useShallow((s) => ({
      text: s.text,
      mode: s.mode,
      kind: s.kind,
      filters: s.filters,
      sources: s.sources,
      output: s.output,
      loading: s.loading,
      error: s.error,
    })),
  );
  const { setText, setMode, setKind, setFilters, loadSources, run } = useSearchStore.getState();

  // The sources to filter by, read on arrival (an import since the last visit may have added one).
  useEffect(() => {
    void loadSources();
  }, [loadSources]);

  // A search in the address (#/search?q=…, e.g. after Back) runs once on arrival.
  useEffect(() => {
    if (q && q !== useSearchStore.getState().text.trim()) void run(q);
    else if (q) void run();
  }, [q, run]);

  const submit = () => {
    const query = text.trim();
    if (!query) return;
    navigate({ name: 'search', q: query }, { replace: true });
    void run(query, { force: true });
  };

  const modes: { value: SearchMode; label: string }[] = [
    { value: 'hybrid', label: t('search.mode.hybrid') },
    { value: 'bm25', label: t('search.mode.bm25') },
    { value: 'vector', label: t('search.mode.vector') },
  ];
  const kinds: { value: SearchKind; label: string }[] = [
    { value: 'all', label: t('search.kind.all') },
    { value: 'episodic', label: t('search.kind.episodic') },
    { value: 'semantic', label: t('search.kind.semantic') },
  ];
  // Dates and sources describe episodes (when they happened, where their conversations came from); a fact search leaves them out.
  const episodeFiltersOff = kind === 'semantic';
  const episodeFiltersSet = Boolean(filters.since || filters.until || filters.source);

  return (
    <div className="screen search-screen">
      <header className="screen-head">
        <h1 tabIndex={-1}>{t('search.title')}</h1>
      </header>
      <form
        className="search-form"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <div className="search-row">
          <label htmlFor="search-input" className="visually-hidden">
            {t('search.label')}
          </label>
          <input
            id="search-input"
            type="search"
            value={text}
            placeholder={t('search.placeholder')}
            onChange={(e) => setText(e.target.value)}
            autoComplete="off"
            spellCheck={false}
            data-autofocus
            autoFocus
          />
          <button type="submit" className="primary">
            {t('search.submit')}
          </button>
        </div>
        <div className="search-options">
          <Segmented label={t('search.kind')} value={kind} options={kinds} onChange={setKind} name="kind" />
          <Segmented label={t('search.mode')} value={mode} options={modes} onChange={setMode} name="mode" />
          <fieldset className="filters">
            <legend className="visually-hidden">{t('search.filters')}</legend>
            <label title={episodeFiltersOff ? t('search.datesOff') : undefined}>
              {t('search.since')}
              <input
                type="date"
                value={filters.since}
                disabled={episodeFiltersOff}
                onChange={(e) => setFilters({ since: e.target.value })}
              />
            </label>
            <label title={episodeFiltersOff ? t('search.datesOff') : undefined}>
              {t('search.until')}
              <input
                type="date"
                value={filters.until}
                disabled={episodeFiltersOff}
                onChange={(e) => setFilters({ until: e.target.value })}
              />
            </label>
            <SourceFilter
              value={filters.source}
              sources={sources}
              disabled={episodeFiltersOff}
              onChange={(source) => setFilters({ source })}
              t={t}
            />
            <label>
              {t('search.minImportance')}
              <select value={filters.minImportance} onChange={(e) => setFilters({ minImportance: Number(e.target.value) })}>
                {IMPORTANCE_STEPS.map((s) => (
                  <option key={s.value} value={s.value}>
                    {t(s.key)}
                  </option>
                ))}
              </select>
            </label>
          </fieldset>
          {kind === 'all' && episodeFiltersSet && <p className="muted search-note">{t('search.episodeFiltersOnly')}</p>}
        </div>
      </form>

      <section className="results" aria-live="polite" aria-busy={loading}>
        {error && (
          <p className="error" role="alert">
            {describeError(error, t)}
          </p>
        )}
        {output && output.warnings.length > 0 && (
          <ul className="warnings">
            {output.warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        )}
        {output?.periods.map((p) => (
          <p key={p.phrase} className="search-period" data-testid="search-period">
            <PeriodRead phrase={p.phrase} days={formatDays(p.from, p.to, locale)} t={t} />
          </p>
        ))}
        {output && output.results.length > 0 && (
          <>
            <p className="results-count" data-testid="results-count">
              {output.results.length === 1 ? t('search.result') : t('search.results', { n: output.results.length })}
            </p>
            <ol className="result-list">
              {output.results.map((r) =>
                r.kind === 'semantic' ? (
                  <FactHit key={r.id} r={r} locale={locale} t={t} />
                ) : (
                  <EpisodeHit key={r.id} r={r} locale={locale} t={t} />
                ),
              )}
            </ol>
          </>
        )}
        {output && output.results.length === 0 && !loading && <p className="no-results">{t('search.none', { query: output.query })}</p>}
        {!output && !loading && !error && (
          <EmptyState title={t('search.hint.title')} testId="search-hint">
            {t('search.hint.body')}
          </EmptyState>
        )}
      </section>
    </div>
  );
}
