import { useEffect, useRef } from 'react';

/**
 * A modal question on the native <dialog>: it traps focus, Esc cancels, and focus returns to the
 * button that opened it. The safe choice (cancel) has the focus first.
 */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  body: string;
  confirm: string;
  cancel: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) dialog.showModal();
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  return (
    <dialog ref={ref} className="dialog" aria-labelledby="dialog-title" onCancel={props.onCancel} onClose={props.onCancel}>
      <h2 id="dialog-title">{props.title}</h2>
      <p>{props.body}</p>
      <div className="dialog-actions">
        <button type="button" autoFocus onClick={props.onCancel}>
          {props.cancel}
        </button>
        <button type="button" className="danger" onClick={props.onConfirm}>
          {props.confirm}
        </button>
      </div>
    </dialog>
  );
}
