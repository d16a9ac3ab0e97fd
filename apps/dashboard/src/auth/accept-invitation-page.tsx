import { useState } from 'react';
import { LabelledField } from '../components/labelled-field.tsx';
import { PasswordField } from '../components/password-field.tsx';
import { useI18n } from '../i18n/i18n-context.tsx';
import { navigate } from '../router/use-route.ts';
import { LanguageSwitch } from '../shell/language-switch.tsx';
import { acceptInvitation } from './session.ts';
import { useFormSubmit } from './use-form-submit.ts';

const MIN_PASSWORD = 10;

/**
 * `#/accept-invitation?token=…`: a new user picks a name and a password; someone who already has
 * an account gives their current password. Either way they are signed in to the inviting tenant.
 */
export function AcceptInvitationPage({ token }: { token: string }) {
  const { t } = useI18n();
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const tooShort = password.length > 0 && password.length < MIN_PASSWORD;
  const { busy, error, submit } = useFormSubmit(
    async () => {
      await acceptInvitation(token, password, name);
      navigate({ name: 'agents' }, true);
    },
    (problem) => {
      if (problem.code === 'invitation_not_found') return t('invite.notFound');
      if (problem.code === 'invitation_expired') return t('invite.expired');
      if (problem.code === 'invalid_credentials') return t('invite.wrongPassword');
      return undefined;
    },
  );
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
