import type { LiveRun } from '../../api/live-run.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { ToolCallView } from './run-trace.tsx';

/** A run as it streams: per step its text so far, then its tool calls with arguments and results. */
export function LiveRunView({ run }: { run: LiveRun }) {
  const { t } = useI18n();
  const going = run.status === 'running' || run.status === 'queued';
  return (
    <div className="live-run" data-status={run.status}>
      <p className="trace-meta">
        <span className="badge">{t(`status.${run.status}`)}</span>
        {going ? <span className="muted">{t('playground.streaming')}</span> : null}
      </p>
      {run.steps.map((step, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: steps are append-only
        <div key={i} className="live-step">
          {step.reasoning ? <p className="muted reasoning">{step.reasoning}</p> : null}
          {step.text ? <p className="bubble bubble-assistant bubble-streaming">{step.text}</p> : null}
          {step.toolCalls.map((call) => (
            <ToolCallView
              key={call.id}
              name={call.name}
              args={call.arguments}
              output={call.done ? call.output : t('playground.toolRunning')}
              isError={call.isError ?? false}
              {...(call.durationMs !== undefined ? { durationMs: call.durationMs } : {})}
              {...(call.errorCode ? { errorCode: call.errorCode } : {})}
              {...(call.cached ? { cached: true } : {})}
            />
          ))}
        </div>
      ))}
    </div>
  );
}
