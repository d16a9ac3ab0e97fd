import { type FormEvent, useState } from 'react';
import { LabelledField } from '../components/labelled-field.tsx';
import { PasswordField } from '../components/password-field.tsx';
import { useI18n } from '../i18n/i18n-context.tsx';
import { routeHref } from '../router/routes.ts';
import { LanguageSwitch } from '../shell/language-switch.tsx';
import { loginWithPassword, looksLikeSecretKey, signInWithKey } from './session.ts';
import { useFormSubmit } from './use-form-submit.ts';

/** Sign-in: email + password for people; a tenant secret key for developers, behind a disclosure. */
export function LoginPage() {
  const { t } = useI18n();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, submit } = useFormSubmit(
    () => loginWithPassword(email, password),
    (problem) => {
      if (problem.code === 'invalid_credentials') return t('login.invalid');
      if (problem.code === 'login_throttled')
        return t('login.throttled', { seconds: problem.problem.retryAfter ?? 60 });
      return undefined;
    },
    () => setPassword(''),
  );
  return (
    <main className="login">
      <div className="card login-card stack">
        <form onSubmit={submit} aria-labelledby="login-title">
          <div className="page-header">
            <h1 id="login-title">{t('app.name')}</h1>
            <LanguageSwitch />
          </div>
          <p className="muted">{t('login.intro')}</p>
          <LabelledField id="login-email" label={t('login.email')}>
            {(control) => (
              <input
                {...control}
                type="email"
                autoComplete="username"
                required
                value={email}
                onChange={(e) => setEmail(e.target.value)}
              />
            )}
          </LabelledField>
          <PasswordField
            id="login-password"
            label={t('login.password')}
            autoComplete="current-password"
            value={password}
            onChange={setPassword}
            error={error}
            errorId="login-error"
          />
          <button type="submit" id="login-submit" disabled={busy || !email || !password}>
            {t('login.submit')}
          </button>
          <p>
            <a href={routeHref({ name: 'forgot-password' })} id="forgot-password-link">
              {t('login.forgot')}
            </a>
          </p>
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
      {/* The error replaces the help: it says what is wrong with this key. */}
      <PasswordField
        id="login-key"
        label={t('login.key')}
        autoComplete="off"
        spellCheck={false}
        placeholder="sk_…"
        required={false}
        value={key}
        onChange={setKey}
        error={error}
        help={error ? undefined : t('login.help')}
      />
      <button type="submit" className="secondary" id="login-key-submit" disabled={busy || !key}>
        {t('login.submitKey')}
      </button>
    </form>
  );
}
