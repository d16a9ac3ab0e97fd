import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDeltaCoalescer } from './delta-coalescer.ts';
import type { RunEvent } from './types.ts';

/** A bus that records what is published to it, per run, in order. */
function recordingBus() {
  const published: Array<{ runId: string; event: RunEvent }> = [];
  let failing: Error | undefined;
  return {
    published,
    events: (runId = 'r1') => published.filter((p) => p.runId === runId).map((p) => p.event),
    failWith(error: Error | undefined) {
      failing = error;
    },
    async publish<E extends { type: string }>(runId: string, event: E) {
      if (failing) throw failing;
      published.push({ runId, event: event as unknown as RunEvent });
      return String(published.length);
    },
  };
}

const text = (delta: string, step = 0, extra: Record<string, unknown> = {}) => ({
  type: 'text-delta',
  step,
  delta,
  ...extra,
});
const reasoning = (delta: string, step = 0) => ({ type: 'reasoning-delta', step, delta });
const toolCall = (step = 0) => ({ type: 'tool-call', step, toolCall: { id: 'c1', name: 'lookup', arguments: {} } });

describe('delta coalescer', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends the first delta at once and merges those within its window into one event that keeps the first one’s fields', async () => {
    const bus = recordingBus();
    const events = createDeltaCoalescer(bus);
    for (const [n, delta] of ['Hel', 'lo, ', 'Ann', '!'].entries())
      void events.publish('r1', text(delta, 0, { seq: n }));
    // A first token is never held.
    expect(bus.events()).toEqual([text('Hel', 0, { seq: 0 })]);
    await vi.advanceTimersByTimeAsync(24);
    expect(bus.events()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(bus.events()).toEqual([text('Hel', 0, { seq: 0 }), text('lo, Ann!', 0, { seq: 1 })]);
    expect(events.buffered()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('sends every delta at once when they come slower than the window', async () => {
    const bus = recordingBus();
    const events = createDeltaCoalescer(bus);
    for (const delta of ['One', ' two', ' three']) {
      void events.publish('r1', text(delta));
      expect(bus.events().at(-1)).toEqual(text(delta));
      await vi.advanceTimersByTimeAsync(30);
    }
    expect(bus.events()).toHaveLength(3);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('merges a skill’s deltas inside their envelopes, apart from the agent’s own and another call’s', async () => {
    const bus = recordingBus();
    const events = createDeltaCoalescer(bus);
    const inSkill = (delta: string, toolCallId = 'c1') => ({
      type: 'skill-event',
      skill: 'research',
      toolCallId,
      event: text(delta),
    });
    void events.publish('r1', text('Go.'));
    for (const delta of ['Sear', 'ching', '…']) void events.publish('r1', inSkill(delta));
    void events.publish('r1', inSkill(' other', 'c2'));
    void events.publish('r1', text('Own'));
    void events.publish('r1', text(' words'));
    await vi.advanceTimersByTimeAsync(100);
    expect(bus.events()).toEqual([text('Go.'), inSkill('Searching…'), inSkill(' other', 'c2'), text('Own words')]);
  });

  it('publishes the buffered text, then a tool call, at once: no timer has to run', () => {
    const bus = recordingBus();
    const events = createDeltaCoalescer(bus);
    void events.publish('r1', text('Let me '));
    void events.publish('r1', text('look '));
    void events.publish('r1', text('it up.'));
    void events.publish('r1', toolCall());
    // Synchronously: the bus has them all, in order, before any time passes.
    expect(bus.events()).toEqual([text('Let me '), text('look it up.'), toolCall()]);
    expect(vi.getTimerCount()).toBe(0);
    // After the tool call the next window starts fresh: its first delta goes at once.
    void events.publish('r1', text('Found it.', 1));
    expect(bus.events().at(-1)).toEqual(text('Found it.', 1));
  });

  it('keeps the order across interleaved kinds and steps, each run’s buffer its own', () => {
    const bus = recordingBus();
    const events = createDeltaCoalescer(bus);
    const sent = [
      reasoning('Think'),
      reasoning('ing.'),
      text('A'),
      text('B'),
      reasoning('More.'),
      text('C', 1),
      text('D', 1),
      text('E', 2),
      { type: 'run-status', status: 'completed', final: true },
    ];
    void events.publish('r2', text('other run, '));
    void events.publish('r2', text('held'));
    for (const event of sent) void events.publish('r1', event);
    expect(bus.events()).toEqual([
      reasoning('Think'),
      reasoning('ing.'),
      text('AB'),
      reasoning('More.'),
      text('CD', 1),
      text('E', 2),
      { type: 'run-status', status: 'completed', final: true },
    ]);
    // The other run's text is still buffered: one run's events do not flush another's.
    expect(bus.events('r2')).toEqual([text('other run, ')]);
    expect(events.buffered()).toBe(1);
    events.flush('r2');
    expect(bus.events('r2')).toEqual([text('other run, '), text('held')]);
  });

  it('publishes one event per 25 ms while deltas keep coming', async () => {
    const bus = recordingBus();
    const events = createDeltaCoalescer(bus);
    // A delta every 5 ms for 100 ms.
    for (let n = 0; n < 20; n++) {
      void events.publish('r1', text(`${n},`));
      await vi.advanceTimersByTimeAsync(5);
      if (n === 3) expect(bus.events()).toHaveLength(1); // 20 ms in: the first, the rest held
    }
    events.flush('r1');
    const published = bus.events();
    // At 0, 25, 50 and 75 ms, and the rest at the end.
    expect(published.map((e) => e.delta)).toEqual([
      '0,',
      '1,2,3,4,',
      '5,6,7,8,9,',
      '10,11,12,13,14,',
      '15,16,17,18,19,',
    ]);
  });

  it('publishes at once when the buffer passes its size bound', () => {
    const bus = recordingBus();
    const events = createDeltaCoalescer(bus, { maxChars: 2048 });
    const chunk = 'x'.repeat(100);
    void events.publish('r1', text('first'));
    for (let n = 0; n < 20; n++) void events.publish('r1', text(chunk));
    expect(bus.events()).toEqual([text('first')]);
    void events.publish('r1', text(chunk)); // 2,100 characters: past the bound
    expect(bus.events()).toEqual([text('first'), text(chunk.repeat(21))]);
    expect(events.buffered()).toBe(0);
  });

  it('publishes no empty event: empty deltas are dropped, and a flush with nothing buffered sends nothing', async () => {
    const bus = recordingBus();
    const events = createDeltaCoalescer(bus);
    await events.publish('r1', text(''));
    events.flush('r1');
    void events.publish('r1', toolCall());
    await vi.advanceTimersByTimeAsync(100);
    expect(bus.events()).toEqual([toolCall()]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('settles a delta’s promise when its merged event is stored, and rejects it when that fails', async () => {
    const bus = recordingBus();
    const events = createDeltaCoalescer(bus);
    await events.publish('r1', text('a'));
    let stored = false;
    void events.publish('r1', text('b')).then(() => {
      stored = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(stored).toBe(false);
    await vi.advanceTimersByTimeAsync(25);
    expect(stored).toBe(true);

    bus.failWith(new Error('bus down'));
    const lost = events.publish('r1', text('b'));
    events.flush('r1');
    await expect(lost).rejects.toThrow('bus down');
    await expect(events.publish('r1', toolCall())).rejects.toThrow('bus down');
  });
});

/** Any sequence of a run's events: deltas of both kinds over a few steps (some empty), other events, pauses. */
const action = fc.oneof(
  fc.record({
    kind: fc.constant('delta' as const),
    type: fc.constantFrom('text-delta', 'reasoning-delta'),
    step: fc.integer({ min: 0, max: 2 }),
    delta: fc.string({ unit: 'grapheme', maxLength: 600 }),
    // A skill's sub-run wraps its deltas, once per level: which skill call (none: the agent's own).
    skills: fc.array(fc.constantFrom('a:c1', 'a:c2', 'b:c1'), { maxLength: 2 }),
  }),
  fc.record({
    kind: fc.constant('event' as const),
    type: fc.constantFrom('tool-call', 'tool-result', 'flow', 'citations'),
  }),
  fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 40 }) }),
);

/** `event` inside skills' envelopes, outermost first (`'skill:call'` each). */
function enveloped(event: RunEvent, skills: string[]): RunEvent {
  return skills.reduceRight<RunEvent>((inner, at) => {
    const [skill, toolCallId] = at.split(':');
    return { type: 'skill-event', skill, toolCallId, event: inner };
  }, event);
}

/**
 * Each delta as its UTF-16 units (with its envelopes, kind and step), every other event as it is:
 * what order means here.
 */
function flatten(events: RunEvent[]): unknown[] {
  return events.flatMap<unknown>((e) => {
    let path = '';
    let inner = e;
    while (inner.type === 'skill-event') {
      path += `${inner.skill}:${inner.toolCallId}/`;
      inner = inner.event as RunEvent;
    }
    return typeof inner.delta === 'string'
      ? inner.delta.split('').map((unit) => `${path}${inner.type}/${inner.step}/${unit}`)
      : [e];
  });
}

/** The innermost delta of an event (through skills' envelopes). */
const innerDelta = (e: RunEvent): unknown => (e.type === 'skill-event' ? innerDelta(e.event as RunEvent) : e.delta);

describe('delta coalescer (property)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('keeps every character and every other event, in order; merges only; publishes no empty delta', () => {
    fc.assert(
      fc.property(fc.array(action, { maxLength: 80 }), (actions) => {
        const bus = recordingBus();
        const events = createDeltaCoalescer(bus, { maxChars: 1024 });
        const sent: RunEvent[] = [];
        let n = 0;
        for (const a of actions) {
          if (a.kind === 'wait') {
            vi.advanceTimersByTime(a.ms);
            continue;
          }
          const event: RunEvent =
            a.kind === 'delta'
              ? enveloped({ type: a.type, step: a.step, delta: a.delta }, a.skills)
              : { type: a.type, n: n++ };
          sent.push(event);
          void events.publish('r1', event);
        }
        void events.publish('r1', { type: 'run-status', status: 'completed', final: true });
        const published = bus.events();
        expect(published.at(-1)).toEqual({ type: 'run-status', status: 'completed', final: true });
        expect(flatten(published.slice(0, -1))).toEqual(flatten(sent));
        expect(published.filter((e) => innerDelta(e) === '')).toEqual([]);
        expect(published.length).toBeLessThanOrEqual(sent.filter((e) => innerDelta(e) !== '').length + 1);
        expect(events.buffered()).toBe(0);
        expect(vi.getTimerCount()).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});
