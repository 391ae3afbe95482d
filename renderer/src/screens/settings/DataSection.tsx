import { ModelProgress } from '../../components/ModelProgress';
import type { EngineSettings, HealthOutput, StartupView } from '../../api/types';
import { useLocale, useT, type Translate } from '../../i18n';
import { formatDateTime } from '../../lib/dates';
import { describeError, type ErrorInfo } from '../../lib/errors';
import { formatBytes } from '../../lib/format';
import { BackupsSetting } from './BackupsSetting';
import { LocationSetting } from './LocationSetting';
import { ModelSetting } from './ModelSetting';

/** The embedding model: which one, whether it is ready, and why not (search then matches words only). */
function EmbeddingFacts({ embedding, t }: { embedding: HealthOutput['embedding']; t: Translate }) {
  return (
    <dl className="facts wide" data-testid="settings-embedding">
      <dt>{t('settings.model')}</dt>
      <dd>
        <code>{embedding.modelId}</code> —{' '}
        {embedding.available
          ? embedding.source
            ? t('settings.modelReady', { source: embedding.source })
            : t('settings.modelReadyPlain')
          : t('settings.modelMissing')}
      </dd>
      {embedding.reason && (
        <>
          <dt>{t('settings.modelReason')}</dt>
          <dd className="muted">{embedding.reason}</dd>
        </>
      )}
    </dl>
  );
}

interface Props {
  health: HealthOutput | null;
  settings: EngineSettings | null;
  startup: StartupView | null;
  error: ErrorInfo | null;
  /** Asks for health again (after a model change). */
  onChanged: () => void;
}

/**
 * What is stored and where (with moving it elsewhere), backups and restoring one, and the embedding
 * model: its state (with its download) and choosing another.
 */
export function DataSection({ health, settings, startup, error, onChanged }: Props) {
  const t = useT();
  const locale = useLocale();
  const owners = health?.owners ?? [];
  const sum = (k: 'episodes' | 'messages' | 'conversations') => owners.reduce((n, o) => n + o[k], 0);
  const lastWrite = owners
    .map((o) => o.lastWrite)
    .filter((x): x is string => Boolean(x))
    .sort()
    .at(-1);

  return (
    <section className="settings-section" aria-labelledby="s-data" aria-busy={!(health && settings && startup) && !error}>
      <h2 id="s-data">{t('settings.data')}</h2>
      {error && <p className="error">{describeError(error, t)}</p>}
      {/* While the engine opens (first run: the model downloads) the facts below wait for it. */}
      <ModelProgress testId="settings-model-progress" />
      {health && settings && startup && (
        <>
          <dl className="facts wide" data-testid="settings-data">
            <dt>{t('settings.database')}</dt>
            <dd>
              {t('settings.databaseValue', {
                status: health.database.status,
                version: health.database.schemaVersion,
                size: formatBytes(health.database.sizeBytes),
              })}
            </dd>
            <dt>{t('settings.counts')}</dt>
            <dd>
              {t('settings.countsValue', { episodes: sum('episodes'), messages: sum('messages'), conversations: sum('conversations') })}
            </dd>
            {lastWrite && (
              <>
                <dt>{t('settings.lastWrite')}</dt>
                <dd>{formatDateTime(lastWrite, -new Date().getTimezoneOffset(), locale)}</dd>
              </>
            )}
          </dl>
          <h3 id="s-folder">{t('settings.location')}</h3>
          <LocationSetting startup={startup} />
          <h3 id="s-backups">{t('settings.backups')}</h3>
          <BackupsSetting startup={startup} />
          <h3 id="s-embedding">{t('settings.embedding')}</h3>
          <EmbeddingFacts embedding={health.embedding} t={t} />
          <ModelSetting startup={startup} health={health} onChanged={onChanged} />
        </>
      )}
    </section>
  );
}
