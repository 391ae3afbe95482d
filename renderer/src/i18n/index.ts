/**
 * The UI language: follows the system (`navigator.language`) unless the person picks one, which is
 * remembered. Chinese for any zh-* locale, English otherwise.
 */
import { useCallback } from 'react';
import { create } from 'zustand';
import { createJSONStorage, persist } from 'zustand/middleware';
import { en, type MessageKey } from './en';
import { zh } from './zh';

export type Locale = 'en' | 'zh';
export type LocalePreference = 'system' | Locale;
export const LOCALE_PREFERENCES: readonly LocalePreference[] = ['system', 'en', 'zh'];
/** Each language names itself, so a person who cannot read the current one still finds theirs. */
export const LOCALE_NAMES: Record<Locale, string> = { en: 'English', zh: '中文' };

const dictionaries: Record<Locale, Record<MessageKey, string>> = { en, zh };

export function systemLocale(languages: readonly string[] = navigator.languages ?? [navigator.language]): Locale {
  const first = languages[0]?.toLowerCase() ?? 'en';
  return first.startsWith('zh') ? 'zh' : 'en';
}

interface LocaleState {
  preference: LocalePreference;
  setPreference: (p: LocalePreference) => void;
}

export const useLocaleStore = create<LocaleState>()(
  persist((set) => ({ preference: 'system', setPreference: (preference) => set({ preference }) }), {
    name: 'nemori.locale',
    storage: createJSONStorage(() => localStorage),
  }),
);

export function resolveLocale(p: LocalePreference): Locale {
  return p === 'system' ? systemLocale() : p;
}

export function useLocale(): Locale {
  return resolveLocale(useLocaleStore((s) => s.preference));
}

/** BCP 47 tag for Intl formatting. */
export const intlTag = (l: Locale): string => (l === 'zh' ? 'zh-CN' : 'en');

export function translate(locale: Locale, key: MessageKey, params: Record<string, string | number> = {}): string {
  const template = dictionaries[locale][key] ?? en[key];
  return template.replace(/\{(\w+)\}/g, (m, name: string) => (name in params ? String(params[name]) : m));
}

export type Translate = (key: MessageKey, params?: Record<string, string | number>) => string;

export function useT(): Translate {
  const locale = useLocale();
  return useCallback<Translate>((key, params) => translate(locale, key, params), [locale]);
}

/** Keeps <html lang> right for screen readers and CJK font selection. */
export function applyLocale(locale: Locale, root: HTMLElement = document.documentElement): void {
  root.lang = locale === 'zh' ? 'zh-CN' : 'en';
}

export type { MessageKey };
