import { useState } from 'react';
import type { EngineSettings } from '../../api/types';
import { useT } from '../../i18n';
import { ActionStatus, SaveForm, useSaveSettings } from './form';

type Privacy = EngineSettings['privacy'];
type Kind = keyof Privacy['kinds'];

/** The filter on or off and each kind of secret, as typed; starts from the saved ones (remounted when they change). */
function PrivacyForm({ saved, busy, onSave }: { saved: Privacy; busy: boolean; onSave: (p: Pick<Privacy, 'enabled' | 'kinds'>) => void }) {
  const t = useT();
  const [enabled, setEnabled] = useState(saved.enabled);
  const [kinds, setKinds] = useState(saved.kinds);
  return (
    <SaveForm testId="privacy-form" busy={busy} onSave={() => onSave({ enabled, kinds })}>
      <label className="check">
        <input type="checkbox" role="switch" name="enabled" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
        {t('settings.privacyEnabled')}
      </label>
      <fieldset disabled={!enabled} className="privacy-kinds">
        <legend>{t('settings.privacyKinds')}</legend>
        {(Object.keys(kinds) as Kind[]).map((kind) => (
          <label className="check" key={kind}>
            <input type="checkbox" name={kind} checked={kinds[kind]} onChange={(e) => setKinds({ ...kinds, [kind]: e.target.checked })} />
            {t(`settings.privacyKind.${kind}`)}
          </label>
        ))}
      </fieldset>
    </SaveForm>
  );
}

/** Secrets never enter memory: what the privacy filter replaces with placeholders before anything is stored. */
export function PrivacySection({ settings, onSaved }: { settings: EngineSettings | null; onSaved: (s: EngineSettings) => void }) {
  const t = useT();
  const { action, save } = useSaveSettings(onSaved);
  return (
    <section className="settings-section" aria-labelledby="s-privacy" aria-busy={!settings}>
      <h2 id="s-privacy">{t('settings.privacy')}</h2>
      <p className="muted">{t('settings.privacyBody')}</p>
      {settings && (
        <PrivacyForm
          key={JSON.stringify(settings.privacy)}
          saved={settings.privacy}
          busy={action.busy}
          onSave={(privacy) => save({ privacy })}
        />
      )}
      {settings && settings.privacy.patterns.length > 0 && (
        <p className="muted">{t('settings.privacyPatterns', { names: settings.privacy.patterns.map((p) => p.name).join(', ') })}</p>
      )}
      <ActionStatus action={action} testId="privacy" />
    </section>
  );
}
