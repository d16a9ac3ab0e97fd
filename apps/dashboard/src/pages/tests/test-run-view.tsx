import type { TestAttempt, TestCaseResult, TestRun, TestTurnResult } from '@agentry/contract/schemas';
import { useEffect, useRef, useState } from 'react';
import { agentTestsApi } from '../../api/agent-tests-api.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { Loaded } from '../../components/loaded.tsx';
import { useAction } from '../../components/use-action.ts';
import { useCanWrite } from '../../components/use-can-write.ts';
import { useLoad } from '../../components/use-load.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import type { TestsView } from '../../router/routes.ts';
import { ToolCallView } from '../playground/run-trace.tsx';
import { describeExpectation } from './expectation-text.ts';
import { TestRunStatus } from './test-run-history.tsx';

/** A finished case as the run's stream announced it. */
interface LiveCase {
  name: string;
  passed: boolean;
}

interface TestRunViewProps {
  agentId: string;
  runId: string;
  open: (view: TestsView) => void;
  /** The run is seen ended (the publish button's gate state may have changed). */
  onFinished: () => void;
}

/**
 * One test run: live progress from its event stream while it runs (no polling), then every case's
 * result: per repetition and turn the reply, the tool calls (answered by fixtures) and each
 * expectation next to what happened.
 */
export function TestRunView({ agentId, runId, open, onFinished }: TestRunViewProps) {
  const { t } = useI18n();
  const run = useLoad(() => agentTestsApi.run(agentId, runId), { key: runId });
  const [live, setLive] = useState<LiveCase[]>([]);
  const active = run.data?.status === 'queued' || run.data?.status === 'running';
  const { reload, setError } = run;
  // The latest callback, without following the stream again when the parent re-renders.
  const finished = useRef(onFinished);
  finished.current = onFinished;
  // Said once the run is seen ended, followed to its end or already over when loaded (a fast run).
  const ended = run.data && !active ? run.data.status : undefined;
  useEffect(() => {
    if (ended) finished.current();
  }, [ended]);
  useEffect(() => {
    if (!active) return;
    const stop = new AbortController();
    setLive([]);
    agentTestsApi
      .follow(
        agentId,
        runId,
        (event) => {
          if (event.type === 'test-case')
            setLive((cases) => [...cases, { name: String(event.name), passed: event.passed === true }]);
          // The stored run has every case's result (and the final counts) once it finished.
          if (event.type === 'test-run-finished') void reload();
        },
        stop.signal,
      )
      .catch(setError);
    return () => stop.abort();
  }, [active, agentId, runId, reload, setError]);
  return (
    <div className="stack test-run-view">
      <div className="inline">
        <button type="button" className="secondary small" id="back-to-tests" onClick={() => open({})}>
          ← {t('tests.back')}
        </button>
      </div>
      <Loaded data={run.data} error={run.error}>
        {(data) => (
          <>
            <RunSummary agentId={agentId} run={data} live={live} active={active} />
            {active ? <LiveCases cases={live} /> : null}
            {(data.results ?? []).map((result, i) => (
              <CaseResult
                // biome-ignore lint/suspicious/noArrayIndexKey: the results are a fixed list in the run's order
                key={i}
                result={result}
                repetitions={data.repetitions}
                onEdit={result.test_id ? () => open({ testId: result.test_id ?? '' }) : undefined}
              />
            ))}
          </>
        )}
      </Loaded>
    </div>
  );
}

function RunSummary({
  agentId,
  run,
  live,
  active,
}: {
  agentId: string;
  run: TestRun;
  live: LiveCase[];
  active: boolean;
}) {
  const { t } = useI18n();
  const canWrite = useCanWrite();
  const cancel = useAction();
  const done = active ? live.length : run.completed_count;
  const passed = active ? live.filter((c) => c.passed).length : run.passed_count;
  const failed = active ? live.filter((c) => !c.passed).length : run.failed_count;
  return (
    <section className="card" aria-labelledby="test-run-title">
      <div className="card-header">
        <h2 id="test-run-title">{t('tests.result.title', { version: run.agent_version })}</h2>
        <TestRunStatus status={run.status} id="test-run-status" />
      </div>
      <p className="inline" id="test-run-progress" role="status">
        <span className="meter" aria-hidden="true">
          <span className="meter-bar" style={{ width: `${run.case_count ? (done / run.case_count) * 100 : 0}%` }} />
        </span>
        {t('tests.result.progress', { done, total: run.case_count, passed, failed })}
      </p>
      <p className="muted">
        {t('tests.result.settings', {
          model: run.model === 'agent' || run.model === 'demo' ? t(`tests.run.model.${run.model}`) : run.model,
          repetitions: run.repetitions,
          threshold: Math.round(run.threshold * 100),
        })}{' '}
        {t('trace.tokens', { input: run.usage.input_tokens, output: run.usage.output_tokens })}
        {run.cost_usd !== null ? ` · $${run.cost_usd.toFixed(4)}` : ''}
      </p>
      {run.error ? (
        <p className="issues" role="alert">
          <code>{run.error.code}</code> {run.error.message}
        </p>
      ) : null}
      {active && canWrite ? (
        <button
          type="button"
          className="secondary small"
          disabled={cancel.busy}
          onClick={() => cancel.run(() => agentTestsApi.cancelRun(agentId, run.id))}
        >
          {t('tests.result.cancel')}
        </button>
      ) : null}
      <ErrorBanner error={cancel.error} />
    </section>
  );
}

