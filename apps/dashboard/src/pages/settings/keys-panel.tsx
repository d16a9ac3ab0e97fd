import { ProblemError } from '@agentry/contract';
import type { ApiKeyCreated, NewApiKeyBody } from '@agentry/contract/schemas';
import { type FormEvent, Fragment, useState } from 'react';
import { keysApi, SCOPE_RESOURCES } from '../../api/settings-api.ts';
import { ConfirmButton } from '../../components/confirm-button.tsx';
import { CopyField } from '../../components/copy-field.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { IssueList } from '../../components/issue-list.tsx';
import { LabelledField } from '../../components/labelled-field.tsx';
import { ListTable } from '../../components/list-table.tsx';
import { Loaded } from '../../components/loaded.tsx';
import { useAction } from '../../components/use-action.ts';
import { useAgents } from '../../components/use-agents.ts';
import { useLoad } from '../../components/use-load.ts';
import { formatDate } from '../../i18n/format-date.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { OriginsField, originList } from './origins-field.tsx';
import { canShowKey, PublishableKeyValue, ShowKeyButton } from './publishable-key-value.tsx';

const KINDS = ['secret', 'publishable'] as const;

/**
 * Tenant API keys: create (secret keys shown once; publishable keys can be shown again from the
 * list), list by prefix with last use, revoke.
 */
export function KeysPanel() {
  const { t, lang } = useI18n();
  const keys = useLoad(() => keysApi.list());
  const [created, setCreated] = useState<ApiKeyCreated>();
  const revoke = useAction();
  const [showRevoked, setShowRevoked] = useState(false);
  const [shownKey, setShownKey] = useState<string>();
  const rows = keys.data?.filter((k) => showRevoked || !k.revoked_at);
  return (
    <div className="stack">
      <p className="muted">{t('keys.intro')}</p>
      <NewKeyForm
        onCreated={(key) => {
          setCreated(key);
          void keys.reload();
        }}
      />
      {created ? (
        <div className="card banner-ok created-key" id="created-key" role="status">
          <h3>{t('keys.createdTitle', { prefix: created.prefix })}</h3>
          <p>{t(created.kind === 'secret' ? 'keys.shownOnce' : 'keys.showAgain')}</p>
          <CopyField id="created-key-value" label={t('keys.value')} value={created.key} />
          <button type="button" className="secondary small" onClick={() => setCreated(undefined)}>
            {t('keys.stored')}
          </button>
        </div>
      ) : null}
      <div className="page-header">
        <h2>{t('keys.listTitle')}</h2>
        <label className="inline">
          <input type="checkbox" checked={showRevoked} onChange={(e) => setShowRevoked(e.target.checked)} />
          {t('keys.showRevoked')}
        </label>
      </div>
      <Loaded data={rows} error={keys.error ?? revoke.error} empty={t('keys.empty')}>
        {(shown) => (
          <ListTable
            id="keys-table"
            headers={[
              t('keys.prefix'),
              t('keys.name'),
              t('keys.kind'),
              t('keys.grants'),
              t('keys.created'),
              t('keys.lastUsed'),
            ]}
            actions
          >
            {shown.map((k) => (
              <Fragment key={k.id}>
                <tr data-key={k.prefix} className={k.revoked_at ? 'revoked' : undefined}>
                  <td>
                    <code>{k.prefix}…</code>
                  </td>
                  <td>{k.name ?? <span className="muted">—</span>}</td>
                  <td>{t(k.kind === 'secret' ? 'keys.secret' : 'keys.publishable')}</td>
                  <td>
                    <span className="grants-list">
                      {k.kind === 'secret'
                        ? k.scopes.map((s) => (
                            <span key={s} className="chip">
                              {s === '*' ? t('keys.allScopes') : s}
                            </span>
                          ))
                        : k.allowed_origins.map((o) => (
                            <span key={o} className="chip chip-context">
                              {o}
                            </span>
                          ))}
                    </span>
                  </td>
                  <td>{formatDate(lang, k.created_at)}</td>
                  <td>{formatDate(lang, k.last_used_at, t('keys.never'))}</td>
                  <td>
                    {k.revoked_at ? (
                      <span className="badge badge-error">{t('keys.revoked')}</span>
                    ) : (
                      <span className="inline">
                        {canShowKey(k) ? (
                          <ShowKeyButton
                            id={`show-${k.prefix}`}
                            shown={shownKey === k.id}
                            onToggle={() => setShownKey(shownKey === k.id ? undefined : k.id)}
                          />
                        ) : null}
                        <ConfirmButton
                          id={`revoke-${k.prefix}`}
                          label={t('keys.revoke')}
                          question={t('keys.revokeQuestion', { prefix: k.prefix })}
                          confirmLabel={t('keys.revokeConfirm')}
                          onConfirm={() =>
                            revoke.run(async () => {
                              await keysApi.revoke(k.id);
                              await keys.reload();
                            })
                          }
                        />
                      </span>
                    )}
                  </td>
                </tr>
                {shownKey === k.id && canShowKey(k) ? (
                  <tr className="key-value-row">
                    <td colSpan={7}>
                      <PublishableKeyValue apiKey={k} id={`key-value-${k.prefix}`} />
                    </td>
                  </tr>
                ) : null}
              </Fragment>
            ))}
          </ListTable>
        )}
      </Loaded>
    </div>
  );
}

