import type { RelatedFact } from '../../api/types';
import { FactCard } from '../../components/FactParts';
import type { MessageKey, Translate } from '../../i18n';

const RELATIONS: Record<RelatedFact['type'], MessageKey> = {
  related: 'knowledge.relation.related',
  evolved_from: 'knowledge.relation.evolved_from',
  part_of: 'knowledge.relation.part_of',
  similar_to: 'knowledge.relation.similar_to',
  opposite_to: 'knowledge.relation.opposite_to',
  temporal: 'knowledge.relation.temporal',
};

function RelatedList({
  items,
  label,
  via,
  testId,
  t,
}: {
  items: readonly RelatedFact[];
  label: string;
  via: Map<string, string>;
  testId: string;
  t: Translate;
}) {
  if (!items.length) return null;
  return (
    <>
      <h4 className="fact-subhead">{label}</h4>
      <ul className="fact-cards" data-testid={testId}>
        {items.map((r) => {
          const through = r.via ? via.get(r.via) : undefined;
          return (
            <li key={r.fact.id}>
              <FactCard
                fact={r.fact}
                t={t}
                note={[
                  t(RELATIONS[r.type]),
                  r.description || (r.discoveryEpisode && t('knowledge.learntTogether', { title: r.discoveryEpisode.title })),
                  through && t('knowledge.via', { label: through }),
                ]
                  .filter(Boolean)
                  .join(' · ')}
              />
            </li>
          );
        })}
      </ul>
    </>
  );
}

/** Facts connected to this one: directly, and through one of those (two hops at most). */
export function RelatedFacts({ direct, indirect, t }: { direct: readonly RelatedFact[]; indirect: readonly RelatedFact[]; t: Translate }) {
  const via = new Map(direct.map((r) => [r.fact.id, r.fact.label]));
  return (
    <>
      <RelatedList items={direct} label={t('knowledge.related.direct')} via={via} testId="related-direct" t={t} />
      <RelatedList items={indirect} label={t('knowledge.related.indirect')} via={via} testId="related-indirect" t={t} />
    </>
  );
}
