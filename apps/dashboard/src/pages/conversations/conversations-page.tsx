import { useState } from 'react';
import { conversationsApi } from '../../api/conversations-api.ts';
import { ListTable } from '../../components/list-table.tsx';
import { Loaded } from '../../components/loaded.tsx';
import { useAgents } from '../../components/use-agents.ts';
import { useLoad } from '../../components/use-load.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { type ConversationFilter, filterParams, routeHref } from '../../router/routes.ts';
import { navigate } from '../../router/use-route.ts';
import { TakeOverButton } from '../inbox/take-over-button.tsx';
import { ConversationFilters } from './conversation-filters.tsx';

/**
 * Conversations, newest first, searched and filtered by the API, paged with its cursor; each row
 * says what it was about (the first user message) and who the visitor is.
 */
export function ConversationsPage({ filter }: { filter: ConversationFilter }) {
  const { t, lang } = useI18n();
  const agents = useAgents();
  const filterKey = filterParams(filter).toString();
  // filterKey stands for filter; `more` adds the next page to what was loaded.
  const list = useLoad(() => conversationsApi.list(filter), { key: filterKey });
  const [busy, setBusy] = useState(false);
  const rows = list.data?.data;
  const cursor = list.data?.next_cursor ?? null;
  const more = async () => {
    if (!cursor) return;
    setBusy(true);
    try {
      const page = await conversationsApi.list({ ...filter, cursor });
      list.setData((loaded) => ({ ...page, data: [...(loaded?.data ?? []), ...page.data] }));
    } catch (e) {
      list.setError(e);
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
      <p className="sr-only" role="status">
        {rows ? t('conversations.count', { n: rows.length }) : ''}
      </p>
      <Loaded data={rows} error={list.error} empty={filtered ? t('conversations.noMatch') : t('conversations.empty')}>
        {(shown) => (
          <ListTable
            id="conversations-table"
            headers={[
              t('conversations.started'),
              t('conversations.firstMessage'),
              t('conversations.visitor'),
              t('conversations.agent'),
              t('versions.version'),
              t('conversations.status'),
              t('conversations.id'),
            ]}
          >
            {shown.map((c) => (
              <tr key={c.id} data-conversation={c.id}>
                <td>
                  <a href={routeHref({ name: 'conversation', id: c.id })}>{date.format(new Date(c.created_at))}</a>
                </td>
                <td className="conversation-preview">
                  {c.preview ? (
                    <span title={c.preview}>{c.preview}</span>
                  ) : (
                    <span className="muted">{t('conversations.noMessage')}</span>
                  )}
                </td>
                <td>
                  {c.end_user_id ? (
                    <code title={t('conversations.endUser')}>{c.end_user_id}</code>
                  ) : (
                    <span className="muted">{t('conversations.anonymous')}</span>
                  )}
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
                  {c.mode !== 'bot' ? (
                    <span className={`badge mode-${c.mode}`}>{t(`inbox.mode.${c.mode}`)}</span>
                  ) : null}{' '}
                  {c.mode !== 'resolved' ? <TakeOverButton id={c.id} mode={c.mode} compact /> : null}
                </td>
                <td>
                  <code>{c.id}</code>
                </td>
              </tr>
            ))}
          </ListTable>
        )}
      </Loaded>
      {cursor ? (
        <button type="button" className="secondary" disabled={busy} onClick={more}>
          {t('conversations.more')}
        </button>
      ) : null}
    </div>
  );
}
