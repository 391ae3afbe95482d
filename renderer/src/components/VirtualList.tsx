import {
  useEffect,
  useImperativeHandle,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type HTMLAttributes,
  type ReactNode,
  type Ref,
} from 'react';
import { prefixOffsets, scrollToReveal, visibleRange } from './windowing';

export interface VirtualListHandle {
  /** Scrolls as little as needed to show row `index` whole. */
  reveal(index: number): void;
  readonly element: HTMLDivElement | null;
}

interface VirtualListProps<T> extends Omit<HTMLAttributes<HTMLDivElement>, 'children'> {
  items: readonly T[];
  heightOf: (item: T) => number;
  keyOf: (item: T) => string;
  renderItem: (item: T, index: number) => ReactNode;
  /** Extra pixels rendered above and below the viewport, so fast scrolling never shows blanks. */
  overscan?: number;
  /** Called when the last rendered row is within `nearEndRows` of the end (infinite scroll). */
  onNearEnd?: () => void;
  nearEndRows?: number;
  initialScrollTop?: number;
  onScrollTopChange?: (top: number) => void;
  footer?: ReactNode;
  ref?: Ref<VirtualListHandle>;
}

/** A scroll container that renders only the rows near its viewport (see windowing.ts). */
export function VirtualList<T>({
  items,
  heightOf,
  keyOf,
  renderItem,
  overscan = 600,
  onNearEnd,
  nearEndRows = 30,
  initialScrollTop = 0,
  onScrollTopChange,
  footer,
  ref,
  ...rest
}: VirtualListProps<T>) {
  const container = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(initialScrollTop);
  const [viewport, setViewport] = useState(800);
  const offsets = useMemo(() => prefixOffsets(items.map(heightOf)), [items, heightOf]);
  const total = offsets[offsets.length - 1] ?? 0;
  const { start, end } = visibleRange(offsets, scrollTop, viewport, overscan);

  useLayoutEffect(() => {
    const el = container.current;
    if (!el) return;
    el.scrollTop = initialScrollTop;
    setViewport(el.clientHeight);
    const observer = new ResizeObserver(() => setViewport(el.clientHeight));
    observer.observe(el);
    return () => observer.disconnect();
    // Only on mount: later scroll positions belong to the person.
  }, []);

  useEffect(() => {
    if (onNearEnd && items.length > 0 && end >= items.length - nearEndRows) onNearEnd();
  }, [end, items.length, nearEndRows, onNearEnd]);

  useImperativeHandle(
    ref,
    () => ({
      reveal(index) {
        const el = container.current;
        if (!el) return;
        const next = scrollToReveal(offsets, index, el.scrollTop, el.clientHeight);
        if (next !== el.scrollTop) el.scrollTop = next;
      },
      get element() {
        return container.current;
      },
    }),
    [offsets],
  );

  // One state update per frame at most, however many scroll events the wheel sends.
  const frame = useRef(0);
  const onScroll = () => {
    if (frame.current) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = 0;
      const top = container.current?.scrollTop ?? 0;
      setScrollTop(top);
      onScrollTopChange?.(top);
    });
  };
  useEffect(() => () => cancelAnimationFrame(frame.current), []);

  const rows: ReactNode[] = [];
  for (let i = start; i < end; i++) {
    const item = items[i]!;
    rows.push(
      <div key={keyOf(item)} className="vrow" style={{ top: offsets[i], height: offsets[i + 1]! - offsets[i]! }}>
        {renderItem(item, i)}
      </div>,
    );
  }

  return (
    <div ref={container} onScroll={onScroll} {...rest}>
      <div className="vlist-canvas" style={{ height: total }}>
        {rows}
      </div>
      {footer}
    </div>
  );
}
