import { useCallback, useEffect, useState } from 'react';
import { call, connectionKind, webMcpAddress } from '../../api/client';
import type { OpOutput } from '../../api/types';
import { Segmented } from '../../components/Segmented';
import { useLocale, useT, type Translate } from '../../i18n';
import { formatHere, formatRelative } from '../../lib/dates';
import { describeError, errorInfo, type ErrorInfo } from '../../lib/errors';
import { formatNumber } from '../../lib/format';
import { ActionStatus, useAction } from './form';

type Companion = OpOutput<'listCompanions'>['companions'][number];
type ClientConfig = OpOutput<'companionConfigs'>['clients'][number];
type ClientId = ClientConfig['client'];

/** How often the list is read again while Settings is open: companions connect and call meanwhile. */
const REFRESH_MS = 5_000;

/** The products as people know them. */
const CLIENT_NAMES: Record<ClientId, string> = {
  'claude-desktop': 'Claude Desktop',
  'claude-code': 'Claude Code',
  cursor: 'Cursor',
  vscode: 'VS Code',
};

/** Copies `text`; says so for a moment. */
function CopyButton({ text, label, testId }: { text: string; label: string; testId: string }) {
  const t = useT();
  const [copied, setCopied] = useState<boolean | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
    } catch {
      setCopied(false);
    }
    setTimeout(() => setCopied(null), 2_000);
  };
  return (
    <button type="button" onClick={() => void copy()} aria-label={label} data-testid={testId}>
      {copied === true ? t('companions.copied') : copied === false ? t('companions.copyFailed') : t('companions.copy')}
    </button>
  );
}

function CompanionRow({
  c,
  now,
  busy,
  onAccess,
  t,
}: {
  c: Companion;
  now: number;
  busy: boolean;
  onAccess: (canWrite: boolean) => void;
  t: Translate;
}) {
  const locale = useLocale();
  const shown = c.title && c.title !== c.name ? c.title : c.name;
  const about = [
    c.title && c.title !== c.name ? c.name : null,
    c.version ? t('companions.version', { version: c.version }) : null,
    c.via ? t(`companions.via.${c.via}`) : null,
  ].filter(Boolean);
  return (
    <li className="companion" data-companion={c.name} data-can-write={c.canWrite}>
      <div className="companion-head">
        <strong className="companion-name">{shown}</strong>
        {about.length > 0 && <span className="muted">{about.join(' · ')}</span>}
      </div>
      <p className="companion-meta" data-testid="companion-last">
        {c.lastCallAt && c.lastTool ? (
          <time dateTime={c.lastCallAt}>
            {t('companions.lastCall', {
              tool: c.lastTool,
              when: formatRelative(c.lastCallAt, now, locale),
              at: formatHere(c.lastCallAt, locale),
              calls: formatNumber(c.calls, locale),
            })}
          </time>
        ) : (
          <time dateTime={c.lastSeen}>
            {t('companions.connectedOnly', { when: formatRelative(c.lastSeen, now, locale), at: formatHere(c.lastSeen, locale) })}
          </time>
        )}
      </p>
      <label className="check companion-access">
        <input
          type="checkbox"
          role="switch"
          checked={c.canWrite}
          disabled={busy}
          onChange={(e) => onAccess(e.target.checked)}
          aria-describedby={`access-${c.name}`}
        />
        {t('companions.mayWrite')}
      </label>
      <span id={`access-${c.name}`} className="visually-hidden">
        {t('companions.mayWriteHint')}
      </span>
    </li>
  );
}

