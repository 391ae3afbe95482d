import { useEffect, useRef } from 'react';

/**
 * The end of a paged list: a "show more" button that presses itself when it is scrolled into view
 * (infinite scroll), and stays a plain button for the keyboard. Watching again after each page means
 * a page too short to fill the view is followed by the next one.
 */
export function ShowMore({ label, onMore, busy }: { label: string; onMore: () => void; busy: boolean }) {
  const ref = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el || busy) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) onMore();
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [busy, onMore]);
  return (
    <button ref={ref} type="button" className="link show-more" onClick={onMore} disabled={busy}>
      {label}
    </button>
  );
}
