import { type FormEvent, useState } from 'react';
import { type Invitation, membersApi, ROLES } from '../../api/settings-api.ts';
import { currentRole, type Role, useAuth } from '../../auth/session.ts';
import { ConfirmButton } from '../../components/confirm-button.tsx';
import { CopyField } from '../../components/copy-field.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { useLoad } from '../../components/use-load.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { formatDate } from './format.ts';

/** Members and roles; owners invite (the accept link is shown once), change roles and remove. */
export function MembersPanel() {
  const { t, lang } = useI18n();
  const auth = useAuth();
  const role = currentRole(auth);
  // Key sign-ins have no role: the API decides, and says so if the key may not.
  const owner = role === undefined || role === 'owner';
  const me = auth.status === 'user' ? auth.session.user.id : undefined;
  const members = useLoad(() => membersApi.list());
  const invitations = useLoad(() => membersApi.invitations());
  const [invited, setInvited] = useState<Invitation>();
  const [error, setError] = useState<unknown>();
  const act = async (fn: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await fn();
    } catch (e) {
      setError(e);
    }
    await Promise.all([members.reload(), invitations.reload()]);
  };
  return (
    <div className="stack">
      <p className="muted">{t('members.intro')}</p>
      {owner ? (
        <InviteForm
          onInvited={(inv) => {
            setInvited(inv);
            void invitations.reload();
          }}
        />
      ) : null}
      {invited?.accept_url ? (
        <div className="card banner-ok" id="invitation-link" role="status">
          <h3>{t('members.invitedTitle', { email: invited.email })}</h3>
          <p>{t('members.linkOnce')}</p>
          <CopyField id="invitation-url" label={t('members.acceptLink')} value={invited.accept_url} />
          <button type="button" className="secondary small" onClick={() => setInvited(undefined)}>
            {t('common.close')}
          </button>
        </div>
      ) : null}
      <ErrorBanner error={error ?? members.error} />
      <h2>{t('members.listTitle')}</h2>
      {members.data === undefined && !members.error ? <p role="status">{t('common.loading')}</p> : null}
      {members.data && members.data.length > 0 ? (
        <table className="list" id="members-table">
          <thead>
            <tr>
              <th scope="col">{t('members.email')}</th>
              <th scope="col">{t('members.name')}</th>
              <th scope="col">{t('members.role')}</th>
              <th scope="col">{t('members.since')}</th>
              <th scope="col">
                <span className="sr-only">{t('common.actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {members.data.map((m) => (
              <tr key={m.user_id} data-member={m.email}>
                <td>
                  {m.email} {m.user_id === me ? <span className="badge">{t('members.you')}</span> : null}
                </td>
                <td>{m.name ?? <span className="muted">—</span>}</td>
                <td>
                  {owner ? (
                    <select
                      id={`role-${m.user_id}`}
                      aria-label={t('members.roleOf', { email: m.email })}
                      value={m.role}
                      onChange={(e) => act(() => membersApi.setRole(m.user_id, e.target.value as Role))}
                    >
                      {ROLES.map((r) => (
                        <option key={r} value={r}>
                          {t(`role.${r}`)}
                        </option>
                      ))}
                    </select>
                  ) : (
                    t(`role.${m.role}`)
                  )}
                </td>
                <td>{formatDate(lang, m.created_at)}</td>
                <td>
                  {owner || m.user_id === me ? (
                    <ConfirmButton
                      id={`remove-${m.user_id}`}
                      label={m.user_id === me ? t('members.leave') : t('common.remove')}
                      question={t('members.removeQuestion', { email: m.email })}
                      confirmLabel={t('common.remove')}
                      onConfirm={() => act(() => membersApi.remove(m.user_id))}
                    />
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <h2>{t('members.pendingTitle')}</h2>
      <ErrorBanner error={invitations.error} />
      {invitations.data?.length === 0 ? <p className="empty">{t('members.noPending')}</p> : null}
      {invitations.data && invitations.data.length > 0 ? (
        <table className="list" id="invitations-table">
          <thead>
            <tr>
              <th scope="col">{t('members.email')}</th>
              <th scope="col">{t('members.role')}</th>
              <th scope="col">{t('members.expires')}</th>
              <th scope="col">
                <span className="sr-only">{t('common.actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {invitations.data.map((inv) => (
              <tr key={inv.id} data-invitation={inv.email}>
                <td>{inv.email}</td>
                <td>{t(`role.${inv.role}`)}</td>
                <td>{formatDate(lang, inv.expires_at)}</td>
                <td>
                  {owner ? (
                    <ConfirmButton
                      id={`revoke-invitation-${inv.id}`}
                      label={t('keys.revoke')}
                      question={t('members.revokeQuestion', { email: inv.email })}
                      confirmLabel={t('keys.revoke')}
                      onConfirm={() => act(() => membersApi.revokeInvitation(inv.id))}
                    />
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}

function InviteForm({ onInvited }: { onInvited: (invitation: Invitation) => void }) {
  const { t } = useI18n();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('editor');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      onInvited(await membersApi.invite(email, role));
      setEmail('');
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="card" onSubmit={submit} aria-labelledby="invite-title" id="invite-form">
      <h2 id="invite-title">{t('members.inviteTitle')}</h2>
      <div className="inline wrap invite-row">
        <div className="field grow">
          <label htmlFor="invite-email">{t('members.email')}</label>
          <input id="invite-email" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="invite-role">{t('members.role')}</label>
          <select id="invite-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {t(`role.${r}`)}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" id="invite-submit" disabled={busy || !email}>
          {t('members.invite')}
        </button>
      </div>
      <p className="help">{t('members.rolesHelp')}</p>
      <ErrorBanner error={error} />
    </form>
  );
}
