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

/** The reference and each value of each axis alone (a one-at-a-time sweep around the reference). */
function sweep(axes: Record<string, readonly unknown[]>): Over[] {
  return [{}, ...Object.entries(axes).flatMap(([key, values]) => values.map((v) => set({}, key.split('.'), v)))];
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
  g4: product({ header: ['full', 'short', 'date'], neighbours: ['replies', 'borrowed', 'none'], depth: [40, 500] }),
  s1: sweep({
    k1: [0.8, 1.6, 2.4],
    b: [0.3, 0.5, 0.9],
    speakerBoost: [0, 0.6, 1],
    episodeWeight: [0.15, 0.45],
    'feedback.terms': [5, 10],
    episodeDecay: [0.5, 0.9, 1],
    dayDecay: [0.7, 1],
    'fields.context': [0, 0.6],
    'fields.speaker': [0, 1],
    'borrow.next2': [0.3],
  }),
  s2: product({ speakerBoost: [0.3, 1, 2, 4, 10], asking: [0.7, 0.4], 'borrow.previous': [0.6, 0.9] }),
  s3: product({ lengthPenalty: [0, 0.2, 0.4, 0.6], neighbours: ['replies', 'none'] }),
  s4: product({ neighbours: ['replies', 'none', 'answers', 'referents'], 'borrow.previous': [0.6, 0.8], 'borrow.next': [0.4, 0.6] }),
  s5: product({ 'several.dayDecay': [1, 0.8, 0.6, 0.4], 'several.episodeDecay': [0.9, 0.6] }),
  /** The final selection: every combination of the settings that mattered in the sweeps above. */
  final: product({
    neighbours: ['answers', 'none'],
    speakerBoost: [0.3, 1],
    'borrow.previous': [0.6, 0.8],
    'borrow.next': [0.4, 0.6],
    episodeDecay: [0.9, 1],
    timeBoost: [0.5, 1],
    'fields.near': [0, 0.4],
  }),
  depth: product({ depth: [20, 40, 80, 500] }),
  stage: product({ depth: [60, 120], episodeWeight: [0.3, 0.5], speakerBoost: [1, 2] }),
  prf: product({ 'feedback.terms': [0, 3, 5, 10], 'feedback.weight': [0.2, 0.4], 'feedback.minDocs': [2, 3], 'feedback.docs': [5, 10] }),
  names: product({ speakerTerms: [0.3, 0, 0.1, 0.2, 0.5], speakerBoost: [1, 1.5] }),
  spread: product({ episodeDecay: [0.9, 0.7, 0.5, 0.3], dayDecay: [1, 0.8, 0.6] }),
};
