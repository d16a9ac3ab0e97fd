import { conversations, FINAL_RUN_STATUSES, type Run, runs, withSystemScope } from '@agentry/db';
import { type FakeRequest, type FakeTurn, waitUntil } from '@agentry/testkit';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, type Harness, readSse, runModes, startHarness } from './test-support/harness.ts';

const modes = runModes('agent-tests stop');
/** How long one test turn may take here. */
const TURN_MS = 3000;
/** The model answers "slowly" after this long: well past the turn's time. */
const SLOW_MS = 10_000;

/** Greets at once, unless the user says "slowly". */
function model(req: FakeRequest): FakeTurn {
  const asked = String((req.body.messages ?? []).at(-1)?.content ?? '');
  return /slowly/.test(asked)
    ? { type: 'reply', text: 'Finally, hello.', delayMs: SLOW_MS }
    : { type: 'reply', text: 'Hello!' };
}

describe.each(modes)('test turns that stop early (%s)', (mode) => {
  let h: Harness;
  let key: string;
  let agent: string;
  beforeAll(async () => {
    h = await startHarness(mode, 'openai', { env: { TEST_TURN_TIMEOUT_MS: String(TURN_MS) } });
    key = await createTenant(h);
    h.llm.setResponder(model);
    const config = { basic_settings: { name: 'Greeter' } };
    agent = (await call(h, 'POST', '/v1/agents', { key, body: { config } })).json.id;
  }, 60_000);
  afterAll(() => h?.close());

  const startTestRun = async (cases: unknown[]) => {
    const started = await call(h, 'POST', `/v1/agents/${agent}/test-runs`, { key, body: { cases } });
    expect(started.status).toBe(202);
    return started.json.id as string;
  };
  /** The test run's turns' runs, read from the database (test conversations are not listed). */
  const turnRuns = (testRunId: string): Promise<Run[]> =>
    withSystemScope(h.platform.database.db, 'test: a test run’s runs', (tx) =>
      tx
        .select({ run: runs })
        .from(runs)
        .innerJoin(conversations, eq(conversations.id, runs.conversationId))
        .where(sql`${conversations.test}->>'testRunId' = ${testRunId}`),
    ).then((rows) => rows.map((r) => r.run));
  const runStatus = async (runId: string) => (await call(h, 'GET', `/v1/runs/${runId}`, { key })).json.status;
  /** The run's status once it is final (throws past `ms`). */
  const settle = (runId: string, ms: number) =>
    waitUntil(
      async () => {
        const status = await runStatus(runId);
        return FINAL_RUN_STATUSES.includes(status) ? status : undefined;
      },
      { timeoutMs: ms, intervalMs: 100 },
    );

  it('a turn past its time fails its case with the reason, and its run is cancelled, not left spending tokens', async () => {
    const id = await startTestRun([
      { name: 'quick', turns: [{ user: 'Hi', expect: [{ type: 'reply_contains', text: 'Hello' }] }] },
      { name: 'slow', turns: [{ user: 'Say hello slowly', expect: [{ type: 'reply_contains', text: 'hello' }] }] },
    ]);
    const events = await fetch(`${h.platform.url}/v1/agents/${agent}/test-runs/${id}/events`, {
      headers: { authorization: `Bearer ${key}` },
    });
    await readSse(events, (e) => e.event === 'test-run-finished');
    const testRun = (await call(h, 'GET', `/v1/agents/${agent}/test-runs/${id}`, { key })).json;
    expect(testRun).toMatchObject({ status: 'failed', passed_count: 1, failed_count: 1 });
    const slow = testRun.results.find((r: { name: string }) => r.name === 'slow').attempts[0];
    expect(slow.error).toMatch(/did not end within 3 s/);
    // Cancelled long before the model would have answered.
    expect(await settle(slow.turns[0].run_id, SLOW_MS - TURN_MS - 1000)).toBe('cancelled');
  });

  it('cancelling a test run cancels the runs of its turns in flight at once', async () => {
    const id = await startTestRun([{ name: 'slow', turns: [{ user: 'Say hello slowly', expect: [] }] }]);
    const inFlight = await waitUntil(async () => (await turnRuns(id)).find((r) => r.status === 'running'), {
      timeoutMs: 10_000,
    });
    const cancelled = await call(h, 'POST', `/v1/agents/${agent}/test-runs/${id}/cancel`, { key });
    expect(cancelled.json.status).toBe('cancelled');
    // Asked at once (not left to the turn's time to run out), and it ends cancelled.
    const [now] = (await turnRuns(id)).filter((r) => r.id === inFlight.id);
    expect(now!.cancelRequestedAt).not.toBeNull();
    expect(await settle(inFlight.id, SLOW_MS - 2000)).toBe('cancelled');
  });
});
