import type { AgentEvent, AgentEventType } from '../events.ts';

export interface EventLog {
  events: AgentEvent[];
  onEvent: (event: AgentEvent) => void;
  /** Event types in order. */
  types(): AgentEventType[];
  /** Events of one type. */
  of<T extends AgentEventType>(type: T): Array<Extract<AgentEvent, { type: T }>>;
}

/**
 * Collects the events of a run for assertions.
 *
 * @example
 * const log = eventLog();
 * await runAgent({ ...options, onEvent: log.onEvent });
 * expect(log.types()).toContain('run-finished');
 */
export function eventLog(): EventLog {
  const events: AgentEvent[] = [];
  return {
    events,
    onEvent: (event) => {
      events.push(event);
    },
    types: () => events.map((event) => event.type),
    of: <T extends AgentEventType>(type: T) =>
      events.filter((event): event is Extract<AgentEvent, { type: T }> => event.type === type),
  };
}