/** The connected companions, most recent first, each with its "may write" switch. */
function ConnectedList() {
  const t = useT();
  const [list, setList] = useState<Companion[] | null>(null);
  const [error, setError] = useState<ErrorInfo | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const action = useAction();

  const refresh = useCallback(
    () =>
      call('listCompanions', {}).then(
        (out) => {
          setList(out.companions);
          setNow(Date.now());
          setError(null);
        },
        (e: unknown) => setError(errorInfo(e)),
      ),
    [],
  );
  useEffect(() => {
    void refresh();
    const timer = setInterval(() => void refresh(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [refresh]);

  const setAccess = (c: Companion, canWrite: boolean) =>
    void action.run(async () => {
      const after = await call('setCompanionAccess', { name: c.name, canWrite });
      setList((l) => l?.map((x) => (x.name === after.name ? after : x)) ?? l);
      const name = after.title && after.title !== after.name ? after.title : after.name;
      return t(after.canWrite ? 'companions.nowWrites' : 'companions.nowReads', { name });
    });

  return (
    <div className="setting-block" data-testid="companions-connected" aria-busy={list === null && !error}>
      <h3>{t('companions.connected')}</h3>
      {list && list.length === 0 && <p className="muted">{t('companions.none')}</p>}
      {list && list.length > 0 && (
        <ul className="companion-list" aria-label={t('companions.connected')}>
          {list.map((c) => (
            <CompanionRow key={c.name} c={c} now={now} busy={action.busy} onAccess={(w) => setAccess(c, w)} t={t} />
          ))}
        </ul>
      )}
      <p className="muted">{t('companions.accessNote')}</p>
      <ActionStatus action={action} testId="companions-access" />
      {error && (
        <p className="error" role="alert">
          {describeError(error, t)}
        </p>
      )}
    </div>
  );
}

/** One client's entry: where it goes, the snippet to paste, and Nemori putting it there. */
function ClientSetup({ config, readOnly, t }: { config: ClientConfig; readOnly: boolean; t: Translate }) {
  const name = CLIENT_NAMES[config.client];
  const action = useAction();
  const add = () =>
    void action.run(async () => {
      const out = await call('addCompanionConfig', { client: config.client, readOnly });
      if (out.action === 'unchanged') return t('companions.addUnchanged', { file: out.file, client: name });
      if (out.action === 'created') return t('companions.addCreated', { file: out.file, client: name });
      return t('companions.addUpdated', { file: out.file, backup: out.backup ?? '—', client: name });
    });
  return (
    <div className="companion-setup" data-testid="companion-setup" data-client={config.client}>
      <p>
        {t('companions.file', { client: name })} <code data-testid="companion-file">{config.file}</code>
      </p>
      <div className="snippet">
        <pre data-testid="companion-snippet">{config.snippet}</pre>
        <CopyButton text={config.snippet} label={t('companions.copySnippet', { client: name })} testId="companion-copy" />
      </div>
      {config.command && (
        <>
          <p className="muted">{t('companions.orCommand')}</p>
          <div className="snippet">
            <pre data-testid="companion-command">{config.command}</pre>
            <CopyButton text={config.command} label={t('companions.copyCommand')} testId="companion-copy-command" />
          </div>
        </>
      )}
      <div className="actions">
        <button type="button" className="primary" onClick={add} disabled={action.busy} data-testid="companion-add">
          {t('companions.add', { client: name })}
        </button>
        <span className="muted">{t('companions.addExplain', { client: name })}</span>
      </div>
      <ActionStatus action={action} testId="companion-add" />
    </div>
  );
}

/** The `/mcp` address for clients that take a URL: this tab's bridge, or the holder of the folder. */
function HttpAddress({ http, t }: { http: { url: string; token: string } | null; t: Translate }) {
  if (!http) return <p className="muted">{t('companions.httpNone')}</p>;
  const masked = `${http.token.slice(0, 4)}…${http.token.slice(-4)}`;
  const command = `claude mcp add --transport http nemori ${http.url} --header "Authorization: Bearer ${http.token}"`;
  return (
    <div data-testid="companions-http">
      <p className="muted">{t('companions.httpIntro')}</p>
      <dl className="facts wide">
        <dt>{t('companions.httpUrl')}</dt>
        <dd>
          <code data-testid="companions-http-url">{http.url}</code>
        </dd>
        <dt>{t('companions.httpHeader')}</dt>
        <dd>
          <code>Authorization: Bearer {masked}</code>{' '}
          <CopyButton text={`Bearer ${http.token}`} label={t('companions.copyHeader')} testId="companions-copy-header" />
        </dd>
      </dl>
      <div className="actions">
        <CopyButton text={command} label={t('companions.copyHttpCommand')} testId="companions-copy-http-command" />
        <span className="muted">{t('companions.httpCommand')}</span>
      </div>
    </div>
  );
}

/**
 * Settings → Companions: the assistants that use this memory over MCP. Who connected (name, version,
 * last call) and whether each may write; the entry each client needs, copied or added to its
 * configuration file by Nemori; and the `/mcp` address for clients that connect by URL.
 */
export function CompanionsSection() {
  const t = useT();
  const [client, setClient] = useState<ClientId>('claude-desktop');
  const [readOnly, setReadOnly] = useState(false);
  const [configs, setConfigs] = useState<OpOutput<'companionConfigs'> | null>(null);
  const [error, setError] = useState<ErrorInfo | null>(null);

  useEffect(() => {
    call('companionConfigs', { readOnly }).then(setConfigs, (e: unknown) => setError(errorInfo(e)));
  }, [readOnly]);

  const config = configs?.clients.find((c) => c.client === client);
  // A tab's own bridge serves /mcp (with the tab's token); the desktop app's is the folder's holder.
  const http = connectionKind() === 'web' ? webMcpAddress() : (configs?.http ?? null);

  return (
    <section className="settings-section" aria-labelledby="s-companions" data-testid="settings-companions">
      <h2 id="s-companions">{t('companions.title')}</h2>
      <p className="muted">{t('companions.intro')}</p>
      <ConnectedList />
      <h3>{t('companions.setup')}</h3>
      <Segmented<ClientId>
        label={t('companions.client')}
        name="companion-client"
        value={client}
        onChange={setClient}
        options={(Object.keys(CLIENT_NAMES) as ClientId[]).map((c) => ({ value: c, label: CLIENT_NAMES[c] }))}
      />
      <label className="check companion-readonly">
        <input type="checkbox" checked={readOnly} onChange={(e) => setReadOnly(e.target.checked)} />
        {t('companions.readOnlyEntry')}
      </label>
      {config && <ClientSetup key={`${client}-${readOnly}`} config={config} readOnly={readOnly} t={t} />}
      <h3>{t('companions.http')}</h3>
      {configs && <HttpAddress http={http} t={t} />}
      {error && (
        <p className="error" role="alert">
          {describeError(error, t)}
        </p>
      )}
    </section>
  );
}
