import { availableServices } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaveConfig } from './test-support/flow-configs.ts';
import { call, createTenant, type Harness, startHarness, waitForRun } from './test-support/harness.ts';

const ready = availableServices().postgres && availableServices().redis;
if (!ready) console.warn('[flows-crash] NOTICE: Postgres or Redis unavailable: the flow crash test is SKIPPED.');

describe.runIf(ready)('a worker killed mid-flow (Postgres + BullMQ, worker processes)', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    // A short job lock so a killed worker's job moves to another one quickly.
    h = await startHarness('production', 'openai', { env: { JOB_LOCK_MS: '1500' }, workers: 1 });
    key = await createTenant(h);
  }, 60_000);
  afterAll(() => h?.close());

  it('resumes at the same step: the filed request is not sent again, the idempotent notice is re-sent with its key', async () => {
    const config = leaveConfig(h.endpoint.url);
    config.tools.push({
      name: 'notify_manager',
      description: 'Tell the manager about a leave request',
      parameters: { type: 'object', properties: { request_id: { type: 'string' } }, required: ['request_id'] },
      endpoint: { url: `${h.endpoint.url}/notify`, method: 'GET', query_params: { request: '{{request_id}}' } },
    });
    const flow = config.flows[0];
    const file = flow.steps.findIndex((s: any) => s.id === 'file');
    flow.steps.splice(file + 1, 0, {
      id: 'notify',
      type: 'tool',
      tool: 'notify_manager',
      arguments: { request_id: '{{request_id}}' },
    });
    const agent = (await call(h, 'POST', '/v1/agents', { key, body: { config } })).json.id;
    const conv = (await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agent } })).json.id;
    for (const text of ['leave request', '2026-12-07', '2026-12-09', 'Wedding']) {
      expect(
        (await call(h, 'POST', `/v1/conversations/${conv}/messages`, { key, body: { content: text } })).status,
      ).toBe(200);
    }
    h.endpoint.reset();
    let notices = 0;
    // The notice is held the first time, long enough for the worker to be killed while it is in flight.
    h.endpoint.respondWith((req) =>
      req.path === '/leave-requests'
        ? { status: 201, body: { id: 'LR-9' } }
        : { status: 200, body: { notified: true }, delayMs: notices++ === 0 ? 20_000 : 0 },
    );
    const llmBefore = h.llm.requests.length;
    const sent = await fetch(`${h.platform.url}/v1/conversations/${conv}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', prefer: 'respond-async' },
      body: JSON.stringify({ content: 'yes' }),
    });
    const run = (await sent.json()) as { id: string };
    await h.endpoint.waitForRequests(2, 15_000);
    const victim = h.workers[0]!;
    await h.addWorker();
    victim.kill('SIGKILL');
    const done = await waitForRun(h, key, run.id, 45_000);
    expect(done.status).toBe('completed');
    expect(done.reply).toBe('Done: your leave request LR-9 is filed.');
    const filed = h.endpoint.requests.filter((r) => r.path === '/leave-requests');
    const notified = h.endpoint.requests.filter((r) => r.path === '/notify');
    expect(filed).toHaveLength(1);
    expect(notified).toHaveLength(2);
    expect(new Set(notified.map((r) => r.headers['idempotency-key'])).size).toBe(1);
    expect(notified[0]!.query).toEqual({ request: 'LR-9' });
    // No model was asked: the flow's turn was resumed, not answered anew.
    expect(h.llm.requests.length).toBe(llmBefore);
    const messages = (await call(h, 'GET', `/v1/conversations/${conv}`, { key })).json.messages;
    const ids = messages.flatMap((m: any) =>
      m.content.filter((p: any) => p.type === 'tool_call').map((p: any) => p.id),
    );
    expect(ids.length).toBe(new Set(ids).size);
    expect(messages.map((m: any) => m.seq)).toEqual(messages.map((_: unknown, i: number) => i + 1));
  }, 90_000);
});
