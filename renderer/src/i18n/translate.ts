import { en, type MessageKey } from './en';
import type { Locale } from './locale';
import { zh } from './zh';

/** `t`: the text for a key in the current language (useT binds the locale). */
export type Translate = (key: MessageKey, params?: Record<string, string | number>) => string;

export const dictionaries: Record<Locale, Record<MessageKey, string>> = { en, zh };

/** The text for `key` in `locale`, with `{name}` placeholders filled from `params`. Pure. */
export function translate(locale: Locale, key: MessageKey, params: Record<string, string | number> = {}): string {
  const template = dictionaries[locale][key] ?? en[key];
  return template.replace(/\{(\w+)\}/g, (m, name: string) => (name in params ? String(params[name]) : m));
}
