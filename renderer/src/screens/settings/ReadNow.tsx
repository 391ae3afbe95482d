import { useState } from 'react';
import { call, followNextCall, type CallProgress } from '../../api/client';
import type { DiscoveryRun } from '../../api/types';
import { DiscoverySummary } from '../../components/DiscoverySummary';
import { ProgressBar } from '../../components/ProgressBar';
import { useT, type Translate } from '../../i18n';
import { ActionStatus, useAction } from './form';

function progressText(running: boolean, progress: CallProgress | null, run: DiscoveryRun | null, t: Translate): string {
  if (running) return progress ? t('discovery.progress', { done: progress.done, total: progress.total }) : t('discovery.starting');
  return t('discovery.progressDone', { n: (run?.episodes ?? 0) + (run?.failed ?? 0) });
}

/**
 * "Read them now": knowledge discovery over the episodes waiting for it, with the engine's progress
 * and what it learnt; without a language model, the engine's answer and the way to set one up.
 */
export function ReadNow({ waiting, onDone, onSetUpLlm }: { waiting: number; onDone: () => void; onSetUpLlm: () => void }) {
  const t = useT();
  const action = useAction();
  const [progress, setProgress] = useState<CallProgress | null>(null);
  const [run, setRun] = useState<DiscoveryRun | null>(null);

  const start = () =>
    action.run(async () => {
      setRun(null);
      setProgress(null);
      const stop = followNextCall('runDiscovery', { onProgress: setProgress });
      try {
        setRun(await call('runDiscovery', {}));
      } finally {
        stop();
        onDone();
      }
      return null;
    });

  const showBar = action.busy || (run !== null && !run.skipped);
  return (
    <div className="read-now">
      <div className="actions">
        <button type="button" onClick={() => void start()} disabled={action.busy || waiting === 0} data-testid="discovery-run">
          {action.busy ? t('settings.discoveryRunning') : t('settings.discoveryRun')}
        </button>
      </div>
      {showBar && (
        <div data-testid="discovery-progress" data-state={action.busy ? 'running' : 'done'}>
          <ProgressBar
            label={t('discovery.progressLabel')}
            done={action.busy ? (progress?.done ?? null) : 1}
            total={action.busy ? (progress?.total ?? null) : 1}
            text={progressText(action.busy, progress, run, t)}
          />
        </div>
      )}
      {run && (
        <DiscoverySummary run={run} t={t} testId="discovery-result">
          {run.skipped && (
            <button type="button" className="link" onClick={onSetUpLlm}>
              {t('discovery.setUpLlm')}
            </button>
          )}
        </DiscoverySummary>
      )}
      <ActionStatus action={action} testId="discovery" />
    </div>
  );
}
