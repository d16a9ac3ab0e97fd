import type { FakeRequest, FakeTurn } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, type Harness, readSse, runModes, startHarness } from './test-support/harness.ts';

const modes = runModes('agent-tests timeout');
/** The model answers after this long: well past the turn's time (the settings' floor, 1 s). */
const SLOW_MS = 6000;

/** Greets at once, unless the user says "slowly". */
function model(req: FakeRequest): FakeTurn {
  const asked = String((req.body.messages ?? []).at(-1)?.content ?? '');
  return /slowly/.test(asked)
    ? { type: 'reply', text: 'Finally, hello.', delayMs: SLOW_MS }
    : { type: 'reply', text: 'Hello!' };
}

describe.each(modes)('a test turn past its time (%s)', (mode) => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await startHarness(mode, 'openai', { env: { TEST_TURN_TIMEOUT_MS: '1000' } });
    key = await createTenant(h);
    h.llm.setResponder(model);
  }, 60_000);
  afterAll(() => h?.close());

  it('fails the case with the reason and stops its run, which does not go on spending tokens', async () => {
    const agent = (
      await call(h, 'POST', '/v1/agents', { key, body: { config: { basic_settings: { name: 'Greeter' } } } })
    ).json.id;
    const cases = [
      { name: 'quick', turns: [{ user: 'Hi', expect: [{ type: 'reply_contains', text: 'Hello' }] }] },
      { name: 'slow', turns: [{ user: 'Say hello slowly', expect: [{ type: 'reply_contains', text: 'hello' }] }] },
    ];
    const started = await call(h, 'POST', `/v1/agents/${agent}/test-runs`, { key, body: { cases } });
    expect(started.status).toBe(202);
    const events = await fetch(`${h.platform.url}/v1/agents/${agent}/test-runs/${started.json.id}/events`, {
      headers: { authorization: `Bearer ${key}` },
    });
    await readSse(events, (e) => e.event === 'test-run-finished');
    const testRun = (await call(h, 'GET', `/v1/agents/${agent}/test-runs/${started.json.id}`, { key })).json;
    expect(testRun).toMatchObject({ status: 'failed', passed_count: 1, failed_count: 1 });
    const slow = testRun.results.find((r: { name: string }) => r.name === 'slow').attempts[0];
    expect(slow.error).toMatch(/did not end within 1 s/);
    const runId = slow.turns[0].run_id;

    // The turn's run ends cancelled, long before the model would have answered.
    const deadline = Date.now() + SLOW_MS - 1500;
    let run = (await call(h, 'GET', `/v1/runs/${runId}`, { key })).json;
    while (!['completed', 'failed', 'cancelled'].includes(run.status) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      run = (await call(h, 'GET', `/v1/runs/${runId}`, { key })).json;
    }
    expect(run.status).toBe('cancelled');
  });
});
