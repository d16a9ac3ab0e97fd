import type { LiveFlowEvent } from '../../api/live-run.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';

const ACTIONS = ['started', 'step', 'slot', 'reask', 'ended', 'exited', 'failed', 'handoff'] as const;
type Action = (typeof ACTIONS)[number];
const isAction = (a: string): a is Action => (ACTIONS as readonly string[]).includes(a);

/** One event in words; a `slot` event without a slot is a confirmation answered. */
function describe(event: LiveFlowEvent, t: ReturnType<typeof useI18n>['t']): string {
  const vars = { step: event.stepId ?? '', slot: event.slot ?? '' };
  if (event.action === 'slot' && !event.slot) return t('trace.flowAction.answered', vars);
  return isAction(event.action) ? t(`trace.flowAction.${event.action}`, vars) : event.action;
}

/** What a flow did in a run, one line per event: started, steps, slots filled, re-asks, the end. */
export function FlowTrace({ events }: { events: readonly LiveFlowEvent[] }) {
  const { t } = useI18n();
  if (events.length === 0) return null;
  return (
    <ol className="flow-trace" aria-label={t('trace.flow', { flow: events[0]?.flow ?? '' })}>
      {events.map((event, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: events are append-only
        <li key={i} className="flow-event" data-action={event.action}>
          <span className="chip chip-context">{t('trace.flow', { flow: event.flow })}</span> {describe(event, t)}
          {event.quickReplies ? (
            <span className="muted"> · {t('trace.flowReplies', { labels: event.quickReplies.join(' / ') })}</span>
          ) : null}
        </li>
      ))}
    </ol>
  );
}
