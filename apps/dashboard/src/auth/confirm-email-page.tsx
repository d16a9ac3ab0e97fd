import { useEffect, useState } from 'react';
import { useI18n } from '../i18n/i18n-context.tsx';
import { routeHref } from '../router/routes.ts';
import { LanguageSwitch } from '../shell/language-switch.tsx';
import { confirmEmail } from './session.ts';

/** One request per token, even when React runs the effect twice (a token works once). */
const confirmations = new Map<string, Promise<void>>();

/** `#/confirm-email?token=…`: the mailed link confirms the address as soon as it is opened. */
export function ConfirmEmailPage({ token }: { token: string }) {
  const { t } = useI18n();
  const [state, setState] = useState<'working' | 'done' | 'failed'>('working');
  useEffect(() => {
    let pending = confirmations.get(token);
    if (!pending) {
      pending = confirmEmail(token);
      confirmations.set(token, pending);
    }
    pending.then(
      () => setState('done'),
      () => setState('failed'),
    );
  }, [token]);
  return (
    <main className="login">
      <div className="card login-card">
        <div className="page-header">
          <h1>{t('confirm.title')}</h1>
          <LanguageSwitch />
        </div>
        <p
          id="confirm-status"
          role="status"
          className={state === 'failed' ? 'banner banner-error' : state === 'done' ? 'banner banner-ok' : ''}
        >
          {state === 'working' ? t('confirm.working') : state === 'done' ? t('confirm.done') : t('confirm.invalid')}
        </p>
        <p>
          <a href={routeHref({ name: 'agents' })}>{t('confirm.continue')}</a>
        </p>
      </div>
    </main>
  );
}
