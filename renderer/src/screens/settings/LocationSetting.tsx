import { useState } from 'react';
import { call } from '../../api/client';
import type { FolderCheck, StartupView } from '../../api/types';
import { PathChooser } from '../../components/PathChooser';
import { useT } from '../../i18n';
import { reloadWithNotice } from '../../lib/flash';
import { ActionStatus, useAction } from './form';

/**
 * Where the memory is kept, and choosing another folder: an empty one takes this memory (moved) or
 * a new empty one; a folder that holds a Nemori memory is opened. The window then reloads.
 */
export function LocationSetting({ startup }: { startup: StartupView }) {
  const t = useT();
  const action = useAction();
  const [check, setCheck] = useState<FolderCheck | null>(null);
  const pinned = startup.dataDirPinnedBy;

  const inspect = (folder: string) =>
    void action.run(async () => {
      setCheck(await call('inspectFolder', { folder }));
      return null;
    });
  const apply = (mode: 'move' | 'open') =>
    void action.run(async () => {
      if (!check) return null;
      const out = await call('setDataFolder', { folder: check.folder, mode });
      const key = mode === 'move' ? 'settings.folder.moved' : check.holdsMemory ? 'settings.folder.opened' : 'settings.folder.started';
      const left = out.leftBehind.length ? ` ${t('settings.folder.leftBehind', { paths: out.leftBehind.join(', ') })}` : '';
      reloadWithNotice(t(key, { folder: out.startup.dataDir ?? check.folder }) + left);
      return null;
    });

  return (
    <div className="setting-block" data-testid="settings-folder">
      <p>
        <code data-testid="settings-folder-path">{startup.dataDir ?? t('settings.memoryOnly')}</code>
      </p>
      {pinned ? (
        <p className="muted">{t('settings.folder.pinned', { by: pinned })}</p>
      ) : startup.canChange ? (
        <>
          <PathChooser
            kind="folder"
            label={t('settings.folder.choose')}
            button={t('settings.folder.check')}
            placeholder={t('settings.folder.placeholder')}
            disabled={action.busy}
            onChosen={inspect}
            testId="settings-folder-choose"
          />
          {check && (
            <FolderChoice check={check} current={startup.dataDir} busy={action.busy} onApply={apply} onCancel={() => setCheck(null)} />
          )}
        </>
      ) : null}
      <ActionStatus action={action} testId="settings-folder" />
    </div>
  );
}

/** What can be done with the chosen folder, and why not when nothing can. */
function FolderChoice(props: {
  check: FolderCheck;
  current: string | null;
  busy: boolean;
  onApply: (mode: 'move' | 'open') => void;
  onCancel: () => void;
}) {
  const t = useT();
  const { check } = props;
  const canMove = check.cannotMove === null;
  const canOpen = check.cannotOpen === null;
  const says = check.holdsMemory
    ? 'settings.folder.holdsMemory'
    : check.exists && !check.empty
      ? 'settings.folder.notEmpty'
      : 'settings.folder.empty';
  return (
    <div className="folder-choice" role="group" aria-label={check.folder} data-testid="settings-folder-choice">
      <p>
        <code>{check.folder}</code> — {t(says)}
      </p>
      {!canMove && !canOpen && (
        <p className="error">{t(`settings.folder.problem.${check.cannotOpen ?? check.cannotMove ?? 'is-current'}`)}</p>
      )}
      <div className="actions">
        {canMove && (
          <button type="button" onClick={() => props.onApply('move')} disabled={props.busy} data-testid="settings-folder-move">
            {t('settings.folder.move')}
          </button>
        )}
        {canOpen && (
          <button type="button" onClick={() => props.onApply('open')} disabled={props.busy} data-testid="settings-folder-open">
            {check.holdsMemory ? t('settings.folder.openMemory') : t('settings.folder.startNew')}
          </button>
        )}
        <button type="button" onClick={props.onCancel} disabled={props.busy}>
          {t('common.cancel')}
        </button>
      </div>
      {(canMove || canOpen) && (
        <p className="muted">
          {t(canMove ? 'settings.folder.moveExplain' : 'settings.folder.openExplain', { current: props.current ?? '' })}
        </p>
      )}
    </div>
  );
}
