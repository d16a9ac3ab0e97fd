import { type FormEvent, useState } from 'react';
import { agentsApi } from '../api/agents-api.ts';
import { ApiError } from '../api/problem.ts';
import { useI18n } from '../i18n/i18n-context.tsx';
import { LanguageSwitch } from '../shell/language-switch.tsx';
import { clearSecretKey, looksLikeSecretKey, saveSecretKey } from './session.ts';

/** Key-based sign-in: the tenant's secret key, checked with one authenticated call. */
export function LoginPage({ onLogin }: { onLogin: () => void }) {
  const { t } = useI18n();
  const [key, setKey] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!looksLikeSecretKey(key)) {
      setError(t('login.badFormat'));
      return;
    }
    setBusy(true);
    setError('');
    saveSecretKey(key);
    try {
      await agentsApi.list();
      onLogin();
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) {
        clearSecretKey();
        setError(t('login.rejected'));
      } else {
        // The key may be fine while the list route is not there yet; let the user in.
        onLogin();
      }
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="login">
      <form className="card login-card" onSubmit={submit}>
        <div className="page-header">
          <h1>{t('app.name')}</h1>
          <LanguageSwitch />
        </div>
        <p className="muted">{t('login.intro')}</p>
        <div className={`field${error ? ' field-invalid' : ''}`}>
          <label htmlFor="login-key">{t('login.key')}</label>
          <input
            id="login-key"
            type="password"
            autoComplete="off"
            spellCheck={false}
            value={key}
            placeholder="sk_…"
            aria-invalid={Boolean(error)}
            aria-describedby={error ? 'login-error' : undefined}
            onChange={(e) => setKey(e.target.value)}
          />
          {error ? (
            <p className="issues" id="login-error" role="alert">
              {error}
            </p>
          ) : (
            <p className="help">{t('login.help')}</p>
          )}
        </div>
        <button type="submit" id="login-submit" disabled={busy || !key}>
          {t('login.submit')}
        </button>
      </form>
    </main>
  );
}
