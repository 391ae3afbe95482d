import v8 from 'node:v8';
import vm from 'node:vm';

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;

export function words(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

export function argValue(argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  if (i >= 0) return argv[i + 1];
  const eq = argv.find((a) => a.startsWith(`--${name}=`));
  return eq?.slice(name.length + 3);
}

/**
 * A full garbage collection, and the turn of the event loop after it in which V8 gives back the
 * memory of the buffers it collected: a closed PGlite's 128 MB WebAssembly memory is still resident
 * when the collection itself returns (a 20k-episode store, closed and opened again: 491 MB resident
 * then, 378 MB a turn later).
 */
export async function collectGarbage(): Promise<void> {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  gc();
  await new Promise((resolve) => setTimeout(resolve, 100));
  gc();
}

/**
 * Memory after a full garbage collection: what the process holds, without the garbage it has yet to
 * collect (among it the memory of each PGlite instance a benchmark opened and closed). `rss` also
 * moves with how much room V8 and the allocator keep free; `heapUsed` is what live JS objects take,
 * the steadier measure of what caches keep.
 */
export async function memoryAfterGc(): Promise<{ rss: number; heapUsed: number }> {
  await collectGarbage();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heapUsed };
}
