import { type FormEvent, useEffect, useState } from 'react';
import { agentsApi } from '../../api/agents-api.ts';
import { ApiError } from '../../api/problem.ts';
import { type ApiKey, keysApi, type NewApiKey, SCOPE_RESOURCES } from '../../api/settings-api.ts';
import type { Agent } from '../../api/types.ts';
import { ConfirmButton } from '../../components/confirm-button.tsx';
import { CopyField } from '../../components/copy-field.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { IssueList } from '../../components/issue-list.tsx';
import { useLoad } from '../../components/use-load.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { formatDate } from './format.ts';

/** Tenant API keys: create (shown once), list by prefix with last use, revoke. */
export function KeysPanel() {
  const { t, lang } = useI18n();
  const keys = useLoad(() => keysApi.list());
  const [created, setCreated] = useState<ApiKey & { key: string }>();
  const [error, setError] = useState<unknown>();
  const [showRevoked, setShowRevoked] = useState(false);
  const rows = (keys.data ?? []).filter((k) => showRevoked || !k.revoked_at);
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
          <p>{t('keys.shownOnce')}</p>
          <CopyField id="created-key-value" label={t('keys.value')} value={created.key} />
          <button type="button" className="secondary small" onClick={() => setCreated(undefined)}>
            {t('keys.stored')}
          </button>
        </div>
      ) : null}
      <ErrorBanner error={keys.error ?? error} />
      <div className="page-header">
        <h2>{t('keys.listTitle')}</h2>
        <label className="inline">
          <input type="checkbox" checked={showRevoked} onChange={(e) => setShowRevoked(e.target.checked)} />
          {t('keys.showRevoked')}
        </label>
      </div>
      {keys.data === undefined && !keys.error ? <p role="status">{t('common.loading')}</p> : null}
      {keys.data && rows.length === 0 ? <p className="empty">{t('keys.empty')}</p> : null}
      {rows.length > 0 ? (
        <table className="list" id="keys-table">
          <thead>
            <tr>
              <th scope="col">{t('keys.prefix')}</th>
              <th scope="col">{t('keys.name')}</th>
              <th scope="col">{t('keys.kind')}</th>
              <th scope="col">{t('keys.grants')}</th>
              <th scope="col">{t('keys.created')}</th>
              <th scope="col">{t('keys.lastUsed')}</th>
              <th scope="col">
                <span className="sr-only">{t('common.actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((k) => (
              <tr key={k.id} data-key={k.prefix} className={k.revoked_at ? 'revoked' : undefined}>
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
                    <ConfirmButton
                      id={`revoke-${k.prefix}`}
                      label={t('keys.revoke')}
                      question={t('keys.revokeQuestion', { prefix: k.prefix })}
                      confirmLabel={t('keys.revokeConfirm')}
                      onConfirm={async () => {
                        setError(undefined);
                        try {
                          await keysApi.revoke(k.id);
                          await keys.reload();
                        } catch (e) {
                          setError(e);
                        }
                      }}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}

function NewKeyForm({ onCreated }: { onCreated: (key: ApiKey & { key: string }) => void }) {
  const { t } = useI18n();
  const [kind, setKind] = useState<'secret' | 'publishable'>('secret');
  const [name, setName] = useState('');
  const [all, setAll] = useState(true);
  const [scopes, setScopes] = useState<string[]>([]);
  const [agents, setAgents] = useState<Agent[]>([]);
  const [picked, setPicked] = useState<string[]>([]);
  const [origins, setOrigins] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    agentsApi
      .list()
      .then(setAgents)
      .catch(() => {});
  }, []);
  const toggle = (list: string[], value: string, on: boolean) =>
    on ? [...list, value] : list.filter((v) => v !== value);
  const originList = origins
    .split(/[\s,]+/)
    .map((o) => o.trim())
    .filter(Boolean);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    const body: NewApiKey =
      kind === 'secret'
        ? { kind, ...(name.trim() ? { name: name.trim() } : {}), scopes: all ? ['*'] : scopes }
        : { kind, ...(name.trim() ? { name: name.trim() } : {}), agents: picked, allowed_origins: originList };
    try {
      onCreated(await keysApi.create(body));
      setName('');
      setOrigins('');
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const issues = error instanceof ApiError ? (error.problem.errors ?? []) : [];
  const issuesAt = (prefix: string) => issues.filter((i) => i.path === prefix || i.path.startsWith(`${prefix}/`));
  const canSubmit = kind === 'secret' ? all || scopes.length > 0 : picked.length > 0 && originList.length > 0;
  return (
    <form className="card" onSubmit={submit} aria-labelledby="new-key-title" id="new-key-form">
      <h2 id="new-key-title">{t('keys.newTitle')}</h2>
      <fieldset>
        <legend>{t('keys.kind')}</legend>
        <div className="inline wrap">
          <label className="inline">
            <input
              type="radio"
              name="key-kind"
              id="key-kind-secret"
              checked={kind === 'secret'}
              onChange={() => setKind('secret')}
            />
            {t('keys.secret')} <span className="muted">— {t('keys.secretHelp')}</span>
          </label>
          <label className="inline">
            <input
              type="radio"
              name="key-kind"
              id="key-kind-publishable"
              checked={kind === 'publishable'}
              onChange={() => setKind('publishable')}
            />
            {t('keys.publishable')} <span className="muted">— {t('keys.publishableHelp')}</span>
          </label>
        </div>
      </fieldset>
      <div className="field">
        <label htmlFor="key-name">{t('keys.name')}</label>
        <input id="key-name" value={name} maxLength={200} onChange={(e) => setName(e.target.value)} />
      </div>
      {kind === 'secret' ? (
        <fieldset>
          <legend>{t('keys.scopes')}</legend>
          <label className="inline">
            <input type="checkbox" id="key-all-scopes" checked={all} onChange={(e) => setAll(e.target.checked)} />
            {t('keys.allScopes')}
          </label>
          {!all ? (
            <table className="list scopes-table">
              <thead>
                <tr>
                  <th scope="col">{t('keys.resource')}</th>
                  <th scope="col">{t('keys.read')}</th>
                  <th scope="col">{t('keys.write')}</th>
                </tr>
              </thead>
              <tbody>
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
              </tbody>
            </table>
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
          <div className="field">
            <label htmlFor="key-origins">{t('keys.origins')}</label>
            <textarea
              id="key-origins"
              rows={2}
              value={origins}
              spellCheck={false}
              placeholder="https://www.example.com"
              aria-describedby="key-origins-help"
              aria-invalid={issuesAt('/allowed_origins').length > 0}
              onChange={(e) => setOrigins(e.target.value)}
            />
            <p className="help" id="key-origins-help">
              {t('keys.originsHelp')}
            </p>
            <IssueList issues={issuesAt('/allowed_origins')} id="key-origins-issues" />
          </div>
        </>
      )}
      {issues.length === 0 ? <ErrorBanner error={error} /> : null}
      <button type="submit" id="create-key" disabled={busy || !canSubmit}>
        {t('keys.create')}
      </button>
    </form>
  );
}
