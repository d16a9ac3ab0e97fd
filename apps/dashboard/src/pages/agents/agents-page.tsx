import { useState } from 'react';
import { agentsApi } from '../../api/agents-api.ts';
import { ListTable } from '../../components/list-table.tsx';
import { Loaded } from '../../components/loaded.tsx';
import { useLoad } from '../../components/use-load.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { routeHref } from '../../router/routes.ts';
import { CreateAgentDialog } from './create-agent-dialog.tsx';

/** Every agent of the tenant with its published and latest version. */
export function AgentsPage() {
  const { t, lang } = useI18n();
  const agents = useLoad(() => agentsApi.list());
  const [creating, setCreating] = useState(false);
  const date = new Intl.DateTimeFormat(lang === 'zh' ? 'zh-CN' : 'en', { dateStyle: 'medium', timeStyle: 'short' });
  return (
    <div className="stack">
      <header className="page-header">
        <h1>{t('agents.title')}</h1>
        <button type="button" id="new-agent" onClick={() => setCreating(true)}>
          + {t('agents.new')}
        </button>
      </header>
      <Loaded data={agents.data} error={agents.error} empty={t('agents.empty')}>
        {(rows) => (
          <ListTable
            id="agents-table"
            headers={[
              t('agents.name'),
              t('agents.published'),
              t('agents.latest'),
              t('agents.runs24h'),
              t('agents.updated'),
            ]}
            actions
          >
            {rows.map((agent) => (
              <tr key={agent.id}>
                <td>
                  <a href={routeHref({ name: 'agent', id: agent.id, tab: 'settings' })}>{agent.name}</a>
                </td>
                <td>
                  {agent.published_version === null ? (
                    <span className="badge">{t('agents.unpublished')}</span>
                  ) : (
                    <span className="badge badge-ok">v{agent.published_version}</span>
                  )}
                </td>
                <td>v{agent.latest_version}</td>
                <td>{agent.runs_24h ?? 0}</td>
                <td>{date.format(new Date(agent.updated_at))}</td>
                <td>
                  <div className="inline">
                    <a href={routeHref({ name: 'agent', id: agent.id, tab: 'playground' })}>
                      {t('editor.tab.playground')}
                    </a>
                    <a href={routeHref({ name: 'conversations', agentId: agent.id })}>{t('nav.conversations')}</a>
                  </div>
                </td>
              </tr>
            ))}
          </ListTable>
        )}
      </Loaded>
      {creating ? <CreateAgentDialog onClose={() => setCreating(false)} /> : null}
    </div>
  );
}
