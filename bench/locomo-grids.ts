/**
 * Parameter grids for bench/locomo-loo.ts: lists of overrides of the packer's settings
 * (core/context/retrieval-config.ts, `retrieval.pack`). The first entry of each grid is its reference.
 */
type Over = Record<string, unknown>;

/** Every combination of the given values, as nested overrides ("borrow.previous" → {borrow: {previous}}). */
function product(axes: Record<string, readonly unknown[]>): Over[] {
  let out: Over[] = [{}];
  for (const [key, values] of Object.entries(axes)) {
    out = out.flatMap((o) => values.map((v) => set(structuredClone(o), key.split('.'), v)));
  }
  return out;
}

function set(o: Over, keys: string[], v: unknown): Over {
  let at = o;
  for (const k of keys.slice(0, -1)) at = (at[k] ??= {}) as Over;
  at[keys.at(-1)!] = v;
  return o;
}

export const GRIDS: Record<string, Over[]> = {
  default: [{}],
  quick: product({ 'borrow.previous': [0, 0.5, 0.8], 'borrow.next': [0, 0.3, 0.6], episodeWeight: [0.1, 0.3, 0.5] }),
  g2: product({
    'borrow.previous': [0.3, 0.6, 0.9],
    'borrow.next': [0.3, 0.6],
    'borrow.previous2': [0, 0.3],
    neighbours: ['replies', 'borrowed', 'none'],
    speakerTerms: [1, 0.3],
  }),
  g3: product({
    'fields.near': [0, 0.2, 0.4],
    asking: [1, 0.7, 0.4],
    'borrow.previous': [0.3, 0.6],
    timeBoost: [0, 0.5, 1],
  }),
  vec: product({ vectorWeight: [0, 0.3, 0.5, 0.7], episodeWeight: [0.3, 0.5] }),
  depth: product({ depth: [20, 40, 80, 500] }),
};