const toggle = (list: string[], value: string, on: boolean) =>
  on ? [...list, value] : list.filter((v) => v !== value);

function NewKeyForm({ onCreated }: { onCreated: (key: ApiKeyCreated) => void }) {
  const { t } = useI18n();
  const [kind, setKind] = useState<'secret' | 'publishable'>('secret');
  const [name, setName] = useState('');
  const [all, setAll] = useState(true);
  const [scopes, setScopes] = useState<string[]>([]);
  const agents = useAgents();
  const [picked, setPicked] = useState<string[]>([]);
  const [origins, setOrigins] = useState('');
  const create = useAction();
  const origin = originList(origins);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body: NewApiKeyBody =
      kind === 'secret'
        ? { kind, ...(name.trim() ? { name: name.trim() } : {}), scopes: all ? ['*'] : scopes }
        : { kind, ...(name.trim() ? { name: name.trim() } : {}), agents: picked, allowed_origins: origin };
    void create.run(async () => {
      onCreated(await keysApi.create(body));
      setName('');
      setOrigins('');
    });
  };
  const issues = create.error instanceof ProblemError ? (create.error.problem.errors ?? []) : [];
  const issuesAt = (prefix: string) => issues.filter((i) => i.path === prefix || i.path.startsWith(`${prefix}/`));
  const canSubmit = kind === 'secret' ? all || scopes.length > 0 : picked.length > 0 && origin.length > 0;
  return (
    <form className="card" onSubmit={submit} aria-labelledby="new-key-title" id="new-key-form">
      <h2 id="new-key-title">{t('keys.newTitle')}</h2>
      <fieldset>
        <legend>{t('keys.kind')}</legend>
        <div className="inline wrap">
          {KINDS.map((k) => (
            <label key={k} className="inline">
              <input
                type="radio"
                name="key-kind"
                id={`key-kind-${k}`}
                checked={kind === k}
                onChange={() => setKind(k)}
              />
              {t(`keys.${k}`)} <span className="muted">— {t(`keys.${k}Help`)}</span>
            </label>
          ))}
        </div>
      </fieldset>
      <LabelledField id="key-name" label={t('keys.name')}>
        {(control) => <input {...control} value={name} maxLength={200} onChange={(e) => setName(e.target.value)} />}
      </LabelledField>
      {kind === 'secret' ? (
        <fieldset>
          <legend>{t('keys.scopes')}</legend>
          <label className="inline">
            <input type="checkbox" id="key-all-scopes" checked={all} onChange={(e) => setAll(e.target.checked)} />
            {t('keys.allScopes')}
          </label>
          {!all ? (
            <ListTable className="scopes-table" headers={[t('keys.resource'), t('keys.read'), t('keys.write')]}>
              {SCOPE_RESOURCES.map((r) => (
                <tr key={r}>
                  <th scope="row">{r}</th>
                  {(['read', 'write'] as const).map((access) => {
                    const scope = `${r}:${access}`;
                    return (
                      <td key={access}>
                        <input
                          type="checkbox"
                          id={`scope-${r}-${access}`}
                          aria-label={scope}
                          checked={scopes.includes(scope)}
                          onChange={(e) => setScopes(toggle(scopes, scope, e.target.checked))}
                        />
                      </td>
                    );
                  })}
                </tr>
              ))}
            </ListTable>
          ) : null}
          <IssueList issues={issuesAt('/scopes')} id="key-scopes-issues" />
        </fieldset>
      ) : (
        <>
          <fieldset>
            <legend>{t('keys.agents')}</legend>
            {agents.length === 0 ? <p className="muted">{t('keys.noAgents')}</p> : null}
            <div className="checkbox-list">
              {agents.map((a) => (
                <label key={a.id} className="inline">
                  <input
                    type="checkbox"
                    id={`key-agent-${a.id}`}
                    checked={picked.includes(a.id)}
                    onChange={(e) => setPicked(toggle(picked, a.id, e.target.checked))}
                  />
                  {a.name}
                </label>
              ))}
            </div>
            <IssueList issues={issuesAt('/agents')} id="key-agents-issues" />
          </fieldset>
          <OriginsField
            id="key-origins"
            label={t('keys.origins')}
            help={t('keys.originsHelp')}
            value={origins}
            onChange={setOrigins}
            placeholder="https://www.example.com"
            invalid={issuesAt('/allowed_origins').length > 0}
            issues={<IssueList issues={issuesAt('/allowed_origins')} id="key-origins-issues" />}
          />
        </>
      )}
      {issues.length === 0 ? <ErrorBanner error={create.error} /> : null}
      <button type="submit" id="create-key" disabled={create.busy || !canSubmit}>
        {t('keys.create')}
      </button>
    </form>
  );
}
