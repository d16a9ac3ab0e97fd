import { createTestDatabase, type TestDatabase, testDatabaseKinds } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkpointRun,
  claimDueDeliveries,
  type Db,
  finishRunFenced,
  finishRunUnfenced,
  getWebhookDelivery,
  listWebhookDeliveries,
  markRunWaiting,
  recordDeliveryAttempt,
  retryWebhookDelivery,
  type WebhookDelivery,
  webhookDeliveries,
  withSystemScope,
} from '../index.ts';
import { tenantWithAgent as tenantWithWebhookAgent } from '../testing/run-fixtures.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const hooks = [
  { url: 'https://a.example.com/h', events: ['run.completed', 'run.waiting'], signing_secret: 'A_SECRET' },
  { url: 'https://b.example.com/h', events: ['run.failed'], signing_secret: 'B_SECRET', headers: { 'X-T': 'v' } },
  { url: 'https://off.example.com/h', events: ['run.completed'], signing_secret: 'C', enabled: false },
];

/** A tenant whose agent has `webhooks` (default: the three above), and a way to start claimed runs. */
const tenantWithAgent = (db: Db, webhooks: unknown[] = hooks) => tenantWithWebhookAgent(db, { webhooks });

/** Every delivery row, whatever the tenant (the test looks at the outbox as the dispatcher does). */
const allDeliveries = (db: Db) =>
  withSystemScope(db, 'test: the whole outbox', (tx) => tx.select().from(webhookDeliveries));

