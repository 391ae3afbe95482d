/** What the settings sections share: running one engine call at a time, forms with a Save button, number fields, the saved/error line. */
import { useCallback, useState, type ReactNode } from 'react';
import { call } from '../../api/client';
import type { EngineSettings, EngineSettingsChange } from '../../api/types';
import { useT } from '../../i18n';
import { describeError, errorInfo, type ErrorInfo } from '../../lib/errors';

export interface Action {
  busy: boolean;
  error: ErrorInfo | null;
  notice: string | null;
  /** Runs `work` (nothing else while it runs); its answer, if any, becomes the notice; a failure, the error. */
  run(work: () => Promise<string | null>): Promise<void>;
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorInfo | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const run = useCallback(async (work: () => Promise<string | null>) => {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      setNotice(await work());
    } catch (e) {
      setError(errorInfo(e));
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, notice, run };
}

/** Saving a change of the engine's settings (`setEngineSettings`): its action, and the saved settings handed to `onSaved`. */
export function useSaveSettings(onSaved: (s: EngineSettings) => void, afterSave?: () => void) {
  const t = useT();
  const action = useAction();
  const save = (change: EngineSettingsChange) =>
    void action.run(async () => {
      onSaved(await call('setEngineSettings', change));
      afterSave?.();
      return t('settings.saved');
    });
  return { action, save };
}

/** The outcome of the last action: a quiet notice, or the engine's error read out at once. */
export function ActionStatus({ action, testId }: { action: Pick<Action, 'error' | 'notice'>; testId: string }) {
  const t = useT();
  return (
    <>
      {action.notice && (
        <p className="notice" role="status" data-testid={`${testId}-notice`}>
          {action.notice}
        </p>
      )}
      {action.error && (
        <p className="error" role="alert" data-testid={`${testId}-error`}>
          {describeError(action.error, t)}
        </p>
      )}
    </>
  );
}

/** A settings form and its Save button (disabled while `busy`); submitting hands over to `onSave` instead of loading a page. */
export function SaveForm({ testId, busy, onSave, children }: { testId: string; busy: boolean; onSave: () => void; children: ReactNode }) {
  const t = useT();
  return (
    <form
      className="settings-form"
      data-testid={testId}
      onSubmit={(e) => {
        e.preventDefault();
        onSave();
      }}
    >
      {children}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {t('common.save')}
        </button>
      </div>
    </form>
  );
}

/** A labelled number input; the text stays as typed (the engine checks the value on save). */
export function NumberField({
  label,
  name,
  value,
  onChange,
  min,
  step = 'any',
}: {
  label: string;
  name: string;
  value: string;
  onChange: (value: string) => void;
  min: number;
  step?: number | 'any';
}) {
  return (
    <label>
      {label}
      <input type="number" name={name} value={value} min={min} step={step} required onChange={(e) => onChange(e.target.value)} />
    </label>
  );
}
