import { useEffect } from 'react';
import { ProgressBar } from '../../components/ProgressBar';
import type { Translate } from '../../i18n';
import type { ImportPhase, ImportProgress as Progress } from '../../store/import';

interface Props {
  phase: ImportPhase;
  progress: Progress | null;
  /** The import ended because the person cancelled it. */
  cancelled: boolean;
  /** Cancel was asked for and the engine is finishing the conversation it is on. */
  cancelling: boolean;
  onCancel: () => void;
  t: Translate;
}

/** What the bar says: the engine's step (messages stored, or episodes read for facts), and how the import ended. */
function progressText({ phase, progress, cancelled, cancelling, t }: Omit<Props, 'onCancel'>): string {
  if (!progress) return cancelling ? t('import.cancelling') : t('common.loading');
  const discovering = progress.phase === 'discovery';
  const step = discovering ? t('discovery.progress', { done: progress.done, total: progress.total }) : t('import.messagesOf', { done: progress.done, total: progress.total });
  if (phase === 'done') return `${cancelled ? t('import.stopped') : t('import.done')} · ${step}`;
  if (cancelling) return `${t('import.cancelling')} · ${step}`;
  return discovering ? step : `${t('import.importing', { detail: progress.detail ?? '' })} · ${step}`;
}

/** Stops the running import: the button, and Esc anywhere on the screen while it shows. */
function CancelButton({ cancelling, onCancel, t }: Pick<Props, 'cancelling' | 'onCancel' | 't'>) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && !(e.target as HTMLElement | null)?.closest('input, textarea, select, dialog')) onCancel();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onCancel]);
  return (
    // Focus comes here when the import starts: the button that started it is gone.
    <button type="button" onClick={onCancel} disabled={cancelling} aria-keyshortcuts="Escape" title={t('import.cancelTitle')} data-testid="import-cancel" autoFocus>
      {cancelling ? t('import.cancellingShort') : t('import.cancel')}
    </button>
  );
}

/**
 * The import's progress: messages stored per file (step 'import'), then episodes read for facts
 * ('discovery'); while it runs, the way to cancel it; when it ended, whether it finished or was cancelled.
 */
export function ImportProgress(props: Props) {
  const { phase, progress, cancelled, cancelling, onCancel, t } = props;
  const discovering = phase === 'importing' && progress?.phase === 'discovery';
  const full = phase === 'done' && !cancelled;
  return (
    <section className="import-progress" data-testid="import-progress" data-phase={phase} data-step={progress?.phase} data-cancelled={cancelled || undefined}>
      <ProgressBar
        label={discovering ? t('discovery.progressLabel') : t('import.progressLabel')}
        done={full ? 1 : (progress?.done ?? null)}
        total={full ? 1 : (progress?.total ?? null)}
        text={progressText(props)}
      />
      {phase === 'importing' && (
        <div className="actions">
          <CancelButton cancelling={cancelling} onCancel={onCancel} t={t} />
        </div>
      )}
    </section>
  );
}
