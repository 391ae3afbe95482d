import { useEffect, useState } from 'react';
import { call } from '../api/client';
import type { EpisodeFact } from '../api/types';
import { FactCard } from '../components/FactParts';
import type { MessageKey, Translate } from '../i18n';
import { describeError, errorInfo, type ErrorInfo } from '../lib/errors';

const ROLES: Record<EpisodeFact['roles'][number], MessageKey> = {
  discovery: 'episode.role.discovery',
  linked: 'episode.role.linked',
  evolution: 'episode.role.evolution',
};

/** The facts this episode taught, repeated or changed (episodeKnowledge), each a link to the fact. */
export function EpisodeFacts({ episodeId, linked, t }: { episodeId: string; linked: boolean; t: Translate }) {
  const [facts, setFacts] = useState<EpisodeFact[] | null>(linked ? null : []);
  const [error, setError] = useState<ErrorInfo | null>(null);
  useEffect(() => {
    if (!linked) return;
    let live = true;
    call('episodeKnowledge', { id: episodeId })
      .then((r) => live && setFacts(r.facts.filter((f) => f.fact.tier !== 'trash')))
      .catch((e: unknown) => live && setError(errorInfo(e)));
    return () => {
      live = false;
    };
  }, [episodeId, linked]);

  return (
    <section aria-labelledby="episode-learnt" aria-busy={facts === null && !error} data-testid="episode-facts">
      <h2 id="episode-learnt" className="section-label">
        {t('episode.learnt')}
      </h2>
      {error && <p className="error">{describeError(error, t)}</p>}
      {facts?.length === 0 && <p className="later-note">{t('episode.learntNone')}</p>}
      {facts && facts.length > 0 && (
        <ul className="fact-cards">
          {facts.map(({ fact, roles }) => (
            <li key={fact.id}>
              <FactCard fact={fact} t={t} note={roles.map((r) => t(ROLES[r])).join(' · ')} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
