import type { LiveFlowEvent } from '../../api/live-run.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';

const ACTIONS = ['started', 'step', 'slot', 'reask', 'ended', 'exited', 'failed', 'handoff'] as const;
type Action = (typeof ACTIONS)[number];
const isAction = (a: string): a is Action => (ACTIONS as readonly string[]).includes(a);

/** What a flow did in a run, one line per event: started, steps, slots filled, re-asks, the end. */
export function FlowTrace({ events }: { events: readonly LiveFlowEvent[] }) {
  const { t } = useI18n();
  if (events.length === 0) return null;
  return (
    <ol className="flow-trace" aria-label={t('trace.flow', { flow: events[0]?.flow ?? '' })}>
      {events.map((event, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: events are append-only
        <li key={i} className={`flow-event flow-${event.action}`} data-action={event.action}>
          <span className="chip chip-context">{t('trace.flow', { flow: event.flow })}</span>{' '}
          {isAction(event.action)
            ? t(`trace.flowAction.${event.action}`, { step: event.stepId ?? '', slot: event.slot ?? '' })
            : event.action}
          {event.quickReplies ? (
            <span className="muted"> · {t('trace.flowReplies', { labels: event.quickReplies.join(' / ') })}</span>
          ) : null}
        </li>
      ))}
    </ol>
  );
}
