import { useEffect, useRef, useState, type DragEvent } from 'react';
import { call, connectionKind, pick } from '../api/client';
import { DiscoverySummary } from '../components/DiscoverySummary';
import { ProgressBar } from '../components/ProgressBar';
import { useT, type Translate } from '../i18n';
import { describeError } from '../lib/errors';
import { formatBytes } from '../lib/format';
import { useCalendarStore } from '../store/calendar';
import { fileChoice, pathChoice, useImportStore, type ImportOutput } from '../store/import';
import { useJournalStore } from '../store/journal';
import { navigate } from '../store/route';
import { ImportProgress } from './import/ImportProgress';

const day = (iso: string) => iso.slice(0, 10);

/** Per-file table: what the preview found, or what the import stored. */
function FileTable({ output, stored, t }: { output: ImportOutput; stored: boolean; t: Translate }) {
  return (
    <table className="report" data-testid={stored ? 'import-report' : 'import-preview'}>
      <caption className="visually-hidden">{stored ? t('import.report') : t('import.preview')}</caption>
      <thead>
        <tr>
          <th scope="col">{t('import.col.file')}</th>
          <th scope="col">{t('import.col.format')}</th>
          <th scope="col">{t('import.col.conversations')}</th>
          <th scope="col">{t('import.col.messages')}</th>
          {stored ? (
            <>
              <th scope="col">{t('import.col.added')}</th>
              <th scope="col">{t('import.col.episodes')}</th>
            </>
          ) : (
            <th scope="col">{t('import.col.dates')}</th>
          )}
          <th scope="col">{t('import.col.participants')}</th>
        </tr>
      </thead>
      <tbody>
        {output.files.map((f, i) => (
          <tr key={i} data-error={f.error ? true : undefined}>
            <th scope="row" className="file-name">
              {f.file}
              {f.error && <div className="error">{describeError(f.error, t)}</div>}
              {f.warnings.length > 0 && (
                <details className="warnings">
                  <summary>⚠ {f.warnings.length}</summary>
                  <ul>
                    {f.warnings.slice(0, 50).map((w, j) => (
                      <li key={j}>{w}</li>
                    ))}
                  </ul>
                </details>
              )}
            </th>
            <td>{f.format ?? '—'}</td>
            <td className="num">{f.conversations}</td>
            <td className="num">{f.messages}</td>
            {stored ? (
              <>
                <td className="num">{f.messagesAdded}</td>
                <td className="num">{f.episodesCreated}</td>
              </>
            ) : (
              <td className="dates">{f.dateRange ? `${day(f.dateRange.from)} – ${day(f.dateRange.to)}` : '—'}</td>
            )}
            <td className="participants">
              {f.participants.slice(0, 8).join(', ')}
              {f.participants.length > 8 ? ' …' : ''}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * The import's last phase: the facts knowledge discovery learnt from the new episodes, or, with no
 * language model set up, that they wait for one (and where to set it up).
 */
function ImportDiscovery({ discovery, cancelled, t }: { discovery: ImportOutput['discovery']; cancelled: boolean; t: Translate }) {
  const [llmOff, setLlmOff] = useState(false);
  useEffect(() => {
    if (discovery) return;
    call('getLlmSettings', {}).then(
      (s) => setLlmOff(!s.enabled),
      () => setLlmOff(false),
    );
  }, [discovery]);
  if (discovery)
    return <DiscoverySummary run={discovery} cancelled={cancelled} t={t} testId="import-discovery" lead={t('import.discoveryLead')} />;
  if (!llmOff) return null;
  return (
    <div className="discovery-summary" data-testid="import-discovery" data-waiting>
      <p className="muted">
        <strong className="lead">{t('import.discoveryLead')}</strong>
        {t('import.discoveryWaits')}{' '}
        <button type="button" className="link" onClick={() => navigate({ name: 'settings' })}>
          {t('discovery.setUpLlm')}
        </button>
      </p>
    </div>
  );
}

type Totals = { files: number; messages: number; episodes: number; failed: number };

/** What the import stored; a cancelled one says so, and that importing again continues where it stopped. */
function summaryText(result: ImportOutput, totals: Totals, t: Translate): string {
  if (!result.cancelled) return t('import.summary', totals);
  // Cancelled while discovery read the new episodes: every message is in, the unread episodes wait.
  return t(result.discovery ? 'import.cancelledInDiscovery' : 'import.cancelled', totals);
}

/** Pick chat exports, preview them, say which participant is you, import with progress, read what came in. */
export function ImportScreen() {
  const t = useT();
  const {
    chosen,
    phase,
    upload,
    preview,
    me,
    stages,
    cancelling,
    result,
    error,
    add,
    remove,
    check,
    setMe,
    setDateOrder,
    start,
    cancel,
    reset,
  } = useImportStore();
  const input = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const desktop = connectionKind() === 'desktop';
  const busy = phase === 'uploading' || phase === 'checking' || phase === 'importing';

  const choose = async () => {
    if (desktop) add((await pick('import')).map(pathChoice));
    else input.current?.click();
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    if (!desktop && !busy) add([...e.dataTransfer.files].map(fileChoice));
  };

  const participants = preview ? [...new Set(preview.files.flatMap((f) => f.participants))] : [];
  // Files whose numeric dates could be read day or month first: the order the engine read them in.
  const unsettled = preview?.files.find((f) => f.dateOrder)?.dateOrder ?? null;
  const totals: Totals | null = result && {
    files: result.files.length,
    messages: result.files.reduce((n, f) => n + f.messagesAdded, 0),
    episodes: result.files.reduce((n, f) => n + f.episodesCreated, 0),
    failed: result.files.filter((f) => f.error).length,
  };

  return (
    <div className="screen import-screen">
      <header className="screen-head">
        <h1 tabIndex={-1}>{t('import.title')}</h1>
        <p className="lede">{t('import.intro')}</p>
      </header>

      <div
        className="dropzone"
        data-dragging={dragging || undefined}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        <button
          type="button"
          className={chosen.length ? undefined : 'primary'}
          onClick={() => void choose()}
          disabled={busy}
          data-autofocus
        >
          {t('import.choose')}
        </button>
        {!desktop && <span className="drop-hint">{t('import.drop')}</span>}
        <input
          ref={input}
          type="file"
          multiple
          hidden
          data-testid="import-input"
          onChange={(e) => {
            add([...(e.target.files ?? [])].map(fileChoice));
            e.target.value = '';
          }}
        />
      </div>

      {chosen.length > 0 && phase !== 'done' && (
        <section className="chosen" aria-labelledby="chosen-title">
          <h2 id="chosen-title" className="section-label">
            {t('import.selected')}
          </h2>
          <ul>
            {chosen.map((c, i) => (
              <li key={`${c.name}-${i}`}>
                <span className="file-name">{c.name}</span>
                {c.size !== null && <span className="file-size">{formatBytes(c.size)}</span>}
                <button
                  type="button"
                  className="icon"
                  aria-label={t('import.remove', { name: c.name })}
                  onClick={() => remove(i)}
                  disabled={busy}
                >
                  ×
                </button>
              </li>
            ))}
          </ul>
          {!preview && (
            <div className="actions">
              <button type="button" className="primary" onClick={() => void check()} disabled={busy} data-testid="import-check">
                {t('import.check')}
              </button>
              <button type="button" onClick={() => void start()} disabled={busy} data-testid="import-start">
                {chosen.length === 1 ? t('import.startOne') : t('import.start', { n: chosen.length })}
              </button>
            </div>
          )}
        </section>
      )}

      {phase === 'uploading' && upload && (
        <section className="import-progress" data-testid="import-progress" data-phase={phase}>
          <ProgressBar
            label={t('import.progressLabel')}
            done={upload.done}
            total={upload.total}
            text={t('import.uploading', { done: upload.done, total: upload.total })}
          />
        </section>
      )}
      {phase === 'checking' && <p className="muted">{t('import.checking')}</p>}

      {preview && phase !== 'done' && phase !== 'importing' && (
        <section className="import-preview" aria-labelledby="preview-title">
          <h2 id="preview-title" className="section-label">
            {t('import.preview')}
          </h2>
          <p className="summary" data-testid="import-preview-summary">
            {t('import.previewSummary', { conversations: preview.conversations, messages: preview.messages, people: participants.length })}
          </p>
          <FileTable output={preview} stored={false} t={t} />
          {participants.length > 0 && (
            <label className="me-choice">
              {t('import.me')}
              <select value={me} onChange={(e) => setMe(e.target.value)} data-testid="import-me">
                <option value="">{t('import.meNone')}</option>
                {participants.map((p) => (
                  <option key={p} value={p}>
                    {p}
                  </option>
                ))}
              </select>
            </label>
          )}
          {unsettled && (
            <label className="me-choice">
              {unsettled.by === 'guess' ? t('import.dateOrderGuessed') : t('import.dateOrder')}
              <select
                value={unsettled.order}
                onChange={(e) => void setDateOrder(e.target.value === 'mdy' ? 'mdy' : 'dmy')}
                disabled={busy}
                data-testid="import-date-order"
              >
                <option value="dmy">{t('import.dateOrder.dmy')}</option>
                <option value="mdy">{t('import.dateOrder.mdy')}</option>
              </select>
            </label>
          )}
          <div className="actions">
            <button type="button" className="primary" onClick={() => void start()} disabled={busy} data-testid="import-start">
              {chosen.length === 1 ? t('import.startOne') : t('import.start', { n: chosen.length })}
            </button>
          </div>
        </section>
      )}

      {(phase === 'importing' || phase === 'done') && (
        <ImportProgress
          phase={phase}
          stages={stages}
          cancelled={result?.cancelled === true}
          cancelling={cancelling}
          onCancel={cancel}
          t={t}
        />
      )}

      {phase === 'failed' && error && (
        <p className="error" role="alert">
          {describeError(error, t)}
        </p>
      )}

      {result && totals && (
        <section className="import-result" aria-labelledby="report-title">
          <h2 id="report-title" className="section-label">
            {t('import.report')}
          </h2>
          <p className="summary" data-testid="import-summary" data-cancelled={result.cancelled || undefined}>
            {summaryText(result, totals, t)}
            {totals.failed > 0 && <> {t('import.summaryErrors', { n: totals.failed })}</>}
          </p>
          <ImportDiscovery discovery={result.discovery} cancelled={result.cancelled} t={t} />
          <FileTable output={result} stored t={t} />
          <div className="actions">
            {result.cancelled && chosen.length > 0 && (
              <button type="button" className="primary" onClick={() => void start()} data-testid="import-rest">
                {t('import.continue')}
              </button>
            )}
            <button
              type="button"
              className={result.cancelled ? undefined : 'primary'}
              onClick={() => {
                useJournalStore.getState().jumpTo(null);
                useCalendarStore.setState({ initialised: false });
                reset();
                navigate({ name: 'journal' });
              }}
            >
              {t('import.openJournal')}
            </button>
            <button type="button" onClick={() => void choose()}>
              {t('import.another')}
            </button>
          </div>
        </section>
      )}

      {chosen.length === 0 && phase === 'idle' && <p className="muted">{t('import.empty')}</p>}
    </div>
  );
}
