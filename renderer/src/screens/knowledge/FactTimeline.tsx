import type { FactVersion } from '../../api/types';
import { EpisodeLink } from '../../components/FactParts';
import type { Locale, MessageKey, Translate } from '../../i18n';
import { formatHere } from '../../lib/dates';

const METHODS: Record<FactVersion['method'], MessageKey> = {
  diff_analysis: 'knowledge.method.diff_analysis',
  upsert: 'knowledge.method.upsert',
  memorize: 'knowledge.method.memorize',
  user_feedback: 'knowledge.method.user_feedback',
};

/** How this version came after the one before: first learnt, updated (the world changed), or a correction. */
function changeOf(v: FactVersion): MessageKey {
  return v.link === 'corrects' ? 'knowledge.change.corrects' : v.link === 'updates' ? 'knowledge.change.updates' : 'knowledge.change.first';
}

/** Every kept version, oldest first: its value (struck through when later found wrong), when, how, and the episode behind it. */
export function FactTimeline({
  versions,
  current,
  locale,
  t,
}: {
  versions: readonly FactVersion[];
  current: number;
  locale: Locale;
  t: Translate;
}) {
  return (
    <ol className="fact-timeline" data-testid="fact-timeline">
      {versions.map((v) => (
        <li
          key={v.version}
          className="fact-version-row"
          data-version={v.version}
          data-link={v.link ?? 'first'}
          data-corrected={v.corrected || undefined}
          aria-current={v.version === current ? 'true' : undefined}
        >
          <div className="fact-version-head">
            <span className="badge fact-version">v{v.version}</span>
            <span className="fact-change" data-change={v.link ?? 'first'}>
              {t(changeOf(v))}
            </span>
            {v.corrected && (
              <span className="fact-change" data-change="corrected">
                {t('knowledge.change.correctedLater')}
              </span>
            )}
            {v.version === current && (
              <span className="fact-change" data-change="current">
                {t('knowledge.change.current')}
              </span>
            )}
            <time dateTime={v.createdAt}>{formatHere(v.createdAt, locale)}</time>
          </div>
          {v.corrected ? (
            <p className="fact-version-value">
              <del>{v.value}</del>
            </p>
          ) : (
            <p className="fact-version-value">{v.value}</p>
          )}
          {v.context && <p className="fact-version-context muted">{v.context}</p>}
          <p className="fact-version-meta">
            {t(METHODS[v.method])}
            {v.episode && (
              <>
                {' · '}
                {t('knowledge.fromEpisode')} <EpisodeLink episode={v.episode} locale={locale} />
              </>
            )}
          </p>
        </li>
      ))}
    </ol>
  );
}
