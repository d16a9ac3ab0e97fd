import { useEffect, useState } from 'react';
import { agentsApi } from '../../api/agents-api.ts';
import type { Agent } from '../../api/types.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { routeHref } from '../../router/routes.ts';
import { CreateAgentDialog } from './create-agent-dialog.tsx';

/** Every agent of the tenant with its published and latest version. */
export function AgentsPage() {
  const { t, lang } = useI18n();
  const [agents, setAgents] = useState<Agent[]>();
  const [error, setError] = useState<unknown>();
  const [creating, setCreating] = useState(false);
  useEffect(() => {
    agentsApi.list().then(setAgents).catch(setError);
  }, []);
  const date = new Intl.DateTimeFormat(lang === 'zh' ? 'zh-CN' : 'en', { dateStyle: 'medium', timeStyle: 'short' });
  return (
    <div className="stack">
      <header className="page-header">
        <h1>{t('agents.title')}</h1>
        <button type="button" id="new-agent" onClick={() => setCreating(true)}>
          + {t('agents.new')}
        </button>
      </header>
      <ErrorBanner error={error} />
      {agents === undefined && !error ? <p role="status">{t('common.loading')}</p> : null}
      {agents && agents.length === 0 ? <p className="empty">{t('agents.empty')}</p> : null}
      {agents && agents.length > 0 ? (
        <table className="list" id="agents-table">
          <thead>
            <tr>
              <th scope="col">{t('agents.name')}</th>
              <th scope="col">{t('agents.published')}</th>
              <th scope="col">{t('agents.latest')}</th>
              <th scope="col">{t('agents.updated')}</th>
              <th scope="col">
                <span className="sr-only">{t('common.actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {agents.map((agent) => (
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
          </tbody>
        </table>
      ) : null}
      {creating ? <CreateAgentDialog onClose={() => setCreating(false)} /> : null}
    </div>
  );
}
