import { useI18n } from '../i18n/i18n-context.tsx';
import { LANGUAGES, type Language } from '../i18n/translate.ts';

export function LanguageSwitch() {
  const { lang, setLang, t } = useI18n();
  return (
    <label className="language-switch">
      <span className="sr-only">{t('app.language')}</span>
      <select id="language" value={lang} onChange={(e) => setLang(e.target.value as Language)}>
        {Object.entries(LANGUAGES).map(([code, name]) => (
          <option key={code} value={code}>
            {name}
          </option>
        ))}
      </select>
    </label>
  );
}
