import { type FormEvent, useState } from 'react';
import { ApiError } from '../api/problem.ts';
import { useI18n } from '../i18n/i18n-context.tsx';
import { LanguageSwitch } from '../shell/language-switch.tsx';
import { loginWithPassword, looksLikeSecretKey, signInWithKey } from './session.ts';

/** Sign-in: email + password for people; a tenant secret key for developers, behind a disclosure. */
export function LoginPage() {
  const { t } = useI18n();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError('');
    try {
      await loginWithPassword(email, password);
    } catch (e) {
      setPassword('');
      if (e instanceof ApiError && e.code === 'invalid_credentials') setError(t('login.invalid'));
      else if (e instanceof ApiError && e.code === 'login_throttled')
        setError(t('login.throttled', { seconds: e.problem.retryAfter ?? 60 }));
      else setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="login">
      <div className="card login-card stack">
        <form onSubmit={submit} aria-labelledby="login-title">
          <div className="page-header">
            <h1 id="login-title">{t('app.name')}</h1>
            <LanguageSwitch />
          </div>
          <p className="muted">{t('login.intro')}</p>
          <div className="field">
            <label htmlFor="login-email">{t('login.email')}</label>
            <input
              id="login-email"
              type="email"
              autoComplete="username"
              required
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
          </div>
          <div className={`field${error ? ' field-invalid' : ''}`}>
            <label htmlFor="login-password">{t('login.password')}</label>
            <input
              id="login-password"
              type="password"
              autoComplete="current-password"
              required
              value={password}
              aria-invalid={Boolean(error)}
              aria-describedby={error ? 'login-error' : undefined}
              onChange={(e) => setPassword(e.target.value)}
            />
            {error ? (
              <p className="issues" id="login-error" role="alert">
                {error}
              </p>
            ) : null}
          </div>
          <button type="submit" id="login-submit" disabled={busy || !email || !password}>
            {t('login.submit')}
          </button>
        </form>
        <details className="key-login">
          <summary id="key-login-toggle">{t('login.useKey')}</summary>
          <KeyLoginForm />
        </details>
      </div>
    </main>
  );
}

/** Key-based sign-in for developers: the tenant's secret key, checked with one authenticated call. */
function KeyLoginForm() {
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
    try {
      await signInWithKey(key);
    } catch {
      setError(t('login.rejected'));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit}>
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
          aria-describedby={error ? 'login-key-error' : 'login-key-help'}
          onChange={(e) => setKey(e.target.value)}
        />
        {error ? (
          <p className="issues" id="login-key-error" role="alert">
            {error}
          </p>
        ) : (
          <p className="help" id="login-key-help">
            {t('login.help')}
          </p>
        )}
      </div>
      <button type="submit" className="secondary" id="login-key-submit" disabled={busy || !key}>
        {t('login.submitKey')}
      </button>
    </form>
  );
}
