import type { AgentConfigDocument, ToolConfig } from '@agentry/contract';
import { ProblemError } from '@agentry/contract';
import type { ToolTestResult } from '@agentry/contract/schemas';
import { useState } from 'react';
import { agentsApi } from '../../api/agents-api.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { IssueList } from '../../components/issue-list.tsx';
import { JsonBlock } from '../../components/json-block.tsx';
import { exampleArguments, parseTyped, schemaToRows } from '../../config/schema-builder.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';

/**
 * Fills example arguments, shows the exact request the tool would send (secrets masked by the
 * API), and on demand sends it for real to show status, timing and the shaped output.
 */
export function ToolTester({ config, tool }: { config: AgentConfigDocument; tool: ToolConfig }) {
  const { t } = useI18n();
  const rows = schemaToRows(tool.parameters);
  const [args, setArgs] = useState<Record<string, string>>(() =>
    Object.fromEntries(
      Object.entries(exampleArguments(tool.parameters)).map(([k, v]) => [
        k,
        typeof v === 'string' ? v : JSON.stringify(v),
      ]),
    ),
  );
  const [result, setResult] = useState<ToolTestResult>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const typedArgs = () => {
    const out: Record<string, unknown> = {};
    for (const row of rows) {
      const text = args[row.name];
      // Empty optional arguments are left out, as a model would leave them out.
      if (text === undefined || (text === '' && !row.required)) continue;
      out[row.name] = parseTyped(text, row.type);
    }
    return out;
  };
  const run = async (send: boolean) => {
    setBusy(true);
    setError(undefined);
    try {
      setResult(await agentsApi.testTool(config, tool.name, typedArgs(), send));
    } catch (e) {
      setResult(undefined);
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const prefix = `tester-${tool.name}`;
  return (
    <section className="tool-tester" aria-label={t('tester.title')}>
      <h4>{t('tester.title')}</h4>
      {rows.length === 0 ? <p className="help">{t('tester.noArgs')}</p> : null}
      <div className="grid-2">
        {rows.map((row) => (
          <div className="field" key={row.name}>
            <label htmlFor={`${prefix}-${row.name}`}>
              {row.name}{' '}
              <span className="muted">
                {row.type}
                {row.required ? ' *' : ''}
              </span>
            </label>
            {row.enumValues.length > 0 ? (
              <select
                id={`${prefix}-${row.name}`}
                value={args[row.name] ?? ''}
                onChange={(e) => setArgs({ ...args, [row.name]: e.target.value })}
              >
                {row.enumValues.map((v) => (
                  <option key={v}>{v}</option>
                ))}
              </select>
            ) : (
              <input
                id={`${prefix}-${row.name}`}
                value={args[row.name] ?? ''}
                onChange={(e) => setArgs({ ...args, [row.name]: e.target.value })}
              />
            )}
          </div>
        ))}
      </div>
      <div className="inline">
        <button type="button" className="secondary" id={`${prefix}-preview`} disabled={busy} onClick={() => run(false)}>
          {t('tester.preview')}
        </button>
        <button type="button" id={`${prefix}-send`} disabled={busy} onClick={() => run(true)}>
          {t('tester.send')}
        </button>
        {busy ? <span role="status">{t('common.loading')}</span> : null}
      </div>
      {error instanceof ProblemError && error.problem.errors ? (
        <IssueList issues={error.problem.errors} />
      ) : (
        <ErrorBanner error={error} />
      )}
      {result ? <TestResult result={result} /> : null}
    </section>
  );
}

function TestResult({ result }: { result: ToolTestResult }) {
  const { t } = useI18n();
  const { request, response } = result;
  return (
    <div className="test-result" role="status">
      <h5>{t('tester.request')}</h5>
      <p className="request-line">
        <span className="method">{request.method}</span> <code>{request.url}</code>
      </p>
      {Object.keys(request.headers ?? {}).length > 0 ? (
        <table className="kv-table">
          <tbody>
            {Object.entries(request.headers).map(([k, v]) => (
              <tr key={k}>
                <th scope="row">{k}</th>
                <td>
                  <code>{v}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {request.body !== undefined && request.body !== null ? (
        <JsonBlock value={request.body} label={t('tester.request')} />
      ) : null}
      {response ? (
        <>
          <h5>{t('tester.response')}</h5>
          <p className="inline">
            <span className={`badge ${response.is_error ? 'badge-error' : 'badge-ok'}`} id="tester-status">
              {response.status ?? '—'}
            </span>
            <span>{t('tester.duration', { ms: response.duration_ms })}</span>
            {response.is_error ? <span className="badge badge-error">{t('trace.error')}</span> : null}
          </p>
          <p className="help">{t('tester.outputHelp')}</p>
          <JsonBlock value={response.output} label={t('tester.response')} />
        </>
      ) : null}
    </div>
  );
}
