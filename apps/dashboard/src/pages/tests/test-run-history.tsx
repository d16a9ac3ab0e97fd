import type { TestRun } from '@agentry/contract/schemas';
import { agentTestsApi } from '../../api/agent-tests-api.ts';
import { ListTable } from '../../components/list-table.tsx';
import { Loaded } from '../../components/loaded.tsx';
import { useLoad } from '../../components/use-load.ts';
import { formatDate } from '../../i18n/format-date.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';

/** The agent's test runs, newest first: when, which version, how it went; a row opens its results. */
export function TestRunHistory({ agentId, onOpen }: { agentId: string; onOpen: (runId: string) => void }) {
  const { t, lang } = useI18n();
  const runs = useLoad(() => agentTestsApi.runs(agentId), { key: agentId });
  return (
    <section className="card" aria-labelledby="test-runs-title">
      <h2 id="test-runs-title">{t('tests.history.title')}</h2>
      <Loaded data={runs.data} error={runs.error} empty={t('tests.history.empty')}>
        {(list) => (
          <ListTable
            id="test-runs-table"
            headers={[
              t('tests.history.started'),
              t('versions.version'),
              t('tests.history.status'),
              t('tests.history.cases'),
              t('tests.run.model'),
            ]}
          >
            {list.map((run) => (
              <tr key={run.id} data-run-id={run.id}>
                <td>
                  <button type="button" className="link" onClick={() => onOpen(run.id)}>
                    {formatDate(lang, run.created_at)}
                  </button>
                </td>
                <td>v{run.agent_version}</td>
                <td>
                  <TestRunStatus status={run.status} />
                </td>
                <td>
                  {t('tests.history.counts', {
                    passed: run.passed_count,
                    failed: run.failed_count,
                    total: run.case_count,
                  })}
                </td>
                <td>
                  {run.model === 'agent' || run.model === 'demo' ? t(`tests.run.model.${run.model}`) : run.model}
                  {run.repetitions > 1 ? ` × ${run.repetitions}` : ''}
                </td>
              </tr>
            ))}
          </ListTable>
        )}
      </Loaded>
    </section>
  );
}

const STATUS_CLASS: Record<TestRun['status'], string> = {
  queued: 'badge badge-running',
  running: 'badge badge-running',
  passed: 'badge badge-ok',
  failed: 'badge badge-error',
  error: 'badge badge-error',
  cancelled: 'badge',
};

/** A test run's status as a badge. */
export function TestRunStatus({ status, id }: { status: TestRun['status']; id?: string }) {
  const { t } = useI18n();
  return (
    <span className={STATUS_CLASS[status]} data-status={status} {...(id ? { id } : {})}>
      {t(`tests.status.${status}`)}
    </span>
  );
}
