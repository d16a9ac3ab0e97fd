import { useEffect, useState } from 'react';
import { agentsApi } from '../../api/agents-api.ts';
import { conversationsApi } from '../../api/conversations-api.ts';
import type { Agent, Conversation } from '../../api/types.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { type ConversationFilter, filterParams, routeHref } from '../../router/routes.ts';
import { navigate } from '../../router/use-route.ts';
import { ConversationFilters } from './conversation-filters.tsx';

/** Conversations, newest first, searched and filtered by the API, paged with its cursor. */
export function ConversationsPage({ filter }: { filter: ConversationFilter }) {
  const { t, lang } = useI18n();
  const [agents, setAgents] = useState<Agent[]>([]);
  const [rows, setRows] = useState<Conversation[]>();
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const filterKey = filterParams(filter).toString();
  useEffect(() => {
    agentsApi
      .list()
      .then(setAgents)
      .catch(() => {});
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: filterKey stands for filter
  useEffect(() => {
    let live = true;
    setRows(undefined);
    setError(undefined);
    conversationsApi
      .list(filter)
      .then((page) => {
        if (!live) return;
        setRows(page.data);
        setCursor(page.next_cursor);
      })
      .catch((e) => live && setError(e));
    return () => {
      live = false;
    };
  }, [filterKey]);
  const more = async () => {
    if (!cursor) return;
    setBusy(true);
    try {
      const page = await conversationsApi.list({ ...filter, cursor });
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
  const filtered = filterKey !== '';
  return (
    <div className="stack">
      <header className="page-header">
        <h1>{t('conversations.title')}</h1>
      </header>
      <ConversationFilters
        key={filterKey}
        filter={filter}
        agents={agents}
        onChange={(next) => navigate({ name: 'conversations', ...next })}
      />
      <ErrorBanner error={error} />
      {rows === undefined && !error ? <p role="status">{t('common.loading')}</p> : null}
      <p className="sr-only" role="status">
        {rows ? t('conversations.count', { n: rows.length }) : ''}
      </p>
      {rows && rows.length === 0 ? (
        <p className="empty">{filtered ? t('conversations.noMatch') : t('conversations.empty')}</p>
      ) : null}
      {rows && rows.length > 0 ? (
        <table className="list" id="conversations-table">
          <thead>
            <tr>
              <th scope="col">{t('conversations.started')}</th>
              <th scope="col">{t('conversations.agent')}</th>
              <th scope="col">{t('versions.version')}</th>
              <th scope="col">{t('conversations.status')}</th>
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
                  {c.last_run_status ? (
                    <span
                      className={`badge ${c.last_run_status === 'completed' ? 'badge-ok' : c.last_run_status === 'failed' || c.last_run_status === 'timed_out' ? 'badge-error' : ''}`}
                    >
                      {t(`status.${c.last_run_status}`)}
                    </span>
                  ) : (
                    <span className="muted">—</span>
                  )}
                  {c.has_error ? <span className="badge badge-error">{t('conversations.errorBadge')}</span> : null}
                </td>
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
