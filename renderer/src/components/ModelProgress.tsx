import { useT } from '../i18n';
import { formatByteProgress } from '../lib/format';
import { modelNotice, useEventsStore } from '../store/events';
import { ProgressBar } from './ProgressBar';

/**
 * The embedding model while the engine opens: "Downloading the search model: 45 of 118 MB" with a
 * bar (first run), then "Loading the search model…"; nothing once it is ready.
 */
export function ModelProgress({ testId }: { testId: string }) {
  const t = useT();
  const notice = modelNotice(useEventsStore((s) => s.model));
  if (!notice) return null;
  const known = notice.kind === 'downloading' && notice.total > 0;
  const text =
    notice.kind === 'loading'
      ? t('model.loading')
      : known
        ? t('model.downloading', formatByteProgress(notice.loaded, notice.total))
        : t('model.downloadStarting');
  return (
    <div className="model-progress" data-testid={testId} data-state={notice.kind}>
      <ProgressBar label={t('model.label')} done={known ? notice.loaded : null} total={known ? notice.total : null} text={text} />
    </div>
  );
}
