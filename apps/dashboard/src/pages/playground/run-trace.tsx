import type { Run } from '@agentry/contract/schemas';
import { JsonBlock } from '../../components/json-block.tsx';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { KnowledgeSearchView, knowledgeHits } from './knowledge-trace.tsx';

/** Everything a run did, unfolded: totals, then per model step its tokens, latency and tool calls. */
export function RunTrace({ run }: { run: Run }) {
  const { t } = useI18n();
  const calls = new Map(run.tool_calls.map((c) => [c.id, c]));
  const shown = new Set<string>();
  return (
    <section className="trace" aria-label={t('trace.title')}>
      <p className="trace-meta">
        <span
          className={`badge ${run.status === 'completed' ? 'badge-ok' : run.status === 'failed' ? 'badge-error' : ''}`}
        >
          {t(`status.${run.status}`)}
        </span>
        <span>{t('trace.tokens', { input: run.meta.input_tokens, output: run.meta.output_tokens })}</span>
        <span>{t('trace.toolCalls', { n: run.meta.tool_call_count })}</span>
        {run.meta.latency_ms !== null ? (
          <span>{t('trace.latency', { ms: Math.round(run.meta.latency_ms) })}</span>
        ) : null}
      </p>
      {run.error ? (
        <p className="issues" role="alert">
          {run.error.code ? <code>{run.error.code}</code> : null} {run.error.message}
        </p>
      ) : null}
      <ol className="steps">
        {run.steps.map((step) => (
          <li key={step.index} className="step">
            <p className="step-head">
              <strong>{t('trace.step', { n: step.index + 1 })}</strong>
              <span>{t('trace.tokens', { input: step.usage.inputTokens, output: step.usage.outputTokens })}</span>
              <span>{t('trace.modelLatency', { ms: Math.round(step.modelLatencyMs) })}</span>
              <span className="muted">{step.finishReason}</span>
            </p>
            {step.toolCalls.map((tc) => {
              shown.add(tc.id);
              const call = calls.get(tc.id);
              return (
                <ToolCallView
                  key={tc.id}
                  name={tc.name}
                  args={call?.arguments}
                  output={call?.output}
                  isError={tc.isError || (call?.is_error ?? false)}
                  durationMs={tc.durationMs}
                  {...(tc.errorCode ? { errorCode: tc.errorCode } : {})}
                  {...(tc.cached ? { cached: true } : {})}
                />
              );
            })}
          </li>
        ))}
      </ol>
      {/* Calls the step list does not mention (a run still going, an older API) are still shown. */}
      {run.tool_calls
        .filter((c) => !shown.has(c.id))
        .map((c) => (
          <ToolCallView key={c.id} name={c.name} args={c.arguments} output={c.output} isError={c.is_error} />
        ))}
    </section>
  );
}

interface ToolCallViewProps {
  name: string;
  args: unknown;
  output: unknown;
  isError: boolean;
  durationMs?: number;
  errorCode?: string;
  /** A stored response of a tool with `cache`. */
  cached?: boolean;
  /** Answered by a test's fixture: nothing was sent. */
  fixture?: boolean;
}

export function ToolCallView(props: ToolCallViewProps) {
  const { name, args, output, isError, durationMs, errorCode, cached, fixture } = props;
  const { t } = useI18n();
  const hits = name === 'search_knowledge' && !isError ? knowledgeHits(output) : undefined;
  return (
    <div className={`tool-call${isError ? ' tool-call-error' : ''}`}>
      <p className="tool-call-head">
        <span className="chip chip-parameter">{name}</span>
        {durationMs !== undefined ? <span>{t('trace.duration', { ms: Math.round(durationMs) })}</span> : null}
        {isError ? <span className="badge badge-error">{errorCode ?? t('trace.error')}</span> : null}
        {cached ? (
          <span className="badge" title={t('trace.cachedHint')}>
            {t('trace.cached')}
          </span>
        ) : null}
        {fixture ? (
          <span className="badge badge-fixture" title={t('trace.fixtureHint')}>
            {t('trace.fixture')}
          </span>
        ) : null}
      </p>
      {hits ? <KnowledgeSearchView args={args} hits={hits} /> : null}
      <div className="grid-2">
        <div>
          <h5>{t('trace.arguments')}</h5>
          <JsonBlock value={args} />
        </div>
        <div>
          <h5>{t('trace.result')}</h5>
          <JsonBlock value={output} />
        </div>
      </div>
    </div>
  );
}
