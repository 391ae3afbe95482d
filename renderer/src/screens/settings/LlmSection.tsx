import { useEffect, useState } from 'react';
import { call } from '../../api/client';
import type { OpOutput } from '../../api/types';
import { useT, type Translate } from '../../i18n';
import { describeError, errorInfo, type ErrorInfo } from '../../lib/errors';

type LlmSettings = OpOutput<'getLlmSettings'>;
type LlmTest = OpOutput<'llmTest'>;

function keyLabel(s: LlmSettings, t: Translate): string {
  if (!s.apiKeySet) return t('settings.llmKeyNone');
  return s.apiKeyHint ? t('settings.llmKeySet', { hint: s.apiKeyHint }) : t('settings.llmKeySetNoHint');
}

function TestResult({ result, t }: { result: LlmTest; t: Translate }) {
  if (!result.configured)
    return (
      <p className="llm-test muted" data-testid="llm-test-result">
        {t('settings.llmTestUnconfigured')}
      </p>
    );
  if (!result.ok) {
    return (
      <p className="llm-test" data-ok="false" role="alert" data-testid="llm-test-result">
        {result.error ? describeError(result.error, t) : t('common.error')}
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
export function LlmSection() {
  const t = useT();
  const [settings, setSettings] = useState<LlmSettings | null>(null);
  const [baseUrl, setBaseUrl] = useState('');
  const [model, setModel] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [removeKey, setRemoveKey] = useState(false);
  const [error, setError] = useState<ErrorInfo | null>(null);
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
    call('getLlmSettings', {}).then(show, (e: unknown) => setError(errorInfo(e)));
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
      setError(errorInfo(e));
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
      setError(errorInfo(e));
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
            className="settings-form"
            data-testid="llm-form"
            onSubmit={(e) => {
              e.preventDefault();
              void save(true);
            }}
          >
            <label>
              {t('settings.llmBaseUrl')}
              <input
                type="url"
                value={baseUrl}
                onChange={(e) => setBaseUrl(e.target.value)}
                placeholder="http://127.0.0.1:11434/v1"
                required
                name="baseUrl"
              />
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
          {describeError(error, t)}
        </p>
      )}
    </section>
  );
}
