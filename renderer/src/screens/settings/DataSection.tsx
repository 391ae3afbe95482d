import { call } from '../../api/client';
import { ModelProgress } from '../../components/ModelProgress';
import type { EngineSettings, HealthOutput } from '../../api/types';
import { useLocale, useT, type Translate } from '../../i18n';
import { formatDateTime } from '../../lib/dates';
import { baseName, formatBytes } from '../../lib/format';
import { ActionStatus, useAction } from './form';

/** "Back up now": a compressed copy of the whole store (in `<data folder>/backups`); says which file and how big. */
function BackupButton() {
  const t = useT();
  const action = useAction();
  const backUp = () =>
    action.run(async () => {
      const b = await call('backup', {});
      const name = baseName(b.file);
      return t('settings.backupDone', { name, size: formatBytes(b.bytes), folder: b.file.slice(0, -name.length - 1) });
    });
  return (
    <>
      <p className="muted">{t('settings.backupIntro')}</p>
      <div className="actions">
        <button type="button" onClick={() => void backUp()} disabled={action.busy} data-testid="backup-run">
          {action.busy ? t('settings.backupRunning') : t('settings.backupRun')}
        </button>
      </div>
      <ActionStatus action={action} testId="backup" />
    </>
  );
}

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

/** Where everything lives, what is stored, a backup, and the embedding model's state (with its first-run download). */
export function DataSection({ health, settings, error }: { health: HealthOutput | null; settings: EngineSettings | null; error: string | null }) {
  const t = useT();
  const locale = useLocale();
  const owners = health?.owners ?? [];
  const sum = (k: 'episodes' | 'messages' | 'conversations') => owners.reduce((n, o) => n + o[k], 0);
  const lastWrite = owners.map((o) => o.lastWrite).filter((x): x is string => Boolean(x)).sort().at(-1);

  return (
    <section className="settings-section" aria-labelledby="s-data" aria-busy={!(health && settings) && !error}>
      <h2 id="s-data">{t('settings.data')}</h2>
      {error && <p className="error">{error}</p>}
      {/* While the engine opens (first run: the model downloads) the facts below wait for it. */}
      <ModelProgress testId="settings-model-progress" />
      {health && settings && (
        <>
          <dl className="facts wide" data-testid="settings-data">
            <dt>{t('settings.location')}</dt>
            <dd>
              <code>{settings.dataDir ?? t('settings.memoryOnly')}</code>
            </dd>
            <dt>{t('settings.database')}</dt>
            <dd>{t('settings.databaseValue', { status: health.database.status, version: health.database.schemaVersion, size: formatBytes(health.database.sizeBytes) })}</dd>
            <dt>{t('settings.counts')}</dt>
            <dd>{t('settings.countsValue', { episodes: sum('episodes'), messages: sum('messages'), conversations: sum('conversations') })}</dd>
            {lastWrite && (
              <>
                <dt>{t('settings.lastWrite')}</dt>
                <dd>{formatDateTime(lastWrite, -new Date().getTimezoneOffset(), locale)}</dd>
              </>
            )}
          </dl>
          <BackupButton />
          <h3 id="s-embedding">{t('settings.embedding')}</h3>
          <EmbeddingFacts embedding={health.embedding} t={t} />
        </>
      )}
    </section>
  );
}
