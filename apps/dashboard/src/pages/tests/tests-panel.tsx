import type { AgentConfigDocument } from '@agentry/contract';
import { useRef, useState } from 'react';
import { type AgentTestsExport, agentTestsApi } from '../../api/agent-tests-api.ts';
import { ConfirmButton } from '../../components/confirm-button.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { ListTable } from '../../components/list-table.tsx';
import { Loaded } from '../../components/loaded.tsx';
import { useAction } from '../../components/use-action.ts';
import { useCanWrite } from '../../components/use-can-write.ts';
import { useLoad } from '../../components/use-load.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import type { TestsView } from '../../router/routes.ts';
import { navigate } from '../../router/use-route.ts';
import { downloadJson } from '../conversations/download-json.ts';
import { RequireTestsToggle } from './publish-gate.tsx';
import { RunTestsForm } from './run-tests-form.tsx';
import { TestEditor } from './test-editor.tsx';
import { TestRunHistory } from './test-run-history.tsx';
import { TestRunView } from './test-run-view.tsx';

export interface TestsPanelProps extends TestsView {
  agentId: string;
  /** The editor's draft: the tools, flows and steps a case can name. */
  config: AgentConfigDocument;
  /** Bumped by the editor after a save: the run form lists the new version. */
  refreshKey: number;
  requireTests: boolean;
  onRequireTestsChange: (value: boolean) => void;
  /** A test run ended: the publish button's gate state changed. */
  onTestRunFinished: () => void;
}

/**
 * The agent's tests (issue 22): its cases, running them against a version with live progress, the
 * results, the run history and the publish gate's setting. A case opens in the editor
 * (`#/agents/{id}/tests/{testId}`), a run in its results (`#/agents/{id}/tests/runs/{runId}`).
 */
export default function TestsPanel(props: TestsPanelProps) {
  const { agentId, config, testId, testRunId, onTestRunFinished } = props;
  const open = (view: TestsView) => navigate({ name: 'agent', id: agentId, tab: 'tests', ...view }, true);
  if (testId) return <TestEditor key={testId} agentId={agentId} config={config} testId={testId} open={open} />;
  if (testRunId)
    return (
      <TestRunView key={testRunId} agentId={agentId} runId={testRunId} open={open} onFinished={onTestRunFinished} />
    );
  return <TestsOverview {...props} open={open} />;
}

function TestsOverview(props: TestsPanelProps & { open: (view: TestsView) => void }) {
  const { agentId, refreshKey, requireTests, onRequireTestsChange, open } = props;
  const { t } = useI18n();
  const canWrite = useCanWrite();
  const tests = useLoad(() => agentTestsApi.list(agentId), { key: agentId });
  return (
    <div className="stack tests-panel">
      <section className="card" aria-labelledby="tests-gate-title">
        <h2 id="tests-gate-title">{t('gate.title')}</h2>
        <RequireTestsToggle agentId={agentId} value={requireTests} onChange={onRequireTestsChange} />
      </section>
      {canWrite ? (
        <RunTestsForm
          agentId={agentId}
          refreshKey={refreshKey}
          disabled={tests.data?.length === 0}
          onStarted={(run) => open({ testRunId: run.id })}
        />
      ) : null}
      <section className="card" aria-labelledby="tests-list-title">
        <div className="card-header">
          <h2 id="tests-list-title">{t('tests.title')}</h2>
          <div className="inline">
            {canWrite ? (
              <button type="button" id="new-test" onClick={() => open({ testId: 'new' })}>
                + {t('tests.new')}
              </button>
            ) : null}
            <ExportImport agentId={agentId} canWrite={canWrite} onImported={() => void tests.reload()} />
          </div>
        </div>
        <p className="help">{t('tests.help')}</p>
        <Loaded data={tests.data} error={tests.error} empty={t('tests.empty')}>
          {(list) => (
            <ListTable
              id="tests-table"
              headers={[t('tests.name'), t('tests.turns'), t('tests.expectations'), t('tests.fixtures')]}
              actions
            >
              {list.map((test) => (
                <tr key={test.id} data-test-id={test.id}>
                  <td>
                    <button type="button" className="link" onClick={() => open({ testId: test.id })}>
                      {test.definition.name}
                    </button>
                    {test.definition.description ? <p className="muted small">{test.definition.description}</p> : null}
                  </td>
                  <td>{test.definition.turns.length}</td>
                  <td>{test.definition.turns.reduce((n, turn) => n + (turn.expect?.length ?? 0), 0)}</td>
                  <td>{test.definition.fixtures?.length ?? 0}</td>
                  <td>
                    {canWrite ? (
                      <ConfirmButton
                        label={t('common.delete')}
                        question={t('tests.deleteConfirm', { name: test.definition.name })}
                        confirmLabel={t('common.delete')}
                        onConfirm={async () => {
                          await agentTestsApi.remove(agentId, test.id).catch(tests.setError);
                          await tests.reload();
                        }}
                      />
                    ) : null}
                  </td>
                </tr>
              ))}
            </ListTable>
          )}
        </Loaded>
      </section>
      <TestRunHistory agentId={agentId} onOpen={(runId) => open({ testRunId: runId })} />
    </div>
  );
}

/** Export downloads every case as one JSON file; Import reads such a file back (cases merge by name). */
function ExportImport({
  agentId,
  canWrite,
  onImported,
}: {
  agentId: string;
  canWrite: boolean;
  onImported: () => void;
}) {
  const { t } = useI18n();
  const action = useAction();
  const [notice, setNotice] = useState('');
  const input = useRef<HTMLInputElement>(null);
  const importFile = (file: File) =>
    action.run(async () => {
      setNotice('');
      const tests = readExport(await file.text());
      if (!tests) throw new Error(t('tests.importBadFile', { name: file.name }));
      const counts = await agentTestsApi.importAll(agentId, { tests, mode: 'merge' });
      setNotice(t('tests.imported', counts));
      onImported();
    });
  return (
    <>
      <button
        type="button"
        className="secondary"
        id="export-tests"
        disabled={action.busy}
        onClick={() =>
          action.run(async () => downloadJson(`agent-tests-${agentId}.json`, await agentTestsApi.exportAll(agentId)))
        }
      >
        {t('tests.export')}
      </button>
      {canWrite ? (
        <>
          <button type="button" className="secondary" disabled={action.busy} onClick={() => input.current?.click()}>
            {t('tests.import')}
          </button>
          <input
            ref={input}
            type="file"
            id="import-tests"
            className="sr-only"
            accept=".json,application/json"
            aria-label={t('tests.import')}
            onChange={(e) => {
              const file = e.target.files?.[0];
              e.target.value = '';
              if (file) void importFile(file);
            }}
          />
        </>
      ) : null}
      {notice ? (
        <p className="banner banner-ok" role="status" id="tests-import-notice">
          {notice}
        </p>
      ) : null}
      <ErrorBanner error={action.error} />
    </>
  );
}

/** The cases of an export file (or a bare list of cases), undefined for anything else; the API checks each case. */
function readExport(text: string): unknown[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (Array.isArray(parsed)) return parsed;
  const tests = (parsed as Partial<AgentTestsExport> | null)?.tests;
  return Array.isArray(tests) ? tests : undefined;
}
