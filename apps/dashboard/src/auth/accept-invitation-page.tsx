import { type FormEvent, useState } from 'react';
import { ApiError } from '../api/problem.ts';
import { LabelledField } from '../components/labelled-field.tsx';
import { PasswordField } from '../components/password-field.tsx';
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
        <LabelledField id="accept-name" label={t('invite.name')}>
          {(control) => (
            <input {...control} autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} />
          )}
        </LabelledField>
        <PasswordField
          id="accept-password"
          label={t('invite.password')}
          autoComplete="new-password"
          value={password}
          onChange={setPassword}
          invalid={tooShort}
          help={t('invite.passwordHelp', { n: MIN_PASSWORD })}
          error={error}
          errorId="accept-error"
        />
        <button type="submit" id="accept-submit" disabled={busy || !token || !password}>
          {t('invite.accept')}
        </button>
      </form>
    </main>
  );
}
