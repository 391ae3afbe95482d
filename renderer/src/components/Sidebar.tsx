import { useEffect, useState } from 'react';
import { appVersion, connectionKind } from '../api/client';
import { useT, type MessageKey } from '../i18n';
import { modelNotice, useEventsStore } from '../store/events';
import { navigate, type Section } from '../store/route';
import { currentStage } from '../store/stages';
import { ModelProgress } from './ModelProgress';
import { WatchedImportNotice } from './WatchedImportNotice';

const SECTIONS: readonly { name: Section; label: MessageKey; glyph: string }[] = [
  { name: 'journal', label: 'nav.journal', glyph: '❧' },
  { name: 'search', label: 'nav.search', glyph: '⌕' },
  { name: 'knowledge', label: 'nav.knowledge', glyph: '✦' },
  { name: 'import', label: 'nav.import', glyph: '⇲' },
  { name: 'care', label: 'nav.care', glyph: '❦' },
  { name: 'settings', label: 'nav.settings', glyph: '⚙' },
];

const OPERATION_LABELS: Partial<Record<string, MessageKey>> = {
  importFiles: 'op.importFiles',
  rebuildIndexes: 'op.rebuildIndexes',
  runForgetting: 'op.runForgetting',
  runDiscovery: 'op.runDiscovery',
  backup: 'op.backup',
};

function StatusLine() {
  const t = useT();
  const running = useEventsStore((s) => s.running);
  const modelBusy = useEventsStore((s) => modelNotice(s.model) !== null);
  const [version, setVersion] = useState<string | null>(null);
  useEffect(() => {
    void appVersion()
      .then(setVersion)
      .catch(() => setVersion(null));
  }, []);
  // While the engine opens nothing else can run: the model's download (first run) or load comes first.
  if (modelBusy) {
    return (
      <div className="status" role="status" data-state="model">
        <ModelProgress testId="status-model" />
      </div>
    );
  }
  const busy = Object.values(running)[0];
  if (busy) {
    // An import's stages advance side by side: the status line follows the one the rest wait on.
    const phase = currentStage(busy.stages, Object.keys(busy.stages));
    const p = phase === null ? null : busy.stages[phase];
    const percent = p && p.total > 0 ? ` ${Math.round((p.done / p.total) * 100)}%` : '';
    return (
      <p className="status" role="status" data-state="busy">
        {t('status.running', { operation: t(OPERATION_LABELS[busy.operation] ?? 'op.other') })}
        {percent}
      </p>
    );
  }
  return (
    <p className="status" role="status" data-state="idle">
      {connectionKind() === 'desktop' ? t('status.desktop', { version: version ?? '…' }) : t('status.web')}
    </p>
  );
}

export function Sidebar({ current }: { current: Section | null }) {
  const t = useT();
  return (
    <aside className="sidebar">
      <div className="brand">
        <span className="wordmark">Nemori</span>
        <span className="tagline">{t('app.tagline')}</span>
      </div>
      <nav aria-label={t('nav.label')}>
        <ul>
          {SECTIONS.map((s) => (
            <li key={s.name}>
              <a
                href={`#/${s.name}`}
                aria-current={current === s.name ? 'page' : undefined}
                data-nav={s.name}
                onClick={(e) => {
                  e.preventDefault();
                  navigate({ name: s.name, ...(s.name === 'search' ? { q: '' } : {}) } as never);
                }}
              >
                <span className="glyph" aria-hidden="true">
                  {s.glyph}
                </span>
                {t(s.label)}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <div className="sidebar-foot">
        <StatusLine />
        <WatchedImportNotice />
        <p className="shortcuts">{t('nav.shortcuts')}</p>
      </div>
    </aside>
  );
}