function LiveCases({ cases }: { cases: LiveCase[] }) {
  const { t } = useI18n();
  if (cases.length === 0) return <p role="status">{t('tests.result.waiting')}</p>;
  return (
    <ul className="plain-list" id="test-run-live" aria-live="polite">
      {cases.map((c, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: cases are announced once each, in order
        <li key={i}>
          <span className={c.passed ? 'badge badge-ok' : 'badge badge-error'}>
            {c.passed ? t('tests.result.passed') : t('tests.result.failed')}
          </span>{' '}
          {c.name}
        </li>
      ))}
    </ul>
  );
}

interface CaseResultProps {
  result: TestCaseResult;
  repetitions: number;
  onEdit: (() => void) | undefined;
}

/** One case: open when it failed (that is what one came to see). */
function CaseResult({ result, repetitions, onEdit }: CaseResultProps) {
  const { t } = useI18n();
  return (
    <details
      className={`card case-result${result.passed ? '' : ' case-failed'}`}
      open={!result.passed}
      data-case={result.name}
    >
      <summary>
        <span className={result.passed ? 'badge badge-ok' : 'badge badge-error'}>
          {result.passed ? t('tests.result.passed') : t('tests.result.failed')}
        </span>{' '}
        <strong>{result.name}</strong>
        {repetitions > 1 ? (
          <span className="muted"> {t('tests.result.passRate', { rate: Math.round(result.pass_rate * 100) })}</span>
        ) : null}
      </summary>
      {onEdit ? (
        <button type="button" className="secondary small" onClick={onEdit}>
          {t('tests.result.edit')}
        </button>
      ) : null}
      {result.attempts.map((attempt) => (
        <Attempt key={attempt.repetition} attempt={attempt} repetitions={repetitions} />
      ))}
    </details>
  );
}

function Attempt({ attempt, repetitions }: { attempt: TestAttempt; repetitions: number }) {
  const { t } = useI18n();
  return (
    <div className="attempt">
      {repetitions > 1 ? (
        <h3>
          {t('tests.result.repetition', { n: attempt.repetition + 1 })}{' '}
          <span className={attempt.passed ? 'badge badge-ok' : 'badge badge-error'}>
            {attempt.passed ? t('tests.result.passed') : t('tests.result.failed')}
          </span>
        </h3>
      ) : null}
      {attempt.error ? (
        <p className="issues" role="alert">
          {attempt.error}
        </p>
      ) : null}
      <ol className="chat">
        {attempt.turns.map((turn, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: turns are the case's, in order
          <TurnResult key={i} turn={turn} />
        ))}
      </ol>
    </div>
  );
}

function TurnResult({ turn }: { turn: TestTurnResult }) {
  const { t } = useI18n();
  return (
    <li className="turn">
      <p className="bubble bubble-user">{turn.user}</p>
      {turn.tool_calls.map((call, i) => (
        <ToolCallView
          // biome-ignore lint/suspicious/noArrayIndexKey: calls are the turn's, in order
          key={i}
          name={call.name}
          args={call.arguments}
          output={call.output}
          isError={call.is_error}
          fixture={call.fixture}
        />
      ))}
      {turn.reply ? (
        <p className="bubble bubble-assistant">{turn.reply}</p>
      ) : (
        <p className="muted">{t('tests.result.noReply')}</p>
      )}
      {turn.expectations.length > 0 ? (
        <table className="list expectations">
          <thead>
            <tr>
              <th scope="col">
                <span className="sr-only">{t('tests.result.verdict')}</span>
              </th>
              <th scope="col">{t('tests.result.expected')}</th>
              <th scope="col">{t('tests.result.happened')}</th>
            </tr>
          </thead>
          <tbody>
            {turn.expectations.map((e, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: expectations are the turn's, in order
              <tr key={i} className={e.passed ? 'expectation-passed' : 'expectation-failed'} data-passed={e.passed}>
                <td>
                  <span className={e.passed ? 'badge badge-ok' : 'badge badge-error'}>
                    {e.passed ? '✓' : '✗'}
                    <span className="sr-only">{e.passed ? t('tests.result.passed') : t('tests.result.failed')}</span>
                  </span>
                </td>
                <td>{describeExpectation(e.expectation, t)}</td>
                <td className="expectation-detail">{e.detail}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </li>
  );
}
