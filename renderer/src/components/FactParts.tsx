/** The small pieces every view of a fact shares: its entity type's name, its version and confidence, a link to it. */
import type { ReactNode } from 'react';
import type { EpisodeRef, FactView } from '../api/types';
import type { Locale, MessageKey, Translate } from '../i18n';
import { dayKey, formatDay } from '../lib/dates';
import { RouteLink } from './RouteLink';

/** The entity types the discovery prompt asks for; any other type is shown as written. */
const TYPE_NAMES: Partial<Record<string, MessageKey>> = {
  person: 'knowledge.type.person',
  project: 'knowledge.type.project',
  place: 'knowledge.type.place',
  location: 'knowledge.type.place',
  organization: 'knowledge.type.organization',
  preference: 'knowledge.type.preference',
  event: 'knowledge.type.event',
  object: 'knowledge.type.object',
  concept: 'knowledge.type.concept',
  fact: 'knowledge.type.fact',
};

export function entityTypeName(type: string, t: Translate): string {
  const key = TYPE_NAMES[type];
  return key ? t(key) : type.replace(/_/g, ' ');
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

type FactGist = Pick<FactView, 'id' | 'label' | 'value' | 'version' | 'confidence' | 'entityType'>;

/** A fact as one link: its label, version and confidence, then its current value; `note` says how it is connected. */
export function FactCard({ fact, t, note, current }: { fact: FactGist; t: Translate; note?: ReactNode; current?: boolean }) {
  return (
    <RouteLink to={{ name: 'knowledge', id: fact.id }} className="fact-card" data-fact={fact.id} aria-current={current ? 'true' : undefined}>
      <span className="fact-card-head">
        <span className="fact-label">{fact.label}</span>
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
