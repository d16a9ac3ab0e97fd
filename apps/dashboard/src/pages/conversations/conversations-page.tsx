import { useEffect, useState } from 'react';
import { agentsApi } from '../../api/agents-api.ts';
import { conversationsApi } from '../../api/conversations-api.ts';
import type { Agent, Conversation } from '../../api/types.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { routeHref } from '../../router/routes.ts';
import { navigate } from '../../router/use-route.ts';

/** Conversations, newest first, filtered by agent, paged with the API's cursor. */
export function ConversationsPage({ agentId }: { agentId?: string }) {
  const { t, lang } = useI18n();
  const [agents, setAgents] = useState<Agent[]>([]);
  const [rows, setRows] = useState<Conversation[]>();
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    agentsApi
      .list()
      .then(setAgents)
      .catch(() => {});
  }, []);
  useEffect(() => {
    let live = true;
    setRows(undefined);
    setError(undefined);
    conversationsApi
      .list(agentId ? { agentId } : {})
      .then((page) => {
        if (!live) return;
        setRows(page.data);
        setCursor(page.next_cursor);
      })
      .catch((e) => live && setError(e));
    return () => {
      live = false;
    };
  }, [agentId]);
  const more = async () => {
    if (!cursor) return;
    setBusy(true);
    try {
      const page = await conversationsApi.list({ ...(agentId ? { agentId } : {}), cursor });
      setRows((r) => [...(r ?? []), ...page.data]);
      setCursor(page.next_cursor);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const names = new Map(agents.map((a) => [a.id, a.name]));
  const date = new Intl.DateTimeFormat(lang === 'zh' ? 'zh-CN' : 'en', { dateStyle: 'medium', timeStyle: 'medium' });
  return (
    <div className="stack">
      <header className="page-header">
        <h1>{t('conversations.title')}</h1>
        <label>
          {t('conversations.agent')}{' '}
          <select
            id="conversations-agent"
            value={agentId ?? ''}
            onChange={(e) =>
              navigate(e.target.value ? { name: 'conversations', agentId: e.target.value } : { name: 'conversations' })
            }
          >
            <option value="">{t('conversations.allAgents')}</option>
            {agents.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </select>
        </label>
      </header>
      <ErrorBanner error={error} />
      {rows === undefined && !error ? <p role="status">{t('common.loading')}</p> : null}
      {rows && rows.length === 0 ? <p className="empty">{t('conversations.empty')}</p> : null}
      {rows && rows.length > 0 ? (
        <table className="list" id="conversations-table">
          <thead>
            <tr>
              <th scope="col">{t('conversations.started')}</th>
              <th scope="col">{t('conversations.agent')}</th>
              <th scope="col">{t('versions.version')}</th>
              <th scope="col">{t('conversations.id')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((c) => (
              <tr key={c.id} data-conversation={c.id}>
                <td>
                  <a href={routeHref({ name: 'conversation', id: c.id })}>{date.format(new Date(c.created_at))}</a>
                </td>
                <td>{names.get(c.agent_id) ?? c.agent_id.slice(0, 8)}</td>
                <td>{c.agent_version === null ? t('conversations.publishedVersion') : `v${c.agent_version}`}</td>
                <td>
                  <code>{c.id}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {cursor ? (
        <button type="button" className="secondary" disabled={busy} onClick={more}>
          {t('conversations.more')}
        </button>
      ) : null}
    </div>
  );
}
