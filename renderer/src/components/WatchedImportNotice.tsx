import { useEffect, useRef, useState } from 'react';
import { call } from '../api/client';
import type { WatchedFile } from '../api/types';
import { useT, type Translate } from '../i18n';
import { describeError } from '../lib/errors';
import { baseName } from '../lib/format';
import { useEventsStore } from '../store/events';
import { navigate } from '../store/route';

/** One file the watched folder imported, in a line: what it added, or why it was not imported. */
export function describeWatched(f: WatchedFile, t: Translate): string {
  const file = baseName(f.file);
  if (f.report.error) return t('watch.failed', { file, error: describeError(f.report.error, t) });
  return t('watch.added', { file, messages: f.report.messagesAdded, episodes: f.report.episodesCreated });
}

/**
 * What the watched folder has just imported, in every window: after each import the engine ran, the
 * files imported since this window last looked (the same report as Settings → Import), until dismissed.
 */
export function WatchedImportNotice() {
  const t = useT();
  const last = useEventsStore((s) => s.last);
  const [fresh, setFresh] = useState<WatchedFile[]>([]);
  /** The newest import this window knows of; null until the first look. */
  const seen = useRef<string | null>(null);

  const look = (announce: boolean) =>
    call('getWatchedFolder', {}).then(
      (w) => {
        const newer = seen.current === null ? [] : w.recent.filter((f) => f.importedAt > seen.current!);
        seen.current = w.recent[0]?.importedAt ?? seen.current ?? '';
        if (announce && newer.length > 0) setFresh(newer);
      },
      () => {}, // the notice is a courtesy: Settings → Import says the same
    );

  useEffect(() => void look(false), []);
  useEffect(() => {
    if (last?.type === 'call' && last.operation === 'importFiles' && last.state !== 'started') void look(true);
  }, [last]);

  if (fresh.length === 0) return null;
  return (
    <div className="notice watched-notice" role="status" data-testid="watched-notice">
      <strong>{t('watch.notice')}</strong>
      <ul>
        {fresh.slice(0, 5).map((f) => (
          <li key={f.file} data-error={f.report.error ? true : undefined}>
            {describeWatched(f, t)}
          </li>
        ))}
      </ul>
      <div className="actions">
        <button type="button" className="link" onClick={() => navigate({ name: 'settings' })}>
          {t('watch.open')}
        </button>
        <button type="button" className="link" onClick={() => setFresh([])}>
          {t('watch.dismiss')}
        </button>
      </div>
    </div>
  );
}
