import { useSyncExternalStore } from 'react';
import { inboxApi } from '../../api/inbox-api.ts';
import { followLiveStream, type LiveEvent } from '../../api/live-stream.ts';
import { applyInboxEvent, type InboxRow, rowsOf } from './inbox-state.ts';

/** What the nav badge and the inbox page show: one live stream per tab of the browser, shared. */
export interface InboxSnapshot {
  rows: InboxRow[];
  /** The list was read at least once. */
  loaded: boolean;
  /** The stream is connected (false while it reconnects). */
  live: boolean;
  error?: unknown;
}

type Listener = () => void;

let snapshot: InboxSnapshot = { rows: [], loaded: false, live: false };
const listeners = new Set<Listener>();
const eventListeners = new Set<(event: LiveEvent) => void>();
let stop: AbortController | undefined;

function set(next: Partial<InboxSnapshot>): void {
  snapshot = { ...snapshot, ...next };
  for (const listener of listeners) listener();
}

/**
 * Starts following the signed-in tenant's inbox (`GET /v1/inbox/events`), once; `stopInbox` ends it
 * (sign-out, tenant switch). Each time the stream opens the list is read again, and the events that
 * arrive meanwhile are applied after it, so a reconnect never leaves a stale row.
 *
 * @example
 * useEffect(() => { startInbox(); return stopInbox; }, [tenantId]);
 */
export function startInbox(): void {
  if (stop) return;
  const controller = new AbortController();
  stop = controller;
  let buffered: LiveEvent[] | undefined;
  const reload = () => {
    buffered = [];
    inboxApi
      .list()
      .then((list) => {
        if (controller.signal.aborted) return;
        let rows = rowsOf(list.data, Date.now());
        for (const event of buffered ?? []) rows = applyInboxEvent(rows, event, Date.now());
        buffered = undefined;
        set({ rows, loaded: true, error: undefined });
      })
      .catch((error: unknown) => {
        buffered = undefined;
        if (!controller.signal.aborted) set({ error, loaded: true });
      });
  };
  void followLiveStream(
    '/v1/inbox/events',
    {
      onOpen: () => {
        set({ live: true });
        reload();
      },
      onDrop: () => set({ live: false }),
      onEvent: (event) => {
        if (buffered) buffered.push(event);
        else set({ rows: applyInboxEvent(snapshot.rows, event, Date.now()) });
        for (const listener of eventListeners) listener(event);
      },
    },
    controller.signal,
  ).catch((error: unknown) => {
    if (!controller.signal.aborted) set({ error, live: false, loaded: true });
  });
}

export function stopInbox(): void {
  stop?.abort();
  stop = undefined;
  snapshot = { rows: [], loaded: false, live: false };
  for (const listener of listeners) listener();
}

/** Every live inbox event (notifications, an open conversation's view). */
export function onInboxEvent(listener: (event: LiveEvent) => void): () => void {
  eventListeners.add(listener);
  return () => eventListeners.delete(listener);
}

function subscribe(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The inbox, re-rendering on every change. */
export function useInbox(): InboxSnapshot {
  return useSyncExternalStore(subscribe, () => snapshot);
}
