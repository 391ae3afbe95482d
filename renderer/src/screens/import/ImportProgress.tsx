import { useEffect } from 'react';
import type { CallProgress, ImportStage } from '../../api/types';
import { ProgressBar } from '../../components/ProgressBar';
import { useLocale, type MessageKey, type Translate } from '../../i18n';
import { formatNumber } from '../../lib/format';
import type { ImportPhase } from '../../store/import';
import { currentStage, type Stages } from '../../store/stages';

interface Props {
  phase: ImportPhase;
  stages: Stages;
  /** The import ended because the person cancelled it. */
  cancelled: boolean;
  /** Cancel was asked for and the engine is finishing the conversation it is on. */
  cancelling: boolean;
  onCancel: () => void;
  t: Translate;
}

/** The engine's stages in the order the work flows (core/api/handlers/import-progress.ts). */
const STAGES: readonly ImportStage[] = ['import', 'episodes', 'embeddings', 'discovery'];

const LABELS: Record<ImportStage, MessageKey> = {
  import: 'import.stage.import',
  episodes: 'import.stage.episodes',
  embeddings: 'import.stage.embeddings',
  discovery: 'import.stage.discovery',
};

/** A stage is done once it and every stage before it reached their totals (the later ones wait on it). */
type StageState = 'done' | 'current' | 'pending';

/** The stages to show: knowledge discovery only when the engine says it runs (an LLM is configured). */
function shownStages(stages: Stages): ImportStage[] {
  return STAGES.filter((s) => s !== 'discovery' || stages.discovery !== undefined);
}

/** What a stage's bar says: its numbers in the person's language, or why it has none. */
function stageText(stage: ImportStage, p: CallProgress | undefined, state: StageState, t: Translate, n: (x: number) => string): string {
  if (stage === 'embeddings' && p?.facts?.keywordOnly) return t('import.stageText.keywordOnly');
  if (!p || p.total === 0) return state === 'done' ? t('import.stageText.nothing') : t('import.stageText.waiting');
  const counts = { done: n(p.done), total: n(p.total) };
  if (stage === 'import') return t('import.messagesOf', counts);
  if (stage === 'episodes') return t('import.stageText.episodes', { ...counts, episodes: n(p.facts?.episodes ?? 0) });
  if (stage === 'embeddings') return t('import.stageText.embeddings', counts);
  return t('import.stageText.discovery', counts);
}

/** What the import as a whole is doing, or how it ended. */
function statusText({ phase, stages, cancelled, cancelling, t }: Omit<Props, 'onCancel'>, current: ImportStage | null): string {
  if (phase === 'done') return cancelled ? t('import.stopped') : t('import.done');
  if (cancelling) return t('import.cancelling');
  if (current === 'discovery') return t('import.learning');
  const file = stages.import?.facts?.file;
  return file ? t('import.reading', { file: file.name, index: file.index, count: file.count }) : t('common.loading');
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
    <button
      type="button"
      onClick={onCancel}
      disabled={cancelling}
      aria-keyshortcuts="Escape"
      title={t('import.cancelTitle')}
      data-testid="import-cancel"
      autoFocus
    >
      {cancelling ? t('import.cancellingShort') : t('import.cancel')}
    </button>
  );
}

/**
 * The import's progress as a bar per stage: messages stored, episodes built from them, episodes
 * embedded, then knowledge discovery. The first three advance together, conversation by conversation;
 * the stage the others wait on is highlighted. While it runs, the way to cancel it; when it ended,
 * whether it finished or was cancelled.
 */
export function ImportProgress(props: Props) {
  const { phase, stages, cancelled, onCancel, t } = props;
  const locale = useLocale();
  const n = (x: number) => formatNumber(x, locale);
  const shown = shownStages(stages);
  const finished = phase === 'done' && !cancelled;
  const current = finished ? null : currentStage(stages, shown);
  const at = current === null ? shown.length : shown.indexOf(current);
  return (
    <section
      className="import-progress"
      data-testid="import-progress"
      data-phase={phase}
      data-step={current ?? undefined}
      data-cancelled={cancelled || undefined}
    >
      <p className="import-status" role="status" data-testid="import-status">
        {statusText(props, current)}
      </p>
      <ol className="import-stages" aria-label={t('import.stagesLabel')}>
        {shown.map((stage, i) => {
          const p = stages[stage];
          const state: StageState = i < at ? 'done' : i === at ? 'current' : 'pending';
          const label = t(LABELS[stage]);
          const text = stageText(stage, p, state, t, n);
          // A stage with nothing to do is full once done, empty before; the first one is unknown until the engine says.
          const [done, total] =
            state === 'done' ? [1, 1] : p && p.total > 0 ? [p.done, p.total] : state === 'current' && !p ? [null, null] : [0, 1];
          return (
            <li
              key={stage}
              className="import-stage"
              data-stage={stage}
              data-state={state}
              data-done={p?.done}
              data-total={p?.total}
              aria-current={state === 'current' ? 'step' : undefined}
            >
              <span className="import-stage-name">{label}</span>
              <ProgressBar label={label} done={done} total={total} text={text} />
            </li>
          );
        })}
      </ol>
      {phase === 'importing' && (
        <div className="actions">
          <CancelButton cancelling={props.cancelling} onCancel={onCancel} t={t} />
        </div>
      )}
    </section>
  );
}
