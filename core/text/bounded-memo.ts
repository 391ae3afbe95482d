/**
 * `make`, remembered per key, for work a long-running process repeats on the same inputs (a word's
 * term, the pattern of a set of names). Bounded: when it holds `max` keys it is cleared whole — crude,
 * but O(1) amortised, and what is hot comes back at once. `make` must not return undefined.
 */
export function boundedMemo<T>(max: number, make: (key: string) => T): (key: string) => T {
  const known = new Map<string, T>();
  return (key) => {
    let value = known.get(key);
    if (value === undefined) {
      if (known.size >= max) known.clear();
      known.set(key, (value = make(key)));
    }
    return value;
  };
}
