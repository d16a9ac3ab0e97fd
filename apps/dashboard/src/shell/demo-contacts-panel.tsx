import type { DemoContact } from '@agentry/contract/schemas';
import { useEffect, useState } from 'react';
import { demoApi } from '../api/demo-api.ts';
import { useAuth } from '../auth/session.ts';
import { useI18n } from '../i18n/i18n-context.tsx';

/**
 * The embedded mode's demo endpoint, seen from the dashboard: the contacts the seeded agent's tool
 * saved, so a first chat's tool call shows up here. Nothing on servers without the endpoint.
 */
export function DemoContactsPanel() {
  const { t } = useI18n();
  const auth = useAuth();
  const [contacts, setContacts] = useState<DemoContact[]>([]);
  const tenant = auth.status === 'user' ? auth.tenant?.tenant_id : auth.status === 'key' ? 'key' : undefined;
  useEffect(() => {
    if (!tenant) return;
    let live = true;
    const load = () =>
      demoApi.contacts().then(
        (list) => live && setContacts(list),
        () => live && setContacts([]),
      );
    void load();
    // Refreshed on focus, not on a timer: coming back from a chat shows what its tool saved.
    window.addEventListener('focus', load);
    return () => {
      live = false;
      window.removeEventListener('focus', load);
    };
  }, [tenant]);
  if (contacts.length === 0) return null;
  return (
    <details id="demo-contacts" className="banner">
      <summary>{t('demoContacts.summary', { count: String(contacts.length) })}</summary>
      <ul>
        {contacts.map((c) => (
          <li key={`${c.email}-${c.saved_at}`}>
            {c.name ? `${c.name} · ` : ''}
            {c.email} · <time dateTime={c.saved_at}>{new Date(c.saved_at).toLocaleString()}</time>
          </li>
        ))}
      </ul>
    </details>
  );
}
