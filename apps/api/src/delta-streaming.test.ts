import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createTenant,
  type Harness,
  readSse,
  runModes,
  type SseEvent,
  seedConfig,
  startHarness,
} from './test-support/harness.ts';

// Issue 23: a long answer streamed in small chunks costs a few events, not one per chunk, and loses,
// repeats or reorders nothing — live, and for a client that resumes with Last-Event-ID.
const modes = runModes('delta-streaming.test');

/** 1,200 characters, every position different enough that a lost or repeated chunk shows. */
const ANSWER = Array.from({ length: 200 }, (_, i) => `${i} lorem ipsum `)
  .join('')
  .slice(0, 1200);
const CHUNK = 4;

const textOf = (events: SseEvent[]) =>
  events
    .filter((e) => e.event === 'text-delta')
    .map((e) => e.data.delta)
    .join('');

describe.each(modes)('streamed answers in small chunks (%s)', (mode) => {
  let h: Harness;
  let key: string;
  let conversationId: string;
  beforeAll(async () => {
    h = await startHarness(mode, 'openai');
    key = await createTenant(h);
    const config = seedConfig();
    config.tools[0].endpoint.url = `${h.endpoint.url}/contacts/add`;
    const agent = await call(h, 'POST', '/v1/agents', { key, body: { config } });
    conversationId = (await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agent.json.id } })).json.id;
  }, 60_000);
  afterAll(() => h?.close());

  const script = () =>
    h.llm.enqueue(
      {
        type: 'reply',
        text: 'Saving your details. ',
        chunkSize: CHUNK,
        toolCalls: [{ name: 'save_customer_information', arguments: { email: 'ann@example.com' } }],
      },
      { type: 'reply', text: ANSWER, chunkSize: CHUNK, chunkDelayMs: 1 },
    );
  const events = (runId: string, headers: Record<string, string> = {}) =>
    fetch(`${h.platform.url}/v1/runs/${runId}/events`, { headers: { authorization: `Bearer ${key}`, ...headers } });
  const start = async () => {
    script();
    const res = await fetch(`${h.platform.url}/v1/conversations/${conversationId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', prefer: 'respond-async' },
      body: JSON.stringify({ content: 'book a demo for ann@example.com' }),
    });
    expect(res.status).toBe(202);
    return (await res.json()).id as string;
  };

  it('streams the answer exactly, in far fewer text events than chunks, tool events in their place', async () => {
    const streamed = await readSse(await events(await start()));
    const deltas = streamed.filter((e) => e.event === 'text-delta');
    expect(textOf(streamed)).toBe(`Saving your details. ${ANSWER}`);
    // 306 chunks from the model (6 + 300); merged per 25 ms (the answer streams for ≥ 300 ms).
    expect(deltas.length).toBeLessThanOrEqual(60);
    expect(deltas.every((e) => e.data.delta.length > 0)).toBe(true);
    const types = streamed.map((e) => e.event);
    const at = (type: string, from = 0) => types.indexOf(type, from);
    // The first step's text, its tool call and result, then the answer's text, then the end.
    const toolCall = at('tool-call');
    const result = at('tool-result');
    expect(toolCall).toBeGreaterThan(-1);
    expect(result).toBeGreaterThan(toolCall);
    expect(textOf(streamed.slice(0, toolCall))).toBe('Saving your details. ');
    expect(textOf(streamed.slice(result))).toBe(ANSWER);
    expect(deltas.map((e) => e.data.step)).toEqual([...deltas.map((e) => e.data.step)].sort((a, b) => a - b));
    expect(streamed.at(-1)?.data).toMatchObject({ type: 'run-status', status: 'completed', final: true });
    expect(new Set(streamed.map((e) => e.id)).size).toBe(streamed.length);
  });

  it('resumes a stream left mid-answer with Last-Event-ID: exactly the rest, no text repeated or missing', async () => {
    const runId = await start();
    // Leaves once the answer has begun (its first text after the tool's result), while it streams on.
    let resultSeen = false;
    const head = await readSse(await events(runId), (e) => {
      if (e.event === 'tool-result') resultSeen = true;
      return resultSeen && e.event === 'text-delta';
    });
    expect(head.at(-1)?.event).toBe('text-delta');
    expect(head.some((e) => e.data.final)).toBe(false);
    const rest = await readSse(await events(runId, { 'last-event-id': head.at(-1)!.id! }));
    const full = await readSse(await events(runId));
    expect([...head, ...rest].map((e) => e.id)).toEqual(full.map((e) => e.id));
    expect(textOf([...head, ...rest])).toBe(`Saving your details. ${ANSWER}`);
    expect(textOf(rest).length).toBeGreaterThan(0);
    expect(rest.at(-1)?.data).toMatchObject({ status: 'completed', final: true });
  });
});
