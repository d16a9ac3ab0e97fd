import { selectTenant, useAuth } from '../auth/session.ts';
import { useI18n } from '../i18n/i18n-context.tsx';
import { navigate } from '../router/use-route.ts';

/** The tenant the dashboard works on: a picker when the user belongs to several, else its name. */
export function TenantSwitch() {
  const { t } = useI18n();
  const auth = useAuth();
  if (auth.status !== 'user' || !auth.tenant) return null;
  const { memberships } = auth.session;
  const role = t(`role.${auth.tenant.role}`);
  if (memberships.length < 2)
    return (
      <span className="tenant-name" id="tenant-name">
        {auth.tenant.tenant_name} <span className="badge">{role}</span>
      </span>
    );
  return (
    <label className="tenant-switch inline">
      <span className="sr-only">{t('nav.tenant')}</span>
      <select
        id="tenant"
        value={auth.tenant.tenant_id}
        onChange={(e) => {
          selectTenant(e.target.value);
          // Ids in the URL belong to the previous tenant.
          navigate({ name: 'agents' });
        }}
      >
        {memberships.map((m) => (
          <option key={m.tenant_id} value={m.tenant_id}>
            {m.tenant_name} ({t(`role.${m.role}`)})
          </option>
        ))}
      </select>
    </label>
  );
}
