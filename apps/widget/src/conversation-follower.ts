import { ProblemError } from '@agentry/contract';
import type { EventSourceMessage } from 'eventsource-parser';
import { type Api, readEventStream } from './api.ts';

/** Who answers the visitor (issue 21): the model, nobody yet, a person, or nobody (closed). */
export type ConversationMode = 'bot' | 'pending_human' | 'human' | 'resolved';

/**
 * Follows people's part of a conversation (`GET /v1/conversations/{id}/events`: `mode` and
 * `human-message`) until `signal` aborts, reconnecting with backoff (0.5 s doubling to 10 s) after
 * the last event id, so a person's reply is neither lost nor shown twice. The server blocks on
 * its bus: an idle stream costs a heartbeat, no polling. A 4xx other than 429 ends it.
 *
 * @example
 * void followConversation(api, conversationId, stop.signal, (event) => show(event));
 */
export async function followConversation(
  api: Api,
  conversationId: string,
  signal: AbortSignal,
  onEvent: (event: EventSourceMessage) => void,
  onOpen?: () => void,
): Promise<void> {
  let lastId: string | undefined;
  let attempt = 0;
  while (!signal.aborted) {
    try {
      const after = lastId ? `?after=${encodeURIComponent(lastId)}` : '';
      const res = await api.request('GET', `/v1/conversations/${conversationId}/events${after}`, undefined, {
        accept: 'text/event-stream',
        signal,
      });
      attempt = 0;
      onOpen?.();
      await readEventStream(res, (event) => {
        if (signal.aborted) return;
        if (event.id) lastId = event.id;
        onEvent(event);
      });
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof ProblemError && error.kind === 'http' && error.status < 500 && error.status !== 429) return;
    }
    if (signal.aborted) return;
    attempt++;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.min(500 * 2 ** (attempt - 1), 10_000));
      signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
  }
}

/** What the handoff bar shows: a status line and whether the "talk to a person" button is offered. */
export function handoffBar(
  mode: ConversationMode,
  personName: string | null,
  offered: boolean,
  t: (key: 'waitingForPerson' | 'withPerson', vars?: Record<string, string>) => string,
): { status: string; button: boolean } {
  if (mode === 'pending_human') return { status: t('waitingForPerson'), button: false };
  if (mode === 'human') return { status: personName ? t('withPerson', { name: personName }) : '', button: false };
  return { status: '', button: offered };
}

/** A conversation mode from the API, or undefined for anything else. */
export function modeOf(value: unknown): ConversationMode | undefined {
  return value === 'bot' || value === 'pending_human' || value === 'human' || value === 'resolved' ? value : undefined;
}
