import { useEffect, useState } from 'react';
import { appVersion, call, connectionKind } from '../api/client';
import type { EngineSettings, HealthOutput, StartupView } from '../api/types';
import { Segmented } from '../components/Segmented';
import { LOCALE_NAMES, LOCALE_PREFERENCES, useLocaleStore, useT, type LocalePreference } from '../i18n';
import { errorInfo, type ErrorInfo } from '../lib/errors';
import { takeNotice } from '../lib/flash';
import { THEME_PREFERENCES, useThemeStore, type ThemePreference } from '../store/theme';
import { CompanionsSection } from './settings/CompanionsSection';
import { DataSection } from './settings/DataSection';
import { ImportSection } from './settings/ImportSection';
import { ForgettingSection } from './settings/ForgettingSection';
import { KnowledgeSection } from './settings/KnowledgeSection';
import { LlmSection } from './settings/LlmSection';
import { PrivacySection } from './settings/PrivacySection';

/** Brings the language-model section into view, the keyboard focus on its first field. */
function revealLlmSection(): void {
  const section = document.getElementById('s-llm')?.closest('section');
  section?.scrollIntoView({ block: 'start' });
  section?.querySelector<HTMLElement>('input, button')?.focus({ preventScroll: true });
}

/** Language and theme: kept by this window (localStorage), not by the engine. */
function AppearanceSection() {
  const t = useT();
  const theme = useThemeStore((s) => s.preference);
  const setTheme = useThemeStore((s) => s.setPreference);
  const language = useLocaleStore((s) => s.preference);
  const setLanguage = useLocaleStore((s) => s.setPreference);
  return (
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
  );
}

function ConnectionSection() {
  const t = useT();
  const [version, setVersion] = useState<string | null>(null);
  useEffect(() => {
    void appVersion().then(setVersion);
  }, []);
  return (
    <section className="settings-section" aria-labelledby="s-connection">
      <h2 id="s-connection">{t('settings.connection')}</h2>
      <p className="muted">{connectionKind() === 'desktop' ? t('status.desktop', { version: version ?? '…' }) : t('status.web')}</p>
    </section>
  );
}

/** Appearance, the data and its backup, the watched import folder, the language model, knowledge capacity and discovery, forgetting, privacy, companions. */
export function SettingsScreen() {
  const t = useT();
  const [health, setHealth] = useState<HealthOutput | null>(null);
  const [settings, setSettings] = useState<EngineSettings | null>(null);
  const [startup, setStartup] = useState<StartupView | null>(null);
  const [error, setError] = useState<ErrorInfo | null>(null);
  // What the last move, switch or restore did (the window reloaded after it).
  const [notice] = useState(takeNotice);

  const fail = (e: unknown) => setError(errorInfo(e));
  // Health and the data folder / model: read at first, and again after a model change.
  const loadData = () => {
    // Settings shows no problems: the checks (whole-table reads) are `nemori health`'s.
    call('health', { checks: false }).then(setHealth, fail);
    call('getStartup', {}).then(setStartup, fail);
  };
  useEffect(() => {
    loadData();
    call('getEngineSettings', {}).then(setSettings, fail);
  }, []);

  return (
    <div className="screen settings-screen">
      <header className="screen-head">
        <h1 tabIndex={-1}>{t('settings.title')}</h1>
      </header>
      {notice && (
        <p className="notice" role="status" data-testid="settings-flash">
          {notice}
        </p>
      )}
      <AppearanceSection />
      <DataSection health={health} settings={settings} startup={startup} error={error} onChanged={loadData} />
      <ImportSection />
      <LlmSection />
      <KnowledgeSection settings={settings} onSaved={setSettings} onSetUpLlm={revealLlmSection} />
      <ForgettingSection settings={settings} onSaved={setSettings} />
      <PrivacySection settings={settings} onSaved={setSettings} />
      <CompanionsSection />
      <ConnectionSection />
    </div>
  );
}
