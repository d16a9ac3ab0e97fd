import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from 'react';
import { type Language, type MessageKey, preferredLanguage, translate } from './translate.ts';

const LANG_STORAGE = 'agentry.lang';

interface I18n {
  lang: Language;
  setLang: (lang: Language) => void;
  t: (key: MessageKey, vars?: Record<string, string | number>) => string;
}

const I18nContext = createContext<I18n | undefined>(undefined);

export function I18nProvider({ children }: { children: ReactNode }) {
  const [lang, setLangState] = useState<Language>(() =>
    preferredLanguage(localStorage.getItem(LANG_STORAGE), navigator.languages ?? [navigator.language]),
  );
  const setLang = useCallback((next: Language) => {
    localStorage.setItem(LANG_STORAGE, next);
    document.documentElement.lang = next === 'zh' ? 'zh-CN' : 'en';
    setLangState(next);
  }, []);
  const value = useMemo<I18n>(() => ({ lang, setLang, t: (key, vars) => translate(lang, key, vars) }), [lang, setLang]);
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18n {
  const value = useContext(I18nContext);
  if (!value) throw new Error('useI18n outside I18nProvider');
  return value;
}
