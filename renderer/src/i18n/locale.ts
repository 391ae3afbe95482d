/** The two UI languages and how they map to Intl and the system's language list. Pure. */
export type Locale = 'en' | 'zh';

/** Chinese for any zh-* locale (zh-CN, zh-TW, zh-Hans…), English otherwise. */
export function localeFor(languages: readonly string[]): Locale {
  const first = languages[0]?.toLowerCase() ?? 'en';
  return first.startsWith('zh') ? 'zh' : 'en';
}

/** BCP 47 tag for Intl formatting. */
export const intlTag = (l: Locale): string => (l === 'zh' ? 'zh-CN' : 'en');
