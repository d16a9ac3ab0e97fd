import { type FormEvent, useState } from 'react';
import { ApiError } from '../api/problem.ts';
import { useI18n } from '../i18n/i18n-context.tsx';
import { navigate } from '../router/use-route.ts';
import { LanguageSwitch } from '../shell/language-switch.tsx';
import { acceptInvitation } from './session.ts';

const MIN_PASSWORD = 10;

/**
 * `#/accept-invitation?token=…`: a new user picks a name and a password; someone who already has
 * an account gives their current password. Either way they are signed in to the inviting tenant.
 */
export function AcceptInvitationPage({ token }: { token: string }) {
  const { t } = useI18n();
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const tooShort = password.length > 0 && password.length < MIN_PASSWORD;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError('');
    try {
      await acceptInvitation(token, password, name);
      navigate({ name: 'agents' }, true);
    } catch (e) {
      const code = e instanceof ApiError ? e.code : '';
      if (code === 'invitation_not_found') setError(t('invite.notFound'));
      else if (code === 'invitation_expired') setError(t('invite.expired'));
      else if (code === 'invalid_credentials') setError(t('invite.wrongPassword'));
      else setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="login">
      <form className="card login-card" onSubmit={submit} aria-labelledby="accept-title">
        <div className="page-header">
          <h1 id="accept-title">{t('invite.acceptTitle')}</h1>
          <LanguageSwitch />
        </div>
        {!token ? (
          <p className="banner banner-error" role="alert">
            {t('invite.noToken')}
          </p>
        ) : null}
        <p className="muted">{t('invite.acceptIntro')}</p>
        <div className="field">
          <label htmlFor="accept-name">{t('invite.name')}</label>
          <input id="accept-name" autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} />
        </div>
        <div className={`field${tooShort || error ? ' field-invalid' : ''}`}>
          <label htmlFor="accept-password">{t('invite.password')}</label>
          <input
            id="accept-password"
            type="password"
            autoComplete="new-password"
            required
            value={password}
            aria-invalid={tooShort || Boolean(error)}
            aria-describedby="accept-password-help"
            onChange={(e) => setPassword(e.target.value)}
          />
          <p className="help" id="accept-password-help">
            {t('invite.passwordHelp', { n: MIN_PASSWORD })}
          </p>
          {error ? (
            <p className="issues" role="alert" id="accept-error">
              {error}
            </p>
          ) : null}
        </div>
        <button type="submit" id="accept-submit" disabled={busy || !token || !password}>
          {t('invite.accept')}
        </button>
      </form>
    </main>
  );
}
