import { useRef, type KeyboardEvent } from 'react';

/** A radio group drawn as joined buttons; arrow keys move the choice, as in any radio group. */
export function Segmented<T extends string>(props: {
  label: string;
  value: T;
  options: readonly { value: T; label: string }[];
  onChange: (v: T) => void;
  name?: string;
  className?: string;
}) {
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  const index = props.options.findIndex((o) => o.value === props.value);
  const onKeyDown = (e: KeyboardEvent) => {
    const step = e.key === 'ArrowRight' || e.key === 'ArrowDown' ? 1 : e.key === 'ArrowLeft' || e.key === 'ArrowUp' ? -1 : 0;
    if (!step) return;
    e.preventDefault();
    const next = (index + step + props.options.length) % props.options.length;
    props.onChange(props.options[next]!.value);
    refs.current[next]?.focus();
  };
  return (
    <div
      className={props.className ? `segmented ${props.className}` : 'segmented'}
      role="radiogroup"
      aria-label={props.label}
      onKeyDown={onKeyDown}
      data-name={props.name}
    >
      {props.options.map((o, i) => (
        <button
          key={o.value}
          ref={(el) => {
            refs.current[i] = el;
          }}
          type="button"
          role="radio"
          aria-checked={o.value === props.value}
          tabIndex={o.value === props.value ? 0 : -1}
          onClick={() => props.onChange(o.value)}
        >
          {o.label}
        </button>
      ))}
    </div>
  );
}
