import { useState } from 'react';
import { requestEmailConfirmation, useAuth } from '../auth/session.ts';
import { useI18n } from '../i18n/i18n-context.tsx';

/**
 * Asks a signed-in person whose address is unverified (an account made through a shown invitation
 * link, or one older than mailed invitations) to confirm it, and mails the link on request; on a
 * server that sends no mail (the embedded demo) it stays silent, since no link could arrive.
 */
export function VerifyEmailNotice() {
  const { t } = useI18n();
  const auth = useAuth();
  const [state, setState] = useState<'idle' | 'sending' | 'sent' | 'failed'>('idle');
  const [error, setError] = useState('');
  if (auth.status !== 'user' || auth.session.user.email_verified || !auth.session.mail_enabled) return null;
  const send = async () => {
    setState('sending');
    try {
      await requestEmailConfirmation();
      setState('sent');
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
      setState('failed');
    }
  };
  return (
    <p id="verify-email" role="status" className={state === 'failed' ? 'banner banner-error' : 'banner'}>
      {state === 'sent'
        ? t('verify.sent', { email: auth.session.user.email })
        : state === 'failed'
          ? t('verify.failed', { error })
          : t('verify.notice', { email: auth.session.user.email })}{' '}
      {state === 'idle' || state === 'failed' ? (
        <button type="button" className="secondary small" id="verify-email-send" onClick={() => void send()}>
          {t('verify.send')}
        </button>
      ) : null}
    </p>
  );
}
