/** Numbers, sizes and file names as a person reads them. Pure. */
import { intlTag, type Locale } from '../i18n/locale';

/** 10000 → "10,000" (en) / "10,000" (zh-CN): grouped the way the language writes them. */
export function formatNumber(n: number, locale: Locale): string {
  return new Intl.NumberFormat(intlTag(locale)).format(n);
}

/** 1536 → "1.5 KB"; null (unknown) → "—". */
export function formatBytes(bytes: number | null): string {
  if (bytes === null) return '—';
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
}

/**
 * Bytes so far of a whole, in the whole's unit: (47_185_920, 123_731_968) → { loaded: "45", total: "118 MB" },
 * for "45 of 118 MB". Whole numbers from 10 up, one decimal below.
 */
export function formatByteProgress(loaded: number, total: number): { loaded: string; total: string } {
  const [unit, size] = total < 1024 ** 2 ? ['KB', 1024] : total < 1024 ** 3 ? ['MB', 1024 ** 2] : ['GB', 1024 ** 3];
  const digits = total / size >= 10 ? 0 : 1;
  const show = (n: number) => (n / size).toFixed(digits);
  // A no-break space: "118 MB" never wraps between the number and its unit.
  return { loaded: show(Math.min(loaded, total)), total: `${show(total)}\u00a0${unit}` };
}

/** The last part of a path, whichever the separator (the engine may run on Windows). */
export function baseName(path: string): string {
  return path.split(/[\\/]/).pop() || path;
}
