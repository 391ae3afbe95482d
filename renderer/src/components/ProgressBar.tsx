/** A labelled progress bar; indeterminate (no value) until the first total is known. */
export function ProgressBar({ label, done, total, text }: { label: string; done: number | null; total: number | null; text?: string }) {
  const known = done !== null && total !== null && total > 0;
  const percent = known ? Math.min(100, Math.round((done / total) * 100)) : null;
  return (
    <div className="progress">
      <div
        className="progress-track"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        {...(percent !== null ? { 'aria-valuenow': percent } : {})}
        aria-valuetext={text}
        data-indeterminate={percent === null || undefined}
      >
        <div className="progress-fill" style={{ width: percent === null ? undefined : `${percent}%` }} />
      </div>
      {text && <div className="progress-text">{text}</div>}
    </div>
  );
}
