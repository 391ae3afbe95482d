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

/** The last part of a path, whichever the separator (the engine may run on Windows). */
export function baseName(path: string): string {
  return path.split(/[\\/]/).pop() || path;
}
