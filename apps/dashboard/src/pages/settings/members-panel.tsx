import type { Role } from '@agentry/contract';
import type { InvitationCreated } from '@agentry/contract/schemas';
import { type FormEvent, useState } from 'react';
import { membersApi, ROLES } from '../../api/settings-api.ts';
import { currentRole, useAuth } from '../../auth/session.ts';
import { ConfirmButton } from '../../components/confirm-button.tsx';
import { CopyField } from '../../components/copy-field.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { LabelledField } from '../../components/labelled-field.tsx';
import { ListTable } from '../../components/list-table.tsx';
import { Loaded } from '../../components/loaded.tsx';
import { useAction } from '../../components/use-action.ts';
import { useLoad } from '../../components/use-load.ts';
import { formatDate } from '../../i18n/format-date.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';

/**
 * Members and roles; owners invite (the link is mailed to the invitee; on a server without mail
 * whose operator allows it, shown once here), change roles and remove.
 */
export function MembersPanel() {
  const { t, lang } = useI18n();
  const auth = useAuth();
  const role = currentRole(auth);
  // Key sign-ins have no role: the API decides, and says so if the key may not.
  const owner = role === undefined || role === 'owner';
  const me = auth.status === 'user' ? auth.session.user.id : undefined;
  const members = useLoad(() => membersApi.list());
  const invitations = useLoad(() => membersApi.invitations());
  const [invited, setInvited] = useState<InvitationCreated>();
  const action = useAction();
  const act = async (fn: () => Promise<unknown>) => {
    await action.run(fn);
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
      {invited?.delivery === 'email' ? (
        <div className="card banner-ok" id="invitation-sent" role="status">
          <p>{t('members.invitationSent', { email: invited.email })}</p>
          <button type="button" className="secondary small" onClick={() => setInvited(undefined)}>
            {t('common.close')}
          </button>
        </div>
      ) : null}
      {invited?.accept_url ? (
        <div className="card banner-ok" id="invitation-link" role="status">
          <h3>{t('members.invitedTitle', { email: invited.email })}</h3>
          <p>{t('members.linkOnce')}</p>
          <p className="muted">{t('members.linkUnverified')}</p>
          <CopyField id="invitation-url" label={t('members.acceptLink')} value={invited.accept_url} />
          <button type="button" className="secondary small" onClick={() => setInvited(undefined)}>
            {t('common.close')}
          </button>
        </div>
      ) : null}
      <h2>{t('members.listTitle')}</h2>
      <Loaded data={members.data} error={action.error ?? members.error}>
        {(rows) => (
          <ListTable
            id="members-table"
            headers={[t('members.email'), t('members.name'), t('members.role'), t('members.since')]}
            actions
          >
            {rows.map((m) => (
              <tr key={m.user_id} data-member={m.email}>
                <td>
                  {m.email} {m.user_id === me ? <span className="badge">{t('members.you')}</span> : null}
                  {m.email_verified ? null : <span className="badge">{t('members.unverified')}</span>}
                </td>
                <td>{m.name ?? <span className="muted">—</span>}</td>
                <td>
                  {owner ? (
                    <RoleSelect
                      id={`role-${m.user_id}`}
                      aria-label={t('members.roleOf', { email: m.email })}
                      value={m.role}
                      onChange={(next) => act(() => membersApi.setRole(m.user_id, next))}
                    />
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
          </ListTable>
        )}
      </Loaded>
      <h2>{t('members.pendingTitle')}</h2>
      <Loaded data={invitations.data} error={invitations.error} empty={t('members.noPending')}>
        {(rows) => (
          <ListTable
            id="invitations-table"
            headers={[t('members.email'), t('members.role'), t('members.expires')]}
            actions
          >
            {rows.map((inv) => (
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
          </ListTable>
        )}
      </Loaded>
    </div>
  );
}

function RoleSelect({
  value,
  onChange,
  ...control
}: {
  id: string;
  'aria-label'?: string;
  value: Role;
  onChange: (role: Role) => void;
}) {
  const { t } = useI18n();
  return (
    <select {...control} value={value} onChange={(e) => onChange(e.target.value as Role)}>
      {ROLES.map((r) => (
        <option key={r} value={r}>
          {t(`role.${r}`)}
        </option>
      ))}
    </select>
  );
}

function InviteForm({ onInvited }: { onInvited: (invitation: InvitationCreated) => void }) {
  const { t } = useI18n();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('editor');
  const invite = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void invite.run(async () => {
      onInvited(await membersApi.invite(email, role));
      setEmail('');
    });
  };
  return (
    <form className="card" onSubmit={submit} aria-labelledby="invite-title" id="invite-form">
      <h2 id="invite-title">{t('members.inviteTitle')}</h2>
      <div className="inline wrap invite-row">
        <LabelledField id="invite-email" label={t('members.email')} className="grow">
          {(control) => (
            <input {...control} type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
          )}
        </LabelledField>
        <LabelledField id="invite-role" label={t('members.role')}>
          {(control) => <RoleSelect {...control} value={role} onChange={setRole} />}
        </LabelledField>
        <button type="submit" id="invite-submit" disabled={invite.busy || !email}>
          {t('members.invite')}
        </button>
      </div>
      <p className="help">{t('members.rolesHelp')}</p>
      <ErrorBanner error={invite.error} />
    </form>
  );
}
