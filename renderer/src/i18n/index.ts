/**
 * The UI language: follows the system (`navigator.language`) unless the person picks one, which is
 * remembered. Chinese for any zh-* locale, English otherwise.
 */
import { useCallback } from 'react';
import { create } from 'zustand';
import { createJSONStorage, persist } from 'zustand/middleware';
import type { MessageKey } from './en';
import { intlTag, localeFor, type Locale } from './locale';
import { translate, type Translate } from './translate';

export { intlTag, type Locale };
export type LocalePreference = 'system' | Locale;
export const LOCALE_PREFERENCES: readonly LocalePreference[] = ['system', 'en', 'zh'];
/** Each language names itself, so a person who cannot read the current one still finds theirs. */
export const LOCALE_NAMES: Record<Locale, string> = { en: 'English', zh: '中文' };

export function systemLocale(): Locale {
  return localeFor(navigator.languages?.length ? navigator.languages : [navigator.language]);
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

export { translate };

export type { Translate };

export function useT(): Translate {
  const locale = useLocale();
  return useCallback<Translate>((key, params) => translate(locale, key, params), [locale]);
}

/** Keeps <html lang> right for screen readers and CJK font selection. */
export function applyLocale(locale: Locale, root: HTMLElement = document.documentElement): void {
  root.lang = locale === 'zh' ? 'zh-CN' : 'en';
}

export type { MessageKey };
