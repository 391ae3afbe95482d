import type { ReactNode } from 'react';
import type { DiscoveryRun } from '../api/types';
import type { Translate } from '../i18n';

/** The sentences that say what a knowledge-discovery run did: facts learnt and changed, and what still waits. */
function runSentences(run: DiscoveryRun, cancelled: boolean, t: Translate): string[] {
  if (run.skipped) return [t('discovery.skipped', { n: run.remaining })];
  const f = run.facts;
  const lines = [
    run.episodes === 0 && run.failed === 0
      ? t('discovery.nothing')
      : t('discovery.result', {
          episodes: run.episodes,
          created: f.created,
          updated: f.evolved + f.corrected,
          confirmed: f.reinforced + f.merged,
        }),
  ];
  if (run.relationships > 0) lines.push(t('discovery.relationships', { n: run.relationships }));
  if (run.evicted.length > 0) lines.push(t('discovery.evicted', { n: run.evicted.length }));
  if (run.failed > 0) lines.push(t('discovery.failed', { n: run.failed }));
  if (run.stoppedEarly) lines.push(t(cancelled ? 'discovery.cancelled' : 'discovery.stopped', { n: run.remaining }));
  else if (run.remaining > 0) lines.push(t('discovery.remaining', { n: run.remaining }));
  return lines;
}

/**
 * The outcome of knowledge discovery (from Settings' "Read them now" or an import's last phase);
 * `lead` comes before the text (what ran), `children` after it (e.g. the way to set up a language model);
 * `cancelled`: the person stopped the run (so it did not stop for the language model).
 */
export function DiscoverySummary(props: {
  run: DiscoveryRun;
  t: Translate;
  testId: string;
  lead?: string;
  cancelled?: boolean;
  children?: ReactNode;
}) {
  const { run, t, testId, lead, cancelled = false, children } = props;
  return (
    <div className="discovery-summary" data-testid={testId} data-skipped={run.skipped ? true : undefined}>
      <p>
        {lead && <strong className="lead">{lead}</strong>}
        {runSentences(run, cancelled, t).join(' ')} {children}
      </p>
      {run.errors.length > 0 && (
        <details className="warnings">
          <summary>{t('discovery.errors', { n: run.errors.length })}</summary>
          <ul>
            {run.errors.slice(0, 50).map((e, i) => (
              <li key={i}>{e}</li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
