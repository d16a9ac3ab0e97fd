import { useEffect } from 'react';
import type { AuthState } from '../auth/session-store.ts';
import { useI18n } from '../i18n/i18n-context.tsx';
import { rowsOfTab } from '../pages/inbox/inbox-state.ts';
import { onInboxEvent, startInbox, stopInbox, useInbox } from '../pages/inbox/inbox-store.ts';
import { alertWaiting } from '../pages/inbox/notify.ts';

/**
 * Keeps the tenant's inbox stream open while someone is signed in (one per tab, shared by the nav
 * badge and the inbox page), and alerts on a new waiting conversation when the member opted in.
 */
export function useInboxFeed(auth: AuthState): void {
  const { t } = useI18n();
  const tenant = auth.status === 'user' ? (auth.tenant?.tenant_id ?? '') : auth.status === 'key' ? 'key' : '';
  useEffect(() => {
    if (!tenant) return;
    startInbox();
    const off = onInboxEvent((event) => {
      if (event.type === 'mode' && event.to === 'pending_human') {
        const handoff = (event.handoff ?? {}) as { reason?: string; summary?: string };
        alertWaiting(t('inbox.alertTitle'), handoff.reason || handoff.summary || '');
      }
    });
    return () => {
      off();
      stopInbox();
    };
  }, [tenant, t]);
}

/** The nav's count of conversations waiting for a person. */
export function InboxNavBadge() {
  const { t } = useI18n();
  const inbox = useInbox();
  const waiting = rowsOfTab(inbox.rows, 'waiting', undefined).length;
  if (waiting === 0) return null;
  return (
    <span className="badge badge-waiting" id="inbox-count" title={t('inbox.waitingCount', { count: waiting })}>
      {waiting}
    </span>
  );
}
