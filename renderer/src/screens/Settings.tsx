import { useEffect, useState } from 'react';
import { appVersion, call, connectionKind } from '../api/client';
import type { HealthOutput } from '../api/types';
import { Segmented } from '../components/Segmented';
import { LOCALE_NAMES, LOCALE_PREFERENCES, useLocale, useLocaleStore, useT, type LocalePreference } from '../i18n';
import { formatDateTime } from '../lib/dates';
import { THEME_PREFERENCES, useThemeStore, type ThemePreference } from '../store/theme';

function formatSize(bytes: number | null): string {
  if (bytes === null) return '—';
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(0)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
}

export function SettingsScreen() {
  const t = useT();
  const locale = useLocale();
  const theme = useThemeStore((s) => s.preference);
  const setTheme = useThemeStore((s) => s.setPreference);
  const language = useLocaleStore((s) => s.preference);
  const setLanguage = useLocaleStore((s) => s.setPreference);
  const [health, setHealth] = useState<HealthOutput | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [version, setVersion] = useState<string | null>(null);

  useEffect(() => {
    call('health', {}).then(setHealth, (e: unknown) => setError((e as Error).message));
    void appVersion().then(setVersion);
  }, []);

  const owners = health?.owners ?? [];
  const sum = (k: 'episodes' | 'messages' | 'conversations') => owners.reduce((n, o) => n + o[k], 0);
  const lastWrite = owners.map((o) => o.lastWrite).filter((x): x is string => Boolean(x)).sort().at(-1);

  return (
    <div className="screen settings-screen">
      <header className="screen-head">
        <h1 tabIndex={-1}>{t('settings.title')}</h1>
      </header>

      <section className="settings-section" aria-labelledby="s-appearance">
        <h2 id="s-appearance">{t('settings.appearance')}</h2>
        <div className="setting">
          <span className="setting-label" id="l-language">
            {t('settings.language')}
          </span>
          <Segmented<LocalePreference>
            label={t('settings.language')}
            name="language"
            value={language}
            onChange={setLanguage}
            options={LOCALE_PREFERENCES.map((p) => ({ value: p, label: p === 'system' ? t('settings.language.system') : LOCALE_NAMES[p] }))}
          />
        </div>
        <div className="setting">
          <span className="setting-label">{t('settings.theme')}</span>
          <Segmented<ThemePreference>
            label={t('settings.theme')}
            name="theme"
            value={theme}
            onChange={setTheme}
            options={THEME_PREFERENCES.map((p) => ({ value: p, label: t(`settings.theme.${p}`) }))}
          />
        </div>
      </section>

      <section className="settings-section" aria-labelledby="s-data" aria-busy={!health && !error}>
        <h2 id="s-data">{t('settings.data')}</h2>
        {error && <p className="error">{error}</p>}
        {health && (
          <dl className="facts wide" data-testid="settings-data">
            <dt>{t('settings.location')}</dt>
            <dd>
              <code>{health.home ?? t('settings.memoryOnly')}</code>
            </dd>
            <dt>{t('settings.database')}</dt>
            <dd>{t('settings.databaseValue', { status: health.database.status, version: health.database.schemaVersion, size: formatSize(health.database.sizeBytes) })}</dd>
            <dt>{t('settings.counts')}</dt>
            <dd>{t('settings.countsValue', { episodes: sum('episodes'), messages: sum('messages'), conversations: sum('conversations') })}</dd>
            {lastWrite && (
              <>
                <dt>{t('settings.lastWrite')}</dt>
                <dd>{formatDateTime(lastWrite, -new Date().getTimezoneOffset(), locale)}</dd>
              </>
            )}
          </dl>
        )}
      </section>

      <section className="settings-section" aria-labelledby="s-embedding">
        <h2 id="s-embedding">{t('settings.embedding')}</h2>
        {health && (
          <dl className="facts wide" data-testid="settings-embedding">
            <dt>{t('settings.model')}</dt>
            <dd>
              <code>{health.embedding.modelId}</code> —{' '}
              {health.embedding.available
                ? health.embedding.source
                  ? t('settings.modelReady', { source: health.embedding.source })
                  : t('settings.modelReadyPlain')
                : t('settings.modelMissing')}
            </dd>
            {health.embedding.reason && (
              <>
                <dt>{t('settings.modelReason')}</dt>
                <dd className="muted">{health.embedding.reason}</dd>
              </>
            )}
          </dl>
        )}
      </section>

      <section className="settings-section later" aria-labelledby="s-llm">
        <h2 id="s-llm">{t('settings.llm')}</h2>
        <p className="muted">{t('settings.llmLater')}</p>
      </section>

      <section className="settings-section later" aria-labelledby="s-forgetting">
        <h2 id="s-forgetting">{t('settings.forgetting')}</h2>
        <p className="muted">{t('settings.forgettingLater')}</p>
      </section>

      <section className="settings-section" aria-labelledby="s-connection">
        <h2 id="s-connection">{t('settings.connection')}</h2>
        <p className="muted">{connectionKind() === 'desktop' ? t('status.desktop', { version: version ?? '…' }) : t('status.web')}</p>
      </section>
    </div>
  );
}
