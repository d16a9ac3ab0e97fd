import type { Language } from './translate.ts';

/** A timestamp as a short local date and time, or the fallback for null. */
export function formatDate(lang: Language, iso: string | null, fallback = '—'): string {
  if (!iso) return fallback;
  return new Intl.DateTimeFormat(lang === 'zh' ? 'zh-CN' : 'en', { dateStyle: 'medium', timeStyle: 'short' }).format(
    new Date(iso),
  );
}