describe.each(testDatabaseKinds())('webhook deliveries on %s', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(() => database?.destroy());

  it('a run status writes one delivery per subscribed, enabled webhook, in the same transaction', async () => {
    const { db } = database;
    const { tenant, agent, startRun } = await tenantWithAgent(db);
    const run = await startRun();
    await checkpointRun(db, run, run.fence, [{ role: 'assistant', content: [{ type: 'text', text: 'Booked.' }] }], {
      usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    // A stale attempt writes neither the status nor a delivery.
    expect(await finishRunFenced(db, run, run.fence - 1, { status: 'completed' })).toBe(false);
    expect(await listWebhookDeliveries(db, tenant.id, { limit: 10, runId: run.id })).toEqual([]);
    expect(await finishRunFenced(db, run, run.fence, { status: 'completed' })).toBe(true);
    const [delivery, ...rest] = await listWebhookDeliveries(db, tenant.id, { limit: 10, runId: run.id });
    expect(rest).toEqual([]);
    expect(delivery).toMatchObject({
      event: 'run.completed',
      url: 'https://a.example.com/h',
      signingSecret: 'A_SECRET',
      status: 'pending',
      attempts: 0,
      agentId: agent.id,
    });
    expect(delivery!.payload).toEqual({
      type: 'run.completed',
      id: delivery!.id,
      created_at: delivery!.createdAt.toISOString(),
      data: expect.objectContaining({
        run_id: run.id,
        conversation_id: run.conversationId,
        agent_id: agent.id,
        status: 'completed',
        output: 'Booked.',
        pending: null,
        reason: null,
        usage: expect.objectContaining({ input_tokens: 10, output_tokens: 5, total_tokens: 15 }),
      }),
    });
    // Key order is kept (json, not jsonb): every attempt sends the same bytes.
    expect(Object.keys(delivery!.payload)).toEqual(['type', 'id', 'created_at', 'data']);
  });

  it('failed, cancelled and waiting runs: their own events, reason and pending calls', async () => {
    const { db } = database;
    const { tenant, startRun } = await tenantWithAgent(db);
    const failed = await startRun();
    await finishRunFenced(db, failed, failed.fence, {
      status: 'failed',
      error: { code: 'model_error', message: 'The model failed', category: 'upstream', retryable: false },
    });
    const [f] = await listWebhookDeliveries(db, tenant.id, { limit: 10, runId: failed.id });
    expect([f?.event, f?.url, f?.headers]).toEqual(['run.failed', 'https://b.example.com/h', { 'X-T': 'v' }]);
    expect(f?.payload.data).toMatchObject({ status: 'failed', reason: 'The model failed', error_code: 'model_error' });

    const waiting = await startRun();
    const pending = [{ tool_call_id: 'c1', name: 'book', arguments: { day: 'mon' }, kind: 'approval' }];
    expect(await markRunWaiting(db, waiting, waiting.fence, pending)).toBe(true);
    const [w] = await listWebhookDeliveries(db, tenant.id, { limit: 10, runId: waiting.id });
    expect(w?.event).toBe('run.waiting');
    expect(w?.payload.data).toMatchObject({ status: 'waiting', pending, output: null });

    // No webhook subscribes to run.cancelled: nothing is written.
    const cancelled = await startRun();
    expect(await finishRunUnfenced(db, cancelled, { status: 'cancelled' })).toBe(true);
    expect(await listWebhookDeliveries(db, tenant.id, { limit: 10, runId: cancelled.id })).toEqual([]);
  });

  it('claims due deliveries once, re-claims after the lease, and fences results by attempt', async () => {
    const { db } = database;
    const { tenant, startRun } = await tenantWithAgent(db);
    await claimDueDeliveries(db, { limit: 100, leaseMs: 60_000 }); // earlier tests' rows out of the way
    const run = await startRun();
    await finishRunFenced(db, run, run.fence, { status: 'completed' });
    const [first] = await claimDueDeliveries(db, { limit: 10, leaseMs: 150 });
    expect(first?.runId).toBe(run.id);
    expect([first?.status, first?.attempts]).toEqual(['sending', 1]);
    // Leased: no other dispatcher gets it.
    expect(await claimDueDeliveries(db, { limit: 10, leaseMs: 150 })).toEqual([]);
    // The first dispatcher "died" between claim and send: after the lease another takes it over.
    await sleep(250);
    const [again] = await claimDueDeliveries(db, { limit: 10, leaseMs: 60_000 });
    expect([again?.id, again?.attempts]).toEqual([first!.id, 2]);
    // The first claim's late result is refused; the current one is recorded.
    expect(await recordDeliveryAttempt(db, first!, { outcome: 'delivered', statusCode: 200 })).toBe(false);
    expect(
      await recordDeliveryAttempt(db, again!, {
        outcome: 'retry',
        retryInMs: 100,
        statusCode: 503,
        error: { code: 'http_503', message: 'busy' },
      }),
    ).toBe(true);
    expect(await claimDueDeliveries(db, { limit: 10, leaseMs: 60_000 })).toEqual([]); // not due yet
    await sleep(150);
    const [third] = await claimDueDeliveries(db, { limit: 10, leaseMs: 60_000 });
    expect([third?.attempts, third?.lastStatusCode, third?.lastError?.code]).toEqual([3, 503, 'http_503']);
    expect(await recordDeliveryAttempt(db, third!, { outcome: 'delivered', statusCode: 204 })).toBe(true);
    const done = await getWebhookDelivery(db, tenant.id, first!.id);
    expect([done?.status, done?.attempts, done?.lastError, done?.finishedAt]).toEqual([
      'delivered',
      3,
      null,
      expect.any(Date),
    ]);
  });

  it('concurrent claims never share a delivery (FOR UPDATE SKIP LOCKED)', async () => {
    const { db } = database;
    const { startRun } = await tenantWithAgent(db);
    await claimDueDeliveries(db, { limit: 100, leaseMs: 60_000 });
    for (let i = 0; i < 6; i++) {
      const run = await startRun();
      await finishRunFenced(db, run, run.fence, { status: 'completed' });
    }
    const claims = await Promise.all(
      Array.from({ length: 4 }, () => claimDueDeliveries(db, { limit: 2, leaseMs: 60_000 })),
    );
    const ids = claims.flat().map((d) => d.id);
    expect(ids.length).toBe(6);
    expect(new Set(ids).size).toBe(6);
  });

  it('lists a tenant’s deliveries with filters and pages; retries only failed ones, only its own', async () => {
    const { db } = database;
    const a = await tenantWithAgent(db);
    const b = await tenantWithAgent(db);
    await claimDueDeliveries(db, { limit: 100, leaseMs: 60_000 });
    const runs = [];
    for (let i = 0; i < 3; i++) {
      const run = await a.startRun();
      await finishRunFenced(db, run, run.fence, { status: 'completed' });
      runs.push(run);
    }
    const bRun = await b.startRun();
    await finishRunFenced(db, bRun, bRun.fence, { status: 'completed' });
    const claimed = await claimDueDeliveries(db, { limit: 100, leaseMs: 60_000 });
    const byRun = new Map(claimed.map((d) => [d.runId, d] as const));
    const failed = byRun.get(runs[0]!.id)!;
    await recordDeliveryAttempt(db, failed, {
      outcome: 'failed',
      statusCode: 400,
      error: { code: 'http_400', message: 'no' },
    });

    const page1 = await listWebhookDeliveries(db, a.tenant.id, { limit: 2 });
    const page2 = await listWebhookDeliveries(db, a.tenant.id, { limit: 2, before: page1.at(-1)!.id });
    expect([...page1, ...page2].map((d) => d.runId)).toEqual([runs[2]!.id, runs[1]!.id, runs[0]!.id]);
    expect((await listWebhookDeliveries(db, a.tenant.id, { limit: 10, status: 'failed' })).map((d) => d.id)).toEqual([
      failed.id,
    ]);
    expect(await listWebhookDeliveries(db, a.tenant.id, { limit: 10, runId: bRun.id })).toEqual([]);

    const other = byRun.get(bRun.id)!;
    expect(await retryWebhookDelivery(db, a.tenant.id, other.id)).toBeUndefined();
    expect(await getWebhookDelivery(db, a.tenant.id, other.id)).toBeUndefined();
    expect(await retryWebhookDelivery(db, a.tenant.id, byRun.get(runs[1]!.id)!.id)).toBe('not_failed');
    const retried = (await retryWebhookDelivery(db, a.tenant.id, failed.id)) as WebhookDelivery;
    expect([retried.status, retried.attempts, retried.finishedAt]).toEqual(['pending', 0, null]);
    const [reclaimed] = await claimDueDeliveries(db, { limit: 10, leaseMs: 60_000 });
    expect([reclaimed?.id, reclaimed?.attempts]).toEqual([failed.id, 1]);
    expect((await allDeliveries(db)).length).toBeGreaterThan(4);
  });
});
