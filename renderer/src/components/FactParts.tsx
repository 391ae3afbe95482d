/** The small pieces every view of a fact shares: its entity type's name, its version and confidence, a link to it. */
import type { ReactNode } from 'react';
import type { EpisodeRef, FactView } from '../api/types';
import type { Locale, MessageKey, Translate } from '../i18n';
import { dayKey, formatDay } from '../lib/dates';
import { RouteLink } from './RouteLink';

/** The entity types the discovery prompt asks for, one and many; any other type is shown as written. */
const TYPE_NAMES: Partial<Record<string, { one: MessageKey; many: MessageKey }>> = {
  person: { one: 'knowledge.type.person', many: 'knowledge.types.person' },
  project: { one: 'knowledge.type.project', many: 'knowledge.types.project' },
  place: { one: 'knowledge.type.place', many: 'knowledge.types.place' },
  location: { one: 'knowledge.type.place', many: 'knowledge.types.place' },
  organization: { one: 'knowledge.type.organization', many: 'knowledge.types.organization' },
  preference: { one: 'knowledge.type.preference', many: 'knowledge.types.preference' },
  event: { one: 'knowledge.type.event', many: 'knowledge.types.event' },
  object: { one: 'knowledge.type.object', many: 'knowledge.types.object' },
  concept: { one: 'knowledge.type.concept', many: 'knowledge.types.concept' },
  fact: { one: 'knowledge.type.fact', many: 'knowledge.types.fact' },
};

/** "Person" for one fact's kind, "People" (`many`) for a group of them. */
export function entityTypeName(type: string, t: Translate, many = false): string {
  const names = TYPE_NAMES[type];
  return names ? t(many ? names.many : names.one) : type.replace(/_/g, ' ');
}

export function FactBadges({ version, confidence, t }: { version: number; confidence: number; t: Translate }) {
  return (
    <span className="fact-badges">
      <span className="badge fact-version" title={t('knowledge.version', { n: version })} data-testid="fact-version">
        v{version}
      </span>
      <span className="fact-confidence" title={t('knowledge.confidenceHint')}>
        {t('knowledge.confidence', { n: Math.round(confidence * 100) })}
      </span>
    </span>
  );
}

type FactGist = Pick<FactView, 'id' | 'label' | 'value' | 'version' | 'confidence' | 'entityType' | 'marked'>;

/**
 * A fact as one link: its label, version and confidence, then its current value; `note` says how it
 * is connected. `autoFocus`: where the focus lands when the screen opens (see App's focus rule).
 */
export function FactCard({
  fact,
  t,
  note,
  current,
  autoFocus,
}: {
  fact: FactGist;
  t: Translate;
  note?: ReactNode;
  current?: boolean;
  autoFocus?: boolean;
}) {
  return (
    <RouteLink
      to={{ name: 'knowledge', id: fact.id }}
      className="fact-card"
      data-fact={fact.id}
      aria-current={current ? 'true' : undefined}
      data-autofocus={autoFocus || undefined}
    >
      <span className="fact-card-head">
        <span className="fact-label">
          {fact.marked && (
            <span className="entry-star" role="img" aria-label={t('journal.important')}>
              ★{' '}
            </span>
          )}
          {fact.label}
        </span>
        <FactBadges version={fact.version} confidence={fact.confidence} t={t} />
      </span>
      <span className="fact-value">{fact.value}</span>
      {note && <span className="fact-note">{note}</span>}
    </RouteLink>
  );
}

/** Episodes as links, each with the local day it happened on. */
export function EpisodeLinks({ episodes, locale, testId }: { episodes: readonly EpisodeRef[]; locale: Locale; testId?: string }) {
  return (
    <ul className="episode-links" data-testid={testId}>
      {episodes.map((e) => (
        <li key={e.id}>
          <EpisodeLink episode={e} locale={locale} />
        </li>
      ))}
    </ul>
  );
}

export function EpisodeLink({ episode, locale }: { episode: EpisodeRef; locale: Locale }) {
  return (
    <RouteLink to={{ name: 'episode', id: episode.id }} className="episode-link" data-episode-link={episode.id}>
      <span className="episode-link-title">{episode.title}</span>{' '}
      <time dateTime={episode.start}>{formatDay(dayKey(episode.start, episode.utcOffsetMin), locale)}</time>
    </RouteLink>
  );
}
