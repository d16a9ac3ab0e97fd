import { en, type MessageKey } from './messages-en.ts';
import { zh } from './messages-zh.ts';

export const LANGUAGES = { en: 'English', zh: '中文' } as const;
export type Language = keyof typeof LANGUAGES;

export const dictionaries: Record<Language, Record<MessageKey, string>> = { en, zh };

/** The message for `key` in `lang` with `{name}` slots filled; English when a key is missing. */
export function translate(lang: Language, key: MessageKey, vars?: Record<string, string | number>): string {
  const template = dictionaries[lang][key] ?? en[key] ?? key;
  if (!vars) return template;
  return template.replace(/\{(\w+)\}/g, (slot, name: string) => (name in vars ? String(vars[name]) : slot));
}

/** Chinese for browsers that ask for it, English otherwise. */
export function preferredLanguage(stored: string | null, browser: readonly string[]): Language {
  if (stored === 'en' || stored === 'zh') return stored;
  return browser.some((l) => l.toLowerCase().startsWith('zh')) ? 'zh' : 'en';
}

export type { MessageKey };
