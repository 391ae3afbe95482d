import { useEffect, useState } from 'react';
import { call } from '../../api/client';
import type { BackupFile, StartupView } from '../../api/types';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { PathChooser } from '../../components/PathChooser';
import { useLocale, useT } from '../../i18n';
import { formatDateTime } from '../../lib/dates';
import { reloadWithNotice } from '../../lib/flash';
import { baseName, formatBytes } from '../../lib/format';
import { ActionStatus, useAction } from './form';

/**
 * Backups: "Back up now" (a compressed copy of the whole store in `<data folder>/backups`, encrypted with
 * a passphrase when chosen), the ones there, and restoring one of them or any backup file (an encrypted
 * one with the passphrase typed here). A restore first saves the memory as it is, so
 * it can be undone the same way; the window then reloads onto the restored memory.
 */
export function BackupsSetting({ startup }: { startup: StartupView }) {
  const t = useT();
  const locale = useLocale();
  const action = useAction();
  const [backups, setBackups] = useState<BackupFile[] | null>(null);
  const [restoring, setRestoring] = useState<string | null>(null);
  const [encrypt, setEncrypt] = useState(false);
  // Kept in this component only: never saved, never sent anywhere but the backup and restore calls.
  const [passphrase, setPassphrase] = useState('');
  const sealed = passphrase ? { passphrase } : {};
  const localTime = (iso: string) => formatDateTime(iso, -new Date(iso).getTimezoneOffset(), locale);

  const refresh = () => call('listBackups', {}).then((b) => setBackups(b.backups));
  useEffect(() => {
    void refresh();
  }, []);

  const backUp = () =>
    action.run(async () => {
      const b = await call('backup', encrypt ? { passphrase } : {});
      await refresh();
      const name = baseName(b.file);
      return t('settings.backupDone', { name, size: formatBytes(b.bytes), folder: b.file.slice(0, -name.length - 1) });
    });
  // The export goes into a chosen folder (a browser tab cannot show a save dialog), named like a backup.
  const exportTo = (folder: string) =>
    action.run(async () => {
      const sep = folder.includes('\\') && !folder.includes('/') ? '\\' : '/';
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      const file = `${folder.replace(/[\\/]+$/, '')}${sep}nemori-export-${stamp}.zip${encrypt ? '.enc' : ''}`;
      const out = await call('exportMemory', { file, ...(encrypt ? { passphrase } : {}) });
      return t('settings.exportDone', { file: out.file, size: formatBytes(out.bytes) });
    });
  const restore = (file: string) => {
    setRestoring(null);
    void action.run(async () => {
      const out = await call('restoreBackup', { file, ...(file.endsWith('.enc') ? sealed : {}) });
      reloadWithNotice(t('settings.restore.done', { name: baseName(out.restored), safety: baseName(out.safetyBackup) }));
      return null;
    });
  };

  return (
    <div className="setting-block" data-testid="settings-backups">
      <p className="muted">{t('settings.backupIntro')}</p>
      <label className="check">
        <input
          type="checkbox"
          name="encrypt"
          checked={encrypt}
          onChange={(e) => setEncrypt(e.target.checked)}
          data-testid="backup-encrypt"
        />
        {t('settings.backupEncrypt')}
      </label>
      {(encrypt || backups?.some((b) => b.encrypted)) && (
        <label>
          {t('settings.backupPassphrase')}
          <input
            type="password"
            name="passphrase"
            autoComplete="new-password"
            value={passphrase}
            onChange={(e) => setPassphrase(e.target.value)}
            data-testid="backup-passphrase"
          />
        </label>
      )}
      {!encrypt && <p className="muted">{t('settings.backupPlainNote')}</p>}
      <div className="actions">
        <button type="button" onClick={() => void backUp()} disabled={action.busy} data-testid="backup-run">
          {action.busy ? t('settings.backupRunning') : t('settings.backupRun')}
        </button>
      </div>
      {backups && backups.length > 0 && (
        <ul className="backup-list" aria-label={t('settings.restore.list')} data-testid="backup-list">
          {backups.map((b) => (
            <li key={b.file}>
              <span>
                {localTime(b.at)} · {formatBytes(b.bytes)}
                {b.encrypted ? ` · ${t('settings.backupEncrypted')}` : ''}
                {b.mayHoldSecrets && (
                  <span className="backup-secrets" data-testid="backup-may-hold-secrets">
                    {t('settings.backupMayHoldSecrets')}
                  </span>
                )}
              </span>
              {startup.canChange && (
                <button
                  type="button"
                  onClick={() => setRestoring(b.file)}
                  disabled={action.busy}
                  aria-label={t('settings.restore.oneLabel', { when: localTime(b.at) })}
                >
                  {t('settings.restore.one')}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {startup.canChange && (
        <PathChooser
          kind="backup"
          label={t('settings.restore.fromFile')}
          button={t('settings.restore.one')}
          placeholder={t('settings.restore.placeholder')}
          disabled={action.busy}
          onChosen={setRestoring}
          testId="backup-restore-file"
        />
      )}
      <p className="muted">{t('settings.exportIntro')}</p>
      <PathChooser
        kind="folder"
        label={t('settings.exportTo')}
        button={t('settings.exportRun')}
        placeholder={t('settings.restore.placeholder')}
        disabled={action.busy}
        onChosen={(folder) => void exportTo(folder)}
        testId="export-folder"
      />
      <ActionStatus action={action} testId="backup" />
      <ConfirmDialog
        open={restoring !== null}
        title={t('settings.restore.confirmTitle')}
        body={t('settings.restore.confirmBody', { name: restoring ? baseName(restoring) : '' })}
        confirm={t('settings.restore.confirm')}
        cancel={t('common.cancel')}
        onConfirm={() => restoring && restore(restoring)}
        onCancel={() => setRestoring(null)}
      />
    </div>
  );
}
