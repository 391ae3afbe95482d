import { useState, type FormEvent } from 'react';
import { connectionKind, pick } from '../api/client';
import type { PickKind } from '../../../core/api/bridge';

/**
 * Choosing a folder or a backup file on this computer: the system dialog in the desktop app; in a
 * browser tab, which cannot see the disk, the full path typed in.
 */
export function PathChooser(props: {
  kind: Exclude<PickKind, 'import'>;
  /** The button (desktop) or the field's label (browser). */
  label: string;
  button: string;
  placeholder: string;
  disabled?: boolean;
  onChosen: (path: string) => void;
  testId: string;
}) {
  const [typed, setTyped] = useState('');
  if (connectionKind() === 'desktop') {
    const choose = async () => {
      const [chosen] = await pick(props.kind);
      if (chosen) props.onChosen(chosen);
    };
    return (
      <button type="button" onClick={() => void choose()} disabled={props.disabled} data-testid={props.testId}>
        {props.label}
      </button>
    );
  }
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (typed.trim()) props.onChosen(typed.trim());
  };
  return (
    <form className="settings-form" onSubmit={submit} data-testid={props.testId}>
      <label>
        {props.label}
        <input
          type="text"
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
          placeholder={props.placeholder}
          spellCheck={false}
          autoComplete="off"
        />
      </label>
      <div className="actions">
        <button type="submit" disabled={props.disabled || !typed.trim()}>
          {props.button}
        </button>
      </div>
    </form>
  );
}
