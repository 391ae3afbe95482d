import { en, type MessageKey } from './en';
import type { Locale } from './locale';
import { zh } from './zh';

/** `t`: the text for a key in the current language (useT binds the locale). */
export type Translate = (key: MessageKey, params?: Record<string, string | number>) => string;

export const dictionaries: Record<Locale, Record<MessageKey, string>> = { en, zh };

/** A count given as a number or already formatted ("1,234"): the number it stands for. */
const countOf = (value: string | number) => (typeof value === 'number' ? value : Number(value.replace(/[^\d.-]/g, '')));

/**
 * The text for `key` in `locale`, with `{name}` placeholders filled from `params`, and
 * `{name:one|other}` filled with the count and the word in the form the count needs ("1 file",
 * "3 files"; Chinese needs no forms). Pure.
 */
export function translate(locale: Locale, key: MessageKey, params: Record<string, string | number> = {}): string {
  const template = dictionaries[locale][key] ?? en[key];
  const plural = new Intl.PluralRules(locale);
  return template.replace(/\{(\w+)(?::([^|}]*)\|([^}]*))?\}/g, (m, name: string, one?: string, other?: string) => {
    if (!(name in params)) return m;
    const value = params[name]!;
    if (one === undefined || other === undefined) return String(value);
    return `${value} ${plural.select(countOf(value)) === 'one' ? one : other}`;
  });
}
