import type { ReactNode } from 'react';

export { termPattern } from './terms';

/** `text` with the matched terms wrapped in <mark>. */
export function highlight(text: string, pattern: RegExp | null): ReactNode {
  if (!pattern) return text;
  const out: ReactNode[] = [];
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    if (!m[0]) continue;
    const at = m.index ?? 0;
    if (at > last) out.push(text.slice(last, at));
    out.push(<mark key={at}>{m[0]}</mark>);
    last = at + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}
