import { useId, useState } from 'react';
import { call } from '../../api/client';
import type { FactView, OpOutput } from '../../api/types';
import { EditorForm } from '../../components/EditorForm';
import type { Translate } from '../../i18n';

type Written = OpOutput<'upsertKnowledge'>;

/**
 * A small form for one fact. Given a fact: its right value, stored as a correction (the wrong value
 * stays in the history, marked corrected). Without one: a new fact, by kind, subject and value.
 */
export function FactEditor({
  fact,
  kinds,
  onSaved,
  onCancel,
  t,
}: {
  fact?: FactView;
  kinds?: readonly string[];
  onSaved: (w: Written) => void;
  onCancel: () => void;
  t: Translate;
}) {
  const [kind, setKind] = useState('person');
  const [name, setName] = useState('');
  const [value, setValue] = useState(fact?.value ?? '');
  const kindList = useId();
  const unchanged = fact ? value.trim() === fact.value.trim() : false;

  return (
    <EditorForm
      className="editor fact-editor"
      testId={fact ? 'fact-correct-form' : 'fact-add-form'}
      submit={fact ? t('knowledge.edit.saveCorrection') : t('knowledge.edit.add')}
      unchanged={unchanged}
      save={async () => {
        const written = fact
          ? await call('upsertKnowledge', { key: fact.key, value, metadata: { correction: true } })
          : await call('upsertKnowledge', { key: `${kind.trim() || 'fact'}:${name}`, value });
        onSaved(written);
      }}
      onCancel={onCancel}
    >
      {fact ? (
        <p className="muted">{t('knowledge.edit.correctHint')}</p>
      ) : (
        <div className="fact-editor-key">
          <label>
            {t('knowledge.edit.kind')}
            <input value={kind} onChange={(e) => setKind(e.target.value)} list={kindList} required autoFocus />
            <datalist id={kindList}>
              {kinds?.map((k) => (
                <option key={k} value={k} />
              ))}
            </datalist>
          </label>
          <label>
            {t('knowledge.edit.name')}
            <input
              value={name}
              onChange={(e) => setName(e.target.value)}
              placeholder={t('knowledge.edit.namePlaceholder')}
              required
              data-field="name"
            />
          </label>
        </div>
      )}
      <label>
        {t('knowledge.edit.value')}
        <textarea
          value={value}
          onChange={(e) => setValue(e.target.value)}
          placeholder={t('knowledge.edit.valuePlaceholder')}
          rows={3}
          required
          autoFocus={!!fact}
          data-field="value"
        />
      </label>
    </EditorForm>
  );
}
