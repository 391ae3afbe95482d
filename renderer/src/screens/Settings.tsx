import { useEffect, useState } from 'react';
import { appVersion, call, connectionKind } from '../api/client';
import type { HealthOutput, OpOutput } from '../api/types';
import { Segmented } from '../components/Segmented';
import { LOCALE_NAMES, LOCALE_PREFERENCES, useLocale, useLocaleStore, useT, type LocalePreference, type Translate } from '../i18n';
import { formatDateTime } from '../lib/dates';
import { navigate } from '../store/route';
import { THEME_PREFERENCES, useThemeStore, type ThemePreference } from '../store/theme';

function formatSize(bytes: number | null): string {
  if (bytes === null) return '—';
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(0)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
}

type LlmSettings = OpOutput<'getLlmSettings'>;
type LlmTest = OpOutput<'llmTest'>;

function keyLabel(s: LlmSettings, t: Translate): string {
  if (!s.apiKeySet) return t('settings.llmKeyNone');
  return s.apiKeyHint ? t('settings.llmKeySet', { hint: s.apiKeyHint }) : t('settings.llmKeySetNoHint');
}

function TestResult({ result, t }: { result: LlmTest; t: Translate }) {
  if (!result.configured) return <p className="llm-test muted" data-testid="llm-test-result">{t('settings.llmTestUnconfigured')}</p>;
  if (!result.ok) {
    return (
      <p className="llm-test" data-ok="false" role="alert" data-testid="llm-test-result">
        {t('settings.llmTestFail', { message: result.error?.message ?? '—' })}
      </p>
    );
  }
  return (
    <p className="llm-test" data-ok="true" data-testid="llm-test-result">
      {t('settings.llmTestOk', { model: result.model ?? '—', ms: Math.round(result.latencyMs ?? 0) })}
      {result.modelListed === false && <span className="muted"> · {t('settings.llmTestNotListed')}</span>}
    </p>
  );
}

/** The language model connection: what is set (the key only as a hint), change it, test it. */
function LlmSection() {
  const t = useT();
  const [settings, setSettings] = useState<LlmSettings | null>(null);
  const [baseUrl, setBaseUrl] = useState('');
  const [model, setModel] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [removeKey, setRemoveKey] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [testing, setTesting] = useState(false);
  const [test, setTest] = useState<LlmTest | null>(null);

  const show = (s: LlmSettings) => {
    setSettings(s);
    setBaseUrl(s.baseUrl ?? '');
    setModel(s.model ?? '');
    setApiKey('');
    setRemoveKey(false);
  };

  useEffect(() => {
    call('getLlmSettings', {}).then(show, (e: unknown) => setError((e as Error).message));
  }, []);

  const save = async (enabled: boolean) => {
    setSaving(true);
    setError(null);
    setNotice(null);
    setTest(null);
    try {
      const input = enabled
        ? {
            enabled,
            baseUrl: baseUrl.trim(),
            model: model.trim(),
            ...(removeKey ? { apiKey: null } : apiKey ? { apiKey } : {}),
          }
        : { enabled };
      show(await call('setLlmSettings', input));
      setNotice(t('settings.llmSaved'));
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setSaving(false);
    }
  };

  const runTest = async () => {
    setTesting(true);
    setError(null);
    setTest(null);
    try {
      setTest(await call('llmTest', {}));
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setTesting(false);
    }
  };

  return (
    <section className="settings-section" aria-labelledby="s-llm" aria-busy={!settings && !error}>
      <h2 id="s-llm">{t('settings.llm')}</h2>
      <p className="muted">{t('settings.llmIntro')}</p>
      {settings && (
        <>
          <dl className="facts wide" data-testid="settings-llm">
            <dt>{t('settings.llmStatus')}</dt>
            <dd>{settings.enabled ? t('settings.llmOn', { source: t(`settings.llmSource.${settings.source}`) }) : t('settings.llmOff')}</dd>
            <dt>{t('settings.llmBaseUrl')}</dt>
            <dd>{settings.baseUrl ? <code>{settings.baseUrl}</code> : '—'}</dd>
            <dt>{t('settings.llmModel')}</dt>
            <dd>{settings.model ? <code>{settings.model}</code> : '—'}</dd>
            <dt>{t('settings.llmKey')}</dt>
            <dd>{keyLabel(settings, t)}</dd>
          </dl>
          {settings.source === 'startup' && <p className="muted">{t('settings.llmStartupNote')}</p>}
          <form
            className="llm-form"
            data-testid="llm-form"
            onSubmit={(e) => {
              e.preventDefault();
              void save(true);
            }}
          >
            <label>
              {t('settings.llmBaseUrl')}
              <input type="url" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} placeholder="http://127.0.0.1:11434/v1" required name="baseUrl" />
            </label>
            <label>
              {t('settings.llmModel')}
              <input value={model} onChange={(e) => setModel(e.target.value)} placeholder="qwen2.5:7b" required name="model" />
            </label>
            <label>
              {t('settings.llmKey')}
              <input
                type="password"
                value={apiKey}
                onChange={(e) => setApiKey(e.target.value)}
                placeholder={t('settings.llmKeyPlaceholder')}
                autoComplete="off"
                disabled={removeKey}
                name="apiKey"
              />
            </label>
            {settings.apiKeySet && (
              <label className="check">
                <input type="checkbox" checked={removeKey} onChange={(e) => setRemoveKey(e.target.checked)} />
                {t('settings.llmKeyRemove')}
              </label>
            )}
            <div className="actions">
              <button type="submit" className="primary" disabled={saving}>
                {t('settings.llmSave')}
              </button>
              <button type="button" onClick={() => void runTest()} disabled={testing} data-testid="llm-test">
                {testing ? t('settings.llmTesting') : t('settings.llmTest')}
              </button>
              {settings.enabled && settings.source === 'settings' && (
                <button type="button" onClick={() => void save(false)} disabled={saving}>
                  {t('settings.llmDisable')}
                </button>
              )}
            </div>
          </form>
          {notice && (
            <p className="notice" role="status">
              {notice}
            </p>
          )}
          {test && <TestResult result={test} t={t} />}
        </>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
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

      <LlmSection />

      <section className="settings-section" aria-labelledby="s-forgetting">
        <h2 id="s-forgetting">{t('settings.forgetting')}</h2>
        <p className="muted">{t('settings.forgettingBody')}</p>
        <button type="button" onClick={() => navigate({ name: 'care' })}>
          {t('settings.forgettingOpen')}
        </button>
      </section>

      <section className="settings-section" aria-labelledby="s-connection">
        <h2 id="s-connection">{t('settings.connection')}</h2>
        <p className="muted">{connectionKind() === 'desktop' ? t('status.desktop', { version: version ?? '…' }) : t('status.web')}</p>
      </section>
    </div>
  );
}
