import { useState } from 'react';
import { LabelledField } from '../components/labelled-field.tsx';
import { PasswordField } from '../components/password-field.tsx';
import { useI18n } from '../i18n/i18n-context.tsx';
import { routeHref } from '../router/routes.ts';
import { navigate } from '../router/use-route.ts';
import { LanguageSwitch } from '../shell/language-switch.tsx';
import { requestPasswordReset, resetPassword } from './session.ts';
import { useFormSubmit } from './use-form-submit.ts';

const MIN_PASSWORD = 10;

/**
 * `#/forgot-password`: asks for a reset link by mail. The API answers the same for every email,
 * so the page always says the same thing too.
 */
export function ForgotPasswordPage() {
  const { t } = useI18n();
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const { busy, error, submit } = useFormSubmit(
    async () => {
      await requestPasswordReset(email);
      setSent(true);
    },
    (problem) => {
      if (problem.code === 'password_reset_throttled')
        return t('reset.throttled', { seconds: problem.problem.retryAfter ?? 60 });
      if (problem.code === 'mail_not_configured') return t('reset.notConfigured');
      return undefined;
    },
  );
  return (
    <main className="login">
      <form className="card login-card" onSubmit={submit} aria-labelledby="forgot-title">
        <div className="page-header">
          <h1 id="forgot-title">{t('reset.requestTitle')}</h1>
          <LanguageSwitch />
        </div>
        {sent ? (
          <p className="banner banner-ok" role="status" id="forgot-sent">
            {t('reset.sent')}
          </p>
        ) : (
          <>
            <p className="muted">{t('reset.requestIntro')}</p>
            <LabelledField id="forgot-email" label={t('reset.email')} error={error}>
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
            <button type="submit" id="forgot-submit" disabled={busy || !email}>
              {t('reset.send')}
            </button>
          </>
        )}
        <p>
          <a href={routeHref({ name: 'agents' })}>{t('reset.back')}</a>
        </p>
      </form>
    </main>
  );
}

/** `#/reset-password?token=…`: the mailed link; a new password ends every other session and signs in. */
export function ResetPasswordPage({ token }: { token: string }) {
  const { t } = useI18n();
  const [password, setPassword] = useState('');
  const tooShort = password.length > 0 && password.length < MIN_PASSWORD;
  const { busy, error, submit } = useFormSubmit(
    async () => {
      await resetPassword(token, password);
      navigate({ name: 'agents' }, true);
    },
    (problem) => {
      if (problem.code === 'password_reset_not_found') return t('reset.invalid');
      if (problem.code === 'password_reset_expired') return t('reset.expired');
      return undefined;
    },
  );
  return (
    <main className="login">
      <form className="card login-card" onSubmit={submit} aria-labelledby="reset-title">
        <div className="page-header">
          <h1 id="reset-title">{t('reset.newTitle')}</h1>
          <LanguageSwitch />
        </div>
        <p className="muted">{t('reset.newIntro')}</p>
        <PasswordField
          id="reset-password"
          label={t('reset.newPassword')}
          autoComplete="new-password"
          value={password}
          onChange={setPassword}
          invalid={tooShort}
          help={t('invite.passwordHelp', { n: MIN_PASSWORD })}
          error={error}
          errorId="reset-error"
        />
        <button type="submit" id="reset-submit" disabled={busy || !token || password.length < MIN_PASSWORD}>
          {t('reset.save')}
        </button>
        <p>
          <a href={routeHref({ name: 'forgot-password' })}>{t('reset.requestTitle')}</a>
        </p>
      </form>
    </main>
  );
}
