/**
 * The arithmetic of a windowed list: only rows near the viewport are in the DOM, so a journal of
 * 100k episodes scrolls as smoothly as one of ten. Rows have fixed heights per kind (a day
 * heading, an entry card), so offsets are exact without measuring.
 *
 * Pure functions, tested without a browser (test/e2e/windowing.test.ts).
 */

/** offsets[i] = top of row i; offsets[n] = total height. */
export function prefixOffsets(heights: ArrayLike<number>): Float64Array {
  const offsets = new Float64Array(heights.length + 1);
  for (let i = 0; i < heights.length; i++) offsets[i + 1] = offsets[i]! + heights[i]!;
  return offsets;
}

/** Index of the row containing y (clamped to the rows that exist). */
export function rowAt(offsets: Float64Array, y: number): number {
  const n = offsets.length - 1;
  if (n <= 0) return 0;
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (offsets[mid]! <= y) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Rows to render: those intersecting [scrollTop − overscan, scrollTop + viewport + overscan]; end is exclusive. */
export function visibleRange(offsets: Float64Array, scrollTop: number, viewport: number, overscan: number): { start: number; end: number } {
  const n = offsets.length - 1;
  if (n <= 0) return { start: 0, end: 0 };
  const start = rowAt(offsets, Math.max(0, scrollTop - overscan));
  const end = Math.min(n, rowAt(offsets, scrollTop + viewport + overscan) + 1);
  return { start, end };
}

/** The scrollTop that brings row `index` fully into view, moving as little as possible. */
export function scrollToReveal(offsets: Float64Array, index: number, scrollTop: number, viewport: number): number {
  const top = offsets[index] ?? 0;
  const bottom = offsets[index + 1] ?? top;
  if (top < scrollTop) return top;
  if (bottom > scrollTop + viewport) return Math.max(0, bottom - viewport);
  return scrollTop;
}
