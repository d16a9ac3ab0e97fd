import type { FakeRequest, FakeTurn } from '@agentry/testkit';
import { availableServices } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, type Harness, readSse, startHarness } from './test-support/harness.ts';

const ready = availableServices().postgres && availableServices().redis;
if (!ready)
  console.warn('[agent-tests-crash] NOTICE: Postgres or Redis unavailable: the test-run crash test is SKIPPED.');

/** A slow model that refunds and then confirms: each test case takes a few seconds. */
function slowModel(req: FakeRequest): FakeTurn {
  const last = (req.body.messages ?? []).at(-1);
  if (last?.role === 'tool') return { type: 'reply', text: 'Your refund is done.', delayMs: 700 };
  return { type: 'reply', toolCalls: [{ name: 'refund_order', arguments: { order_id: '7' } }], delayMs: 700 };
}

describe.runIf(ready)('a worker killed during a test run (Postgres + BullMQ, worker processes)', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    // A short job lock: the killed worker's test-run job moves to the other worker quickly.
    h = await startHarness('production', 'openai', { env: { JOB_LOCK_MS: '1500' }, workers: 1 });
    key = await createTenant(h);
    h.llm.setResponder(slowModel);
  }, 60_000);
  afterAll(() => h?.close());

  it('resumes: every case ends with exactly one result, the run passes, nothing is sent', async () => {
    const config = {
      basic_settings: { name: 'Refunds' },
      tools: [
        {
          name: 'refund_order',
          description: 'Refund an order',
          parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
          endpoint: { url: `${h.endpoint.url}/refunds`, method: 'POST', body: { order_id: '{{order_id}}' } },
        },
      ],
    };
    const agent = (await call(h, 'POST', '/v1/agents', { key, body: { config } })).json.id;
    const cases = Array.from({ length: 6 }, (_, i) => ({
      name: `case ${i + 1}`,
      turns: [{ user: `Refund order 7 (${i + 1})`, expect: [{ type: 'tool_called', tool: 'refund_order' }] }],
      fixtures: [{ tool: 'refund_order', output: { status: 'refunded' } }],
    }));
    const started = await call(h, 'POST', `/v1/agents/${agent}/test-runs`, { key, body: { cases } });
    expect(started.status).toBe(202);
    const follow = () =>
      fetch(`${h.platform.url}/v1/agents/${agent}/test-runs/${started.json.id}/events`, {
        headers: { authorization: `Bearer ${key}` },
      });
    // Killed once the first case is stored: some cases done, some in flight, some not started.
    await readSse(await follow(), (e) => e.event === 'test-case');
    const victim = h.workers[0]!;
    await h.addWorker();
    victim.kill('SIGKILL');
    const events = await readSse(await follow(), (e) => e.event === 'test-run-finished');
    expect(events.at(-1)!.data).toMatchObject({ type: 'test-run-finished', status: 'passed' });
    const run = (await call(h, 'GET', `/v1/agents/${agent}/test-runs/${started.json.id}`, { key })).json;
    expect(run).toMatchObject({ status: 'passed', case_count: 6, completed_count: 6, passed_count: 6 });
    expect(run.results.map((r: any) => r.name).sort()).toEqual(cases.map((c) => c.name).sort());
    expect(run.results.every((r: any) => r.attempts.length === 1)).toBe(true);
    expect(h.endpoint.requests).toEqual([]);
  }, 120_000);
});
