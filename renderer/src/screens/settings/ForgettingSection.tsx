import { useState } from 'react';
import type { EngineSettings } from '../../api/types';
import { useT } from '../../i18n';
import { navigate } from '../../store/route';
import { ActionStatus, NumberField, SaveForm, useSaveSettings } from './form';

type Forgetting = EngineSettings['forgetting'];

/** The forgetting parameters as typed; starts from the saved ones (the section remounts it when they change). */
function ForgettingForm({ saved, busy, onSave }: { saved: Forgetting; busy: boolean; onSave: (f: Forgetting) => void }) {
  const t = useT();
  const [enabled, setEnabled] = useState(saved.enabled);
  const [archive, setArchive] = useState(String(saved.archiveThreshold));
  const [trash, setTrash] = useState(String(saved.trashThreshold));
  const [days, setDays] = useState(String(saved.trashRetentionDays));
  return (
    <SaveForm
      testId="forgetting-form"
      busy={busy}
      onSave={() => onSave({ enabled, archiveThreshold: Number(archive), trashThreshold: Number(trash), trashRetentionDays: Number(days) })}
    >
      <label className="check">
        <input type="checkbox" role="switch" name="enabled" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
        {t('settings.forgettingEnabled')}
      </label>
      <NumberField label={t('settings.archiveThreshold')} name="archiveThreshold" value={archive} onChange={setArchive} min={0.001} />
      <NumberField label={t('settings.trashThreshold')} name="trashThreshold" value={trash} onChange={setTrash} min={0.001} />
      <NumberField label={t('settings.trashDays')} name="trashRetentionDays" value={days} onChange={setDays} min={0} step={1} />
    </SaveForm>
  );
}

/** When fading memories move to the archive and the trash, and how long the trash keeps them. */
export function ForgettingSection({ settings, onSaved }: { settings: EngineSettings | null; onSaved: (s: EngineSettings) => void }) {
  const t = useT();
  const { action, save } = useSaveSettings(onSaved);
  return (
    <section className="settings-section" aria-labelledby="s-forgetting" aria-busy={!settings}>
      <h2 id="s-forgetting">{t('settings.forgetting')}</h2>
      <p className="muted">{t('settings.forgettingBody')}</p>
      {settings && (
        <ForgettingForm
          key={JSON.stringify(settings.forgetting)}
          saved={settings.forgetting}
          busy={action.busy}
          onSave={(forgetting) => save({ forgetting })}
        />
      )}
      <ActionStatus action={action} testId="forgetting" />
      <p>
        <button type="button" onClick={() => navigate({ name: 'care' })}>
          {t('settings.forgettingOpen')}
        </button>
      </p>
    </section>
  );
}
