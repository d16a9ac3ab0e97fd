import { describe, expect, it } from 'vitest';
import { newHttpStats } from './http-client.ts';
import {
  checkNoInfrastructureFailures,
  checkNoServerErrors,
  checkProcessExits,
  checkResumedStreams,
  checkToolIdempotency,
  checkTranscripts,
  type Observations,
} from './invariants.ts';
import type { SentMessage, StreamRecord } from './load.ts';
import type { StreamEvent } from './sse.ts';

// The checks are pure: these feed them hand-made observations, one broken promise at a time.

const sent = (tag: string, runId: string): SentMessage => ({
  tag,
  content: `chaos ${tag}`,
  mode: 'wait',
  outcome: 'accepted',
  runId,
  sentAt: 0,
});
const user = (seq: number, tag: string, runId: string) => ({
  seq,
  role: 'user',
  run_id: runId,
  content: [{ type: 'text', text: `chaos ${tag}` }],
});
const reply = (seq: number, tag: string, runId: string) => ({
  seq,
  role: 'assistant',
  run_id: runId,
  content: [{ type: 'text', text: `ack ${tag} done` }],
});
const event = (id: string, final = false): StreamEvent => ({ id, event: 'x', data: { final } });

function observations(overrides: Partial<Observations> = {}): Observations {
  return {
    records: {
      conversations: [{ id: 'c1', messages: [sent('a', 'r1'), sent('b', 'r2')] }],
      streams: [],
      createFailures: [],
    },
    runs: new Map([
      ['r1', { status: 'completed' }],
      ['r2', { status: 'completed' }],
    ]),
    transcripts: new Map([['c1', [user(1, 'a', 'r1'), reply(2, 'a', 'r1'), user(3, 'b', 'r2'), reply(4, 'b', 'r2')]]]),
    replays: new Map(),
    toolRequests: [],
    http: newHttpStats(),
    exits: [],
    streamEndDeadlineMs: 15_000,
    ...overrides,
  };
}

describe('chaos invariants', () => {
  it('a transcript as sent passes; a duplicated, a reordered and a lost message each fail', () => {
    expect(checkTranscripts(observations()).violations).toEqual([]);
    const cases = {
      duplicated: [
        user(1, 'a', 'r1'),
        reply(2, 'a', 'r1'),
        user(3, 'a', 'r1'),
        user(4, 'b', 'r2'),
        reply(5, 'b', 'r2'),
      ],
      reordered: [user(1, 'b', 'r2'), reply(2, 'b', 'r2'), user(3, 'a', 'r1'), reply(4, 'a', 'r1')],
      lost: [user(1, 'a', 'r1'), reply(2, 'a', 'r1')],
      twoReplies: [
        user(1, 'a', 'r1'),
        reply(2, 'a', 'r1'),
        reply(3, 'a', 'r1'),
        user(4, 'b', 'r2'),
        reply(5, 'b', 'r2'),
      ],
    };
    for (const [name, messages] of Object.entries(cases)) {
      const result = checkTranscripts(observations({ transcripts: new Map([['c1', messages]]) }));
      expect(result.violations.length, name).toBeGreaterThan(0);
    }
  });

  it('an infrastructure failure counts, a tool or model failure does not', () => {
    const runs = new Map<string, unknown>([
      ['r1', { status: 'failed', error: { code: 'database_unavailable', category: 'system' } }],
      ['r2', { status: 'failed', error: { code: 'model_error', category: 'upstream' } }],
    ]);
    const result = checkNoInfrastructureFailures(observations({ runs: runs as Observations['runs'] }));
    expect(result.violations.map((v) => v.id)).toEqual(['r1']);
  });

  it('a POST key twice or a GET key three times is a violation', () => {
    const req = (path: string, key: string) => ({
      method: 'X',
      path,
      query: {},
      headers: { 'idempotency-key': key },
      bodyText: '',
      json: undefined,
      receivedAt: 0,
    });
    const ok = [req('/orders', 'r1:p'), req('/orders/lookup', 'r1:g'), req('/orders/lookup', 'r1:g')];
    expect(checkToolIdempotency(observations({ toolRequests: ok })).violations).toEqual([]);
    const bad = [...ok, req('/orders', 'r1:p'), req('/orders/lookup', 'r1:g')];
    expect(checkToolIdempotency(observations({ toolRequests: bad })).violations).toHaveLength(2);
  });

  it('a resumed stream with a gap or a duplicate fails; one that matches its replay passes', () => {
    const replay = [event('1-0'), event('2-0'), event('3-0', true)];
    const stream = (ids: string[]): StreamRecord => ({
      runId: 'r1',
      tag: 'a',
      resumed: true,
      reconnects: 1,
      events: ids.map((id) => event(id, id === '3-0')),
      ended: true,
      endedAt: 0,
      lastConnectedAt: 0,
    });
    const check = (ids: string[]) =>
      checkResumedStreams(
        observations({
          records: { conversations: [], streams: [stream(ids)], createFailures: [] },
          replays: new Map([['r1', replay]]),
        }),
      ).violations.length;
    expect(check(['1-0', '2-0', '3-0'])).toBe(0);
    expect(check(['1-0', '3-0'])).toBe(1);
    expect(check(['1-0', '2-0', '2-0', '3-0'])).toBe(1);
    // A stream whose bus failed ends with the run from the database: exact up to its last bus event.
    const fellBack = (ids: string[]) => {
      const record = stream(ids);
      record.events.push({ id: undefined, event: 'run', data: {} }, { id: undefined, event: 'run-status', data: {} });
      return checkResumedStreams(
        observations({
          records: { conversations: [], streams: [record], createFailures: [] },
          replays: new Map([['r1', replay]]),
        }),
      ).violations.length;
    };
    expect(fellBack(['1-0'])).toBe(0);
    expect(fellBack(['2-0'])).toBe(1);
  });

  it('a 500 and a 503 without Retry-After are violations; exits count unless the suite killed', () => {
    const http = newHttpStats();
    http.badCount = 1;
    http.bad.push({ status: 500, method: 'POST', path: '/x', body: '', at: 0 });
    expect(checkNoServerErrors(observations({ http })).violations).toHaveLength(1);
    const exits = [
      {
        name: 'worker-1',
        pid: 1,
        code: null,
        signal: 'SIGKILL' as const,
        killedWith: 'SIGKILL' as const,
        at: 0,
        lastLines: [],
      },
      { name: 'worker-2', pid: 2, code: 1, signal: null, at: 0, lastLines: ['TypeError'] },
      { name: 'worker-2', pid: 3, code: 1, signal: null, killedWith: 'SIGTERM' as const, at: 0, lastLines: [] },
    ];
    expect(checkProcessExits(observations({ exits })).violations.map((v) => v.id)).toEqual([
      'worker-2 pid 2',
      'worker-2 pid 3',
    ]);
  });
});
