import type { ConversationEvent, InboxItem, Message } from '@agentry/contract/schemas';
import type { LiveEvent } from '../../api/live-stream.ts';

/** An inbox row: the API's item and when its wait (or hold) started, in ms (the label ticks from it). */
export interface InboxRow extends InboxItem {
  since: number;
}

const LAST_MESSAGE_CHARS = 200;
const HELD: ReadonlySet<string> = new Set(['pending_human', 'human']);

/** The API's items as rows; `now` is when they were read (their `waiting_seconds` count to it). */
export function rowsOf(items: readonly InboxItem[], now: number): InboxRow[] {
  return items.map((item) => ({
    ...item,
    since: item.mode_changed_at ? Date.parse(item.mode_changed_at) : now - item.waiting_seconds * 1000,
  }));
}

function record(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}

/** The text of a streamed message (its text parts joined). */
export function messageText(message: unknown): string {
  const content = record(message).content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p) => record(p))
    .filter((p) => p.type === 'text')
    .map((p) => String(p.text ?? ''))
    .join('\n');
}

/** The fields every inbox event carries of its conversation. */
function stateOf(event: LiveEvent, since: number): Partial<InboxRow> {
  const handoff = event.handoff === undefined ? {} : { handoff: (event.handoff ?? null) as InboxItem['handoff'] };
  return {
    ...(typeof event.mode === 'string' ? { mode: event.mode as InboxItem['mode'] } : {}),
    ...(event.assigned_to !== undefined ? { assigned_to: (event.assigned_to ?? null) as string | null } : {}),
    ...handoff,
    ...(typeof event.mode_changed_at === 'string'
      ? { mode_changed_at: event.mode_changed_at, since: Date.parse(event.mode_changed_at) }
      : { since }),
  };
}

/**
 * The inbox after one live event: a conversation handed to people appears (or moves), one given
 * back to the model or resolved leaves; a visitor's message counts as unread, a person's reply
 * clears the count. Pure: the list is never mutated.
 *
 * @example
 * rows = applyInboxEvent(rows, { type: 'mode', conversation_id: 'c1', to: 'pending_human', … }, Date.now());
 */
export function applyInboxEvent(rows: readonly InboxRow[], event: LiveEvent, now: number): InboxRow[] {
  const id = typeof event.conversation_id === 'string' ? event.conversation_id : undefined;
  if (!id) return [...rows];
  const existing = rows.find((r) => r.conversation_id === id);
  const others = rows.filter((r) => r.conversation_id !== id);
  if (event.type === 'mode') {
    const to = String(event.to ?? event.mode ?? '');
    if (!HELD.has(to)) return others;
    const base: InboxRow = existing ?? {
      object: 'inbox_item',
      conversation_id: id,
      agent_id: String(event.agent_id ?? ''),
      mode: 'pending_human',
      assigned_to: null,
      handoff: null,
      mode_changed_at: null,
      assigned_name: null,
      waiting_seconds: 0,
      unread_count: 0,
      last_message: null,
      since: now,
    };
    const row: InboxRow = {
      ...base,
      ...stateOf(event, now),
      mode: to as InboxItem['mode'],
      assigned_name: to === 'human' ? ((event.assigned_name as string | null | undefined) ?? null) : null,
    };
    return sortRows([...others, row]);
  }
  if (!existing) return [...rows];
  if (event.type === 'visitor-message') {
    const text = messageText(event.message).slice(0, LAST_MESSAGE_CHARS);
    return rows.map((r) => (r === existing ? { ...r, unread_count: r.unread_count + 1, last_message: text } : r));
  }
  if (event.type === 'human-message') {
    const text = messageText(event.message).slice(0, LAST_MESSAGE_CHARS);
    return rows.map((r) => (r === existing ? { ...r, unread_count: 0, last_message: text } : r));
  }
  return [...rows];
}

/** Longest waiting first. */
export function sortRows(rows: InboxRow[]): InboxRow[] {
  return rows.sort((a, b) => a.since - b.since);
}

export type InboxTab = 'waiting' | 'mine';

/** The rows of a tab: nobody holds them yet, or I hold them. */
export function rowsOfTab(rows: readonly InboxRow[], tab: InboxTab, me: string | undefined): InboxRow[] {
  return rows.filter((r) =>
    tab === 'waiting' ? r.mode === 'pending_human' : r.mode === 'human' && r.assigned_to === me,
  );
}

/** `45 s`, `3 min`, `2 h 5 min`, `3 d`: how long, for the ticking label. */
export function formatWaiting(ms: number): { value: number; unit: 's' | 'min' | 'h' | 'd'; rest?: number } {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return { value: s, unit: 's' };
  if (s < 3600) return { value: Math.floor(s / 60), unit: 'min' };
  if (s < 86_400) {
    const rest = Math.floor((s % 3600) / 60);
    return { value: Math.floor(s / 3600), unit: 'h', ...(rest ? { rest } : {}) };
  }
  return { value: Math.floor(s / 86_400), unit: 'd' };
}

/** One entry of the conversation's timeline: a message (visitor, model, person) or an internal note. */
export type TimelineEntry =
  | { kind: 'message'; id: string; at: number; message: Message }
  | { kind: 'note'; id: string; at: number; text: string; by: string | null }
  | { kind: 'mode'; id: string; at: number; to: string; by: string | null; actor: string; note: string | null };

/**
 * Messages, internal notes and mode changes in time order, each once (a live event and the
 * re-read history may both carry it).
 *
 * @example
 * timeline(detail.messages, history.data); // [{ kind: 'message', … }, { kind: 'note', … }]
 */
export function timeline(messages: readonly Message[], events: readonly ConversationEvent[]): TimelineEntry[] {
  const seen = new Set<string>();
  const out: TimelineEntry[] = [];
  for (const message of messages) {
    if (seen.has(message.id)) continue;
    seen.add(message.id);
    out.push({ kind: 'message', id: message.id, at: Date.parse(message.created_at), message });
  }
  for (const event of events) {
    if (seen.has(event.id)) continue;
    seen.add(event.id);
    const at = Date.parse(event.created_at);
    if (event.kind === 'note')
      out.push({ kind: 'note', id: event.id, at, text: event.note ?? '', by: event.actor.name });
    else if (event.to)
      out.push({
        kind: 'mode',
        id: event.id,
        at,
        to: event.to,
        by: event.actor.name,
        actor: event.actor.type,
        note: event.note,
      });
  }
  // Stable: equal times keep messages before events, in their own order.
  return out
    .map((e, i) => ({ e, i }))
    .sort((a, b) => a.e.at - b.e.at || a.i - b.i)
    .map(({ e }) => e);
}
