import type { ConversationEvent, InboxItem, Message } from '@agentry/contract/schemas';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyInboxEvent, formatWaiting, type InboxRow, rowsOf, rowsOfTab, timeline } from './inbox-state.ts';

const item = (id: string, over: Partial<InboxItem> = {}): InboxItem => ({
  object: 'inbox_item',
  conversation_id: id,
  agent_id: 'a1',
  mode: 'pending_human',
  assigned_to: null,
  handoff: { source: 'visitor', reason: 'Asked', summary: 'Wants a refund', requested_at: '2026-01-01T10:00:00.000Z' },
  mode_changed_at: '2026-01-01T10:00:00.000Z',
  assigned_name: null,
  waiting_seconds: 30,
  unread_count: 0,
  last_message: null,
  ...over,
});
const text = (t: string) => ({ content: [{ type: 'text', text: t }] });
const NOW = Date.parse('2026-01-01T10:05:00.000Z');

describe('applyInboxEvent', () => {
  it('adds a conversation handed to people, moves it to Mine when claimed, drops it when released', () => {
    let rows: InboxRow[] = [];
    rows = applyInboxEvent(
      rows,
      {
        type: 'mode',
        conversation_id: 'c1',
        agent_id: 'a1',
        to: 'pending_human',
        handoff: { source: 'visitor', reason: 'Asked', summary: 'S', requested_at: '' },
        mode_changed_at: '2026-01-01T10:04:00.000Z',
      },
      NOW,
    );
    expect(rowsOfTab(rows, 'waiting', 'u1').map((r) => r.conversation_id)).toEqual(['c1']);
    expect(rows[0]?.handoff?.summary).toBe('S');
    rows = applyInboxEvent(
      rows,
      { type: 'mode', conversation_id: 'c1', to: 'human', assigned_to: 'u1', assigned_name: 'Ana' },
      NOW,
    );
    expect(rowsOfTab(rows, 'waiting', 'u1')).toEqual([]);
    expect(rowsOfTab(rows, 'mine', 'u1')[0]?.assigned_name).toBe('Ana');
    expect(rowsOfTab(rows, 'mine', 'u2')).toEqual([]);
    rows = applyInboxEvent(rows, { type: 'mode', conversation_id: 'c1', to: 'bot' }, NOW);
    expect(rows).toEqual([]);
  });

  it('counts visitor messages as unread and clears them on a person’s reply', () => {
    let rows = rowsOf([item('c1')], NOW);
    rows = applyInboxEvent(rows, { type: 'visitor-message', conversation_id: 'c1', message: text('hello?') }, NOW);
    rows = applyInboxEvent(rows, { type: 'visitor-message', conversation_id: 'c1', message: text('anyone?') }, NOW);
    expect(rows[0]).toMatchObject({ unread_count: 2, last_message: 'anyone?' });
    rows = applyInboxEvent(rows, { type: 'human-message', conversation_id: 'c1', message: text('Hi, Ana here') }, NOW);
    expect(rows[0]).toMatchObject({ unread_count: 0, last_message: 'Hi, Ana here' });
  });

  it('ignores messages of conversations not in the inbox and events without a conversation', () => {
    const rows = rowsOf([item('c1')], NOW);
    expect(applyInboxEvent(rows, { type: 'visitor-message', conversation_id: 'c9', message: text('x') }, NOW)).toEqual(
      rows,
    );
    expect(applyInboxEvent(rows, { type: 'mode' }, NOW)).toEqual(rows);
  });

  it('keeps the longest waiting first and never mutates its input, whatever the events', () => {
    const event = fc.record({
      type: fc.constantFrom('mode', 'visitor-message', 'human-message', 'note'),
      conversation_id: fc.constantFrom('c1', 'c2', 'c3'),
      to: fc.constantFrom('bot', 'pending_human', 'human', 'resolved'),
      mode_changed_at: fc
        .date({ min: new Date(0), max: new Date(2e12), noInvalidDate: true })
        .map((d) => d.toISOString()),
      message: fc.string().map(text),
    });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 30 }), (events) => {
        let rows: InboxRow[] = [];
        for (const e of events) {
          const before = JSON.stringify(rows);
          const next = applyInboxEvent(rows, e, NOW);
          expect(JSON.stringify(rows)).toBe(before);
          rows = next;
        }
        const ids = rows.map((r) => r.conversation_id);
        expect(new Set(ids).size).toBe(ids.length);
        for (const r of rows) expect(['pending_human', 'human']).toContain(r.mode);
        for (let i = 1; i < rows.length; i++) expect(rows[i - 1]!.since).toBeLessThanOrEqual(rows[i]!.since);
      }),
    );
  });
});

describe('rowsOf', () => {
  it('starts the wait at mode_changed_at, or waiting_seconds before now', () => {
    expect(rowsOf([item('c1')], NOW)[0]?.since).toBe(Date.parse('2026-01-01T10:00:00.000Z'));
    expect(rowsOf([item('c1', { mode_changed_at: null, waiting_seconds: 30 })], NOW)[0]?.since).toBe(NOW - 30_000);
  });
});

describe('formatWaiting', () => {
  it('uses seconds, minutes, hours with minutes, days', () => {
    expect(formatWaiting(-5)).toEqual({ value: 0, unit: 's' });
    expect(formatWaiting(45_000)).toEqual({ value: 45, unit: 's' });
    expect(formatWaiting(3 * 60_000 + 10_000)).toEqual({ value: 3, unit: 'min' });
    expect(formatWaiting(2 * 3_600_000 + 5 * 60_000)).toEqual({ value: 2, unit: 'h', rest: 5 });
    expect(formatWaiting(3_600_000)).toEqual({ value: 1, unit: 'h' });
    expect(formatWaiting(3 * 86_400_000)).toEqual({ value: 3, unit: 'd' });
  });
});

describe('timeline', () => {
  const message = (id: string, at: string): Message => ({
    id,
    object: 'message',
    seq: 1,
    role: 'user',
    run_id: null,
    content: [{ type: 'text', text: id }],
    citations: [],
    author: null,
    created_at: at,
  });
  const note = (id: string, at: string): ConversationEvent => ({
    id,
    object: 'conversation_event',
    kind: 'note',
    from: null,
    to: null,
    actor: { type: 'user', id: 'u1', name: 'Ana' },
    assigned_to: null,
    note: 'Refund approved',
    created_at: at,
  });
  it('interleaves messages and notes by time, each once', () => {
    const m1 = message('m1', '2026-01-01T10:00:00.000Z');
    const m2 = message('m2', '2026-01-01T10:02:00.000Z');
    const n1 = note('n1', '2026-01-01T10:01:00.000Z');
    const entries = timeline([m1, m2, m1], [n1, n1]);
    expect(entries.map((e) => e.id)).toEqual(['m1', 'n1', 'm2']);
    expect(entries[1]).toMatchObject({ kind: 'note', text: 'Refund approved', by: 'Ana' });
  });
});
