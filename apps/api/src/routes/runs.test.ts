import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createTenant,
  type Harness,
  readSse,
  runModes,
  seedConfig,
  startHarness,
} from '../test-support/harness.ts';

const modes = runModes('runs.test');

describe.each(modes)('run events over SSE (%s)', (mode) => {
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
        text: 'Saving. ',
        toolCalls: [{ name: 'save_customer_information', arguments: { email: 'ann@example.com' } }],
      },
      { type: 'reply', text: 'All done, Ann: a colleague will be in touch.', chunkSize: 3 },
    );
  const post = (headers: Record<string, string>) =>
    fetch(`${h.platform.url}/v1/conversations/${conversationId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ content: 'book a demo for ann@example.com' }),
    });

  it('answers 202 at once with Prefer: respond-async; the run’s events replay in full afterwards', async () => {
    script();
    const res = await post({ prefer: 'respond-async' });
    expect(res.status).toBe(202);
    const run = await res.json();
    expect(res.headers.get('location')).toBe(`/v1/runs/${run.id}`);
    expect(run.status).toBe('queued');

    const stream = await fetch(`${h.platform.url}/v1/runs/${run.id}/events`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    const events = await readSse(stream);
    const types = events.map((e) => e.event);
    expect(types[0]).toBe('run-status');
    expect(types).toContain('tool-call');
    expect(types).toContain('tool-result');
    expect(events.at(-1)?.data).toMatchObject({ type: 'run-status', status: 'completed', final: true });
    const text = events
      .filter((e) => e.event === 'text-delta')
      .map((e) => e.data.delta)
      .join('');
    expect(text).toBe('Saving. All done, Ann: a colleague will be in touch.');
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  });

  it('streams on the message POST itself, and resumes after Last-Event-ID without gaps or duplicates', async () => {
    script();
    const res = await post({ accept: 'text/event-stream' });
    expect(res.status).toBe(200);
    const head = await readSse(res, 4);
    expect(head).toHaveLength(4);
    const runId = (await call(h, 'GET', `/v1/conversations/${conversationId}`, { key })).json.messages.at(-1).run_id;
    expect(res.headers.get('location')).toBe(`/v1/runs/${runId}`);
    const rest = await readSse(
      await fetch(`${h.platform.url}/v1/runs/${runId}/events`, {
        headers: { authorization: `Bearer ${key}`, 'last-event-id': head.at(-1)!.id! },
      }),
    );
    const full = await readSse(
      await fetch(`${h.platform.url}/v1/runs/${runId}/events`, { headers: { authorization: `Bearer ${key}` } }),
    );
    expect([...head, ...rest].map((e) => e.id)).toEqual(full.map((e) => e.id));
    expect(full.at(-1)?.data.status).toBe('completed');
    const after = await readSse(
      await fetch(`${h.platform.url}/v1/runs/${runId}/events?after=${full[2]!.id}`, {
        headers: { authorization: `Bearer ${key}` },
      }),
    );
    expect(after.map((e) => e.id)).toEqual(full.slice(3).map((e) => e.id));
  });

  it('refuses another tenant’s run stream with 404', async () => {
    script();
    const run = await (await post({ prefer: 'respond-async' })).json();
    const other = await createTenant(h, 'Other');
    const res = await call(h, 'GET', `/v1/runs/${run.id}/events`, { key: other });
    expect([res.status, res.json.code]).toEqual([404, 'run_not_found']);
    await readSse(
      await fetch(`${h.platform.url}/v1/runs/${run.id}/events`, { headers: { authorization: `Bearer ${key}` } }),
    );
  });
});
