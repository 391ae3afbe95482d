import { useEffect, useState } from 'react';
import { call } from '../../api/client';
import type { WatchedFolder } from '../../api/types';
import { PathChooser } from '../../components/PathChooser';
import { describeWatched } from '../../components/WatchedImportNotice';
import { useLocale, useT } from '../../i18n';
import { formatHere } from '../../lib/dates';
import { useEventsStore } from '../../store/events';
import { ActionStatus, useAction } from './form';

/**
 * Settings → Import: the watched folder — choose it, stop watching it, and the reports of the last
 * files imported from it (read again whenever an import ends).
 */
export function ImportSection() {
  const t = useT();
  const locale = useLocale();
  const action = useAction();
  const [watched, setWatched] = useState<WatchedFolder | null>(null);
  const last = useEventsStore((s) => s.last);
  const ended = last?.type === 'call' && last.operation === 'importFiles' && last.state !== 'started' ? last.callId : null;

  useEffect(() => {
    call('getWatchedFolder', {}).then(setWatched, () => {});
  }, [ended]);

  const set = (folder: string | null) =>
    void action.run(async () => {
      setWatched(await call('setWatchedFolder', { folder }));
      return t('settings.saved');
    });

  return (
    <section className="settings-section" aria-labelledby="s-import" aria-busy={!watched} data-testid="settings-import">
      <h2 id="s-import">{t('settings.import')}</h2>
      <p className="muted">{t('settings.watch.body')}</p>
      {watched && (
        <p data-testid="watched-folder">
          {watched.folder === null
            ? t('settings.watch.none')
            : t(watched.watching ? 'settings.watch.current' : 'settings.watch.idle', { folder: watched.folder })}
        </p>
      )}
      {watched?.problem && (
        <p className="error" role="alert">
          {watched.problem}
        </p>
      )}
      <PathChooser
        kind="folder"
        label={t('settings.watch.choose')}
        button={t('settings.watch.button')}
        placeholder={t('settings.watch.placeholder')}
        disabled={action.busy}
        onChosen={set}
        testId="watched-folder-choose"
      />
      {watched?.folder && (
        <div className="actions">
          <button type="button" onClick={() => set(null)} disabled={action.busy} data-testid="watched-folder-clear">
            {t('settings.watch.stop')}
          </button>
        </div>
      )}
      <ActionStatus action={action} testId="watched-folder" />
      {watched && watched.recent.length > 0 && (
        <>
          <h3 className="section-label">{t('settings.watch.recent')}</h3>
          <ul className="watched-recent" data-testid="watched-recent">
            {watched.recent.map((f) => (
              <li key={f.file} data-error={f.report.error ? true : undefined}>
                <span className="when">{formatHere(f.importedAt, locale)}</span> {describeWatched(f, t)}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
