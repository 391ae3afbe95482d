import { useState, type FormEvent } from 'react';
import { call } from '../../api/client';
import type { HealthOutput, StartupView } from '../../api/types';
import { useT } from '../../i18n';
import { ActionStatus, useAction } from './form';

const OTHER = '';

/**
 * Choosing the embedding model: the offered ones with their size, or any Hugging Face id typed in.
 * The engine downloads and loads it (the progress shows above); if it cannot, the current one stays.
 * Episodes embedded by the old model are embedded again on request: that is the slow part.
 */
export function ModelSetting({ startup, health, onChanged }: { startup: StartupView; health: HealthOutput; onChanged: () => void }) {
  const t = useT();
  const action = useAction();
  const offered = startup.modelChoices.some((c) => c.id === startup.embeddingModel);
  const [choice, setChoice] = useState(offered ? startup.embeddingModel : OTHER);
  const [typed, setTyped] = useState(offered ? '' : startup.embeddingModel);
  const owners = health.owners;
  // Without a working model nothing can be embedded; the count is only an offer when there is one.
  const [unembedded, setUnembedded] = useState(() =>
    health.embedding.available ? owners.reduce((n, o) => n + o.episodes - o.embedded, 0) : 0,
  );
  const modelId = (choice === OTHER ? typed : choice).trim();

  if (startup.modelPinnedBy) return <p className="muted">{t('settings.modelPick.pinned', { by: startup.modelPinnedBy })}</p>;
  if (!startup.canChange) return null;

  const use = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const out = await call('setEmbeddingModel', { modelId });
      setUnembedded(out.unembedded);
      onChanged();
      return t('settings.modelPick.done', { model: out.startup.embeddingModel });
    });
  };
  const embed = () =>
    void action.run(async () => {
      let embedded = 0;
      for (const o of owners) embedded += (await call('rebuildIndexes', { ownerId: o.ownerId })).embedded;
      setUnembedded(0);
      onChanged();
      return t('settings.modelPick.embedded', { n: embedded });
    });

  return (
    <div className="setting-block" data-testid="settings-model-pick">
      <form className="settings-form" onSubmit={use}>
        <label>
          {t('settings.modelPick.label')}
          <select value={choice} onChange={(e) => setChoice(e.target.value)} disabled={action.busy} data-testid="settings-model-select">
            {startup.modelChoices.map((c) => (
              <option key={c.id} value={c.id}>
                {[
                  c.id,
                  c.dimensions && t('settings.modelPick.dims', { n: c.dimensions }),
                  c.downloadMb && t('settings.modelPick.size', { mb: c.downloadMb }),
                  c.recommended && t('settings.modelPick.recommended'),
                ]
                  .filter(Boolean)
                  .join(' · ')}
              </option>
            ))}
            <option value={OTHER}>{t('settings.modelPick.other')}</option>
          </select>
        </label>
        {choice === OTHER && (
          <label>
            {t('settings.modelPick.otherLabel')}
            <input
              type="text"
              value={typed}
              onChange={(e) => setTyped(e.target.value)}
              placeholder="Xenova/bge-m3"
              spellCheck={false}
              autoComplete="off"
              data-testid="settings-model-id"
            />
          </label>
        )}
        <div className="actions">
          <button type="submit" disabled={action.busy || !modelId || modelId === startup.embeddingModel} data-testid="settings-model-use">
            {action.busy ? t('settings.modelPick.working') : t('settings.modelPick.use')}
          </button>
        </div>
      </form>
      <p className="muted">{t('settings.modelPick.explain')}</p>
      {unembedded > 0 && (
        <div className="actions" data-testid="settings-model-reembed">
          <span>{t('settings.modelPick.unembedded', { n: unembedded })}</span>
          <button type="button" onClick={embed} disabled={action.busy} data-testid="settings-model-embed">
            {t('settings.modelPick.embedNow')}
          </button>
        </div>
      )}
      <ActionStatus action={action} testId="settings-model" />
    </div>
  );
}
