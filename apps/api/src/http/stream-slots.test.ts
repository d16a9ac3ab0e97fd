import { availableServices } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createTenant,
  type Harness,
  type Mode,
  rowCounts,
  seedConfig,
  startHarness,
  waitForRun,
} from '../test-support/harness.ts';
import { acquireStream, createStreamSlots } from './stream-slots.ts';

describe('stream slots', () => {
  it('counts open streams up to the cap, and a release counts once', () => {
    const slots = createStreamSlots(2);
    const a = acquireStream(slots);
    const b = acquireStream(slots);
    expect(slots.open).toBe(2);
    expect(() => acquireStream(slots)).toThrow(expect.objectContaining({ code: 'too_many_streams', status: 503 }));
    a();
    a();
    expect(slots.open).toBe(1);
    acquireStream(slots);
    b();
    expect(slots.open).toBe(1);
  });
});

const modes: Mode[] = ['embedded'];
if (availableServices().postgres && availableServices().redis) modes.push('production');

describe.each(modes)('MAX_EVENT_STREAMS (%s)', (mode) => {
  let h: Harness;
  let key: string;
  let conversationId: string;
  beforeAll(async () => {
    h = await startHarness(mode, 'openai', { env: { MAX_EVENT_STREAMS: '1' } });
    key = await createTenant(h);
    const config = seedConfig();
    config.tools[0].endpoint.url = `${h.endpoint.url}/contacts/add`;
    const agent = await call(h, 'POST', '/v1/agents', { key, body: { config } });
    conversationId = (await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agent.json.id } })).json.id;
  }, 60_000);
  afterAll(() => h?.close());

  const stream = (path: string, init: RequestInit = {}) =>
    fetch(`${h.platform.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream', ...(init.headers ?? {}) },
    });

  it('refuses a stream past the cap with 503 too_many_streams, writes nothing, and frees the slot when a stream ends', async () => {
    // A slow model keeps the first run, and so its stream, open.
    h.llm.enqueue({ type: 'reply', text: 'Slowly.', delayMs: 1500 });
    const first = await stream(`/v1/conversations/${conversationId}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'hello' }),
    });
    expect(first.status).toBe(200);
    const runId = first.headers.get('location')!.split('/').at(-1)!;

    const second = await stream(`/v1/runs/${runId}/events`);
    expect(second.status).toBe(503);
    expect(second.headers.get('retry-after')).toBe('2');
    expect((await second.json()).code).toBe('too_many_streams');

    const before = await rowCounts(h);
    const refused = await stream(`/v1/conversations/${conversationId}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'another' }),
    });
    expect(refused.status).toBe(503);
    expect((await refused.json()).code).toBe('too_many_streams');
    expect(await rowCounts(h)).toEqual(before); // no message, no run

    await first.text(); // the run ends, its stream closes, its slot is free again
    expect((await waitForRun(h, key, runId)).status).toBe('completed');
    const again = await stream(`/v1/runs/${runId}/events`);
    expect(again.status).toBe(200);
    await again.text();
  }, 30_000);
});
