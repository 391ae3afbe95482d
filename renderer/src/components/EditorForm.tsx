import { useState, type ReactNode } from 'react';
import { useT } from '../i18n';
import { describeError } from '../lib/errors';

/**
 * An inline editing form (an episode, a fact): submitting runs `save` — the engine call and what
 * follows it — once at a time; a failure is read out and the form stays, to be tried again. Escape
 * cancels the edit without also closing what holds the form. `submit` names the button that saves.
 */
export function EditorForm(props: {
  className: string;
  testId?: string;
  submit: string;
  /** Nothing to save yet: the submit button waits. */
  unchanged?: boolean;
  save: () => Promise<void>;
  onCancel: () => void;
  children: ReactNode;
}) {
  const t = useT();
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const save = async () => {
    setSaving(true);
    setError(null);
    try {
      await props.save();
    } catch (e) {
      setError(describeError(e, t));
      setSaving(false);
    }
  };
  return (
    <form
      className={props.className}
      data-testid={props.testId}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.stopPropagation();
          props.onCancel();
        }
      }}
    >
      {props.children}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={saving || props.unchanged}>
          {props.submit}
        </button>
        <button type="button" onClick={props.onCancel}>
          {t('common.cancel')}
        </button>
      </div>
    </form>
  );
}
