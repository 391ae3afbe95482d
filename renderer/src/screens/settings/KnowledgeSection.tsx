import { useCallback, useEffect, useState } from 'react';
import { call } from '../../api/client';
import type { EngineSettings, KnowledgeCapacity } from '../../api/types';
import { useLocale, useT, type Locale, type Translate } from '../../i18n';
import { describeError, errorInfo, type ErrorInfo } from '../../lib/errors';
import { formatNumber } from '../../lib/format';
import { ActionStatus, NumberField, SaveForm, useSaveSettings } from './form';
import { ReadNow } from './ReadNow';

type Limits = EngineSettings['knowledge'];

const percent = (x: number) => Math.round(x * 100);

/** How full the store of facts is, what is kept no matter what, which facts go first, and what waits for discovery. */
function CapacityFacts({ c, t, locale }: { c: KnowledgeCapacity; t: Translate; locale: Locale }) {
  const n = (x: number) => formatNumber(x, locale);
  const queue = c.discoveryQueue;
  return (
    <>
      <dl className="facts wide" data-testid="settings-knowledge">
        <dt>{t('settings.knowledgeFacts')}</dt>
        <dd data-testid="knowledge-items">{t('settings.knowledgeFactsValue', { items: n(c.items), max: n(c.maxItems) })}</dd>
        <dt>{t('settings.knowledgeTokens')}</dt>
        <dd data-testid="knowledge-tokens">{t('settings.knowledgeTokensValue', { tokens: n(c.tokens), max: n(c.maxTokens) })}</dd>
        <dt>{t('settings.knowledgeKept')}</dt>
        <dd>
          {t('settings.knowledgeKeptValue', {
            protected: n(c.protected),
            low: n(c.lowImportance),
            versions: n(c.versions),
            trashed: n(c.trashed),
          })}
        </dd>
        <dt>{t('settings.knowledgePolicy')}</dt>
        <dd>{t('settings.knowledgePolicyValue', { high: percent(c.thresholds.high), low: percent(c.thresholds.low) })}</dd>
        {c.nextEviction && (
          <>
            <dt>{t('settings.knowledgeNext')}</dt>
            <dd>
              <code>{c.nextEviction.key}</code>
            </dd>
          </>
        )}
        <dt>{t('settings.knowledgeQueue')}</dt>
        <dd data-testid="knowledge-queue">
          {queue.waiting + queue.failed === 0
            ? t('settings.knowledgeQueueEmpty')
            : t('settings.knowledgeQueueValue', { n: n(queue.waiting) })}
          {queue.failed > 0 && <> · {t('settings.knowledgeQueueFailed', { n: n(queue.failed) })}</>}
        </dd>
      </dl>
      {c.over && <p className="error">{t('settings.knowledgeOver')}</p>}
    </>
  );
}

/** The two capacity limits as typed; starts from the saved ones (the section remounts it when they change). */
function LimitsForm({ saved, busy, onSave }: { saved: Limits; busy: boolean; onSave: (l: Limits) => void }) {
  const t = useT();
  const [maxFacts, setMaxFacts] = useState(String(saved.maxFacts));
  const [maxTokens, setMaxTokens] = useState(String(saved.maxTokens));
  return (
    <SaveForm testId="knowledge-form" busy={busy} onSave={() => onSave({ maxFacts: Number(maxFacts), maxTokens: Number(maxTokens) })}>
      <NumberField label={t('settings.knowledgeMaxFacts')} name="maxFacts" value={maxFacts} onChange={setMaxFacts} min={1} step={1} />
      <NumberField label={t('settings.knowledgeMaxTokens')} name="maxTokens" value={maxTokens} onChange={setMaxTokens} min={100} step={1} />
    </SaveForm>
  );
}

/** Semantic memory: capacity and its limits, the eviction policy, and the episodes waiting to be read for facts. */
export function KnowledgeSection({
  settings,
  onSaved,
  onSetUpLlm,
}: {
  settings: EngineSettings | null;
  onSaved: (s: EngineSettings) => void;
  onSetUpLlm: () => void;
}) {
  const t = useT();
  const locale = useLocale();
  const [capacity, setCapacity] = useState<KnowledgeCapacity | null>(null);
  const [loadError, setLoadError] = useState<ErrorInfo | null>(null);
  const load = useCallback(() => {
    call('knowledgeCapacity', {}).then(setCapacity, (e: unknown) => setLoadError(errorInfo(e)));
  }, []);
  useEffect(load, [load]);
  // New limits change the capacity figures: read them again once saved.
  const { action, save } = useSaveSettings(onSaved, load);

  return (
    <section className="settings-section" aria-labelledby="s-knowledge" aria-busy={!capacity && !loadError}>
      <h2 id="s-knowledge">{t('settings.knowledge')}</h2>
      <p className="muted">{t('settings.knowledgeIntro')}</p>
      {loadError && <p className="error">{describeError(loadError, t)}</p>}
      {capacity && (
        <>
          <CapacityFacts c={capacity} t={t} locale={locale} />
          <ReadNow waiting={capacity.discoveryQueue.waiting + capacity.discoveryQueue.failed} onDone={load} onSetUpLlm={onSetUpLlm} />
        </>
      )}
      {settings && (
        <LimitsForm
          key={JSON.stringify(settings.knowledge)}
          saved={settings.knowledge}
          busy={action.busy}
          onSave={(knowledge) => save({ knowledge })}
        />
      )}
      <ActionStatus action={action} testId="knowledge" />
    </section>
  );
}
