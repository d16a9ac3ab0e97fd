import {
  claimRun,
  createAgent,
  createConversation,
  createRunForMessage,
  createTenantWithKey,
  type Db,
  finishRunFenced,
  getRun,
  listWebhookDeliveries,
  markRunWaiting,
  type Run,
  runs,
  withSystemScope,
} from '@agentry/db';
import { createMemoryScheduler } from '@agentry/queue';
import { createMemoryBus, type RunEvent } from '@agentry/run-events';
import { createTestDatabase, type TestDatabase, testDatabaseKinds } from '@agentry/testkit';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunProcessor } from './execute-run.ts';
import { formatSeconds, type SweeperOptions, sweepStuckRuns } from './sweeper.ts';

/** Moves a run's last sign of life (for a waiting run: when it parked) `seconds` into the past. */
async function age(db: Db, run: Run, seconds: number): Promise<void> {
  await withSystemScope(db, 'test: age a run', (tx) =>
    tx
      .update(runs)
      .set({ heartbeatAt: sql`now() - make_interval(secs => ${seconds})` })
      .where(eq(runs.id, run.id)),
  );
}

describe.each(testDatabaseKinds())('stuck-run sweeper on %s', (kind) => {
  let database: TestDatabase;
  let tenantId: string;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    tenantId = (await createTenantWithKey(database.db, { name: 'S', key: { prefix: 'sk_s', hash: `hash-s-${kind}` } }))
      .tenant.id;
  });
  afterAll(() => database?.destroy());

  /** An agent whose config is `config`, a conversation with it, and a run there parked as waiting. */
  async function waitingRun(config: Record<string, unknown>, parkedSecondsAgo: number) {
    const { db } = database;
    const { agent } = await createAgent(db, {
      tenantId,
      name: 'Bot',
      config,
      contentHash: `h-${Math.random()}`,
      publish: true,
    });
    const conversation = await createConversation(db, { tenantId, agentId: agent.id, agentVersion: null, context: {} });
    const run = await startRun(conversation.id, agent.id);
    const claimed = (await claimRun(db, run))!;
    expect(await markRunWaiting(db, claimed, claimed.fence, [{ tool_call_id: 'c1' }])).toBe(true);
    await age(db, claimed, parkedSecondsAgo);
    return { agent, conversation, run: claimed };
  }
  const startRun = async (conversationId: string, agentId: string) =>
    (
      await createRunForMessage(database.db, {
        tenantId,
        conversationId,
        agentId,
        agentVersion: 1,
        traceId: 'trace',
        message: { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      })
    ).run;
  const sweep = async (overrides: Partial<SweeperOptions> = {}) => {
    const enqueued: string[] = [];
    const events = createMemoryBus();
    // The real scheduler, dispatching into a list instead of a queue.
    const scheduler = createMemoryScheduler({
      perTenant: 100,
      dispatch: async (_jobId, data) => {
        enqueued.push(data.runId);
      },
    });
    const result = await sweepStuckRuns({
      db: database.db,
      scheduler,
      events,
      staleAfterMs: 60_000,
      giveUpAfterMs: 30 * 60_000,
      waitingTimeoutSeconds: 5,
      ...overrides,
    });
    return { result, enqueued, events };
  };
  const finalEvent = async (events: ReturnType<typeof createMemoryBus>, runId: string) => {
    const seen: RunEvent[] = [];
    // The final event ends the subscription; the signal only bounds a failing case.
    for await (const entry of events.subscribe(runId, { signal: AbortSignal.timeout(2000) })) seen.push(entry.event);
    return seen.at(-1);
  };

  it('ends a run waiting past the platform TTL as timed_out, with its reason, event and webhook, and starts the next run', async () => {
    const config = { webhooks: [{ url: 'https://hooks.example/x', events: ['run.timed_out'], signing_secret: 'S' }] };
    const { agent, conversation, run } = await waitingRun(config, 10);
    const next = await startRun(conversation.id, agent.id);
    const { result, enqueued, events } = await sweep();
    expect(result.expired).toBeGreaterThanOrEqual(1);
    const ended = await getRun(database.db, tenantId, run.id);
    expect(ended).toMatchObject({
      status: 'timed_out',
      error: {
        code: 'waiting_timeout',
        message: 'No answer to the pending tool call within 5 s; the run was ended',
        category: 'user',
        retryable: false,
      },
    });
    expect(ended?.finishedAt).toBeInstanceOf(Date);
    expect(enqueued).toContain(next.id);
    expect(await finalEvent(events, run.id)).toMatchObject({
      type: 'run-status',
      status: 'timed_out',
      final: true,
      error: { code: 'waiting_timeout' },
    });
    const deliveries = await listWebhookDeliveries(database.db, tenantId, { limit: 10, runId: run.id });
    expect(deliveries.map((d) => d.event)).toEqual(['run.timed_out']);
    // A second sweep finds nothing more to do for it.
    expect((await sweep()).result.expired).toBe(0);
  });

  it("leaves a run alone within its TTL, and applies the agent's own limits.waiting_timeout either way", async () => {
    const fresh = await waitingRun({}, 2);
    const patient = await waitingRun({ limits: { waiting_timeout: 3600 } }, 10);
    const hasty = await waitingRun({ limits: { waiting_timeout: 1 } }, 2);
    await sweep({ waitingTimeoutSeconds: 5 });
    expect((await getRun(database.db, tenantId, fresh.run.id))?.status).toBe('waiting');
    expect((await getRun(database.db, tenantId, patient.run.id))?.status).toBe('waiting');
    expect(await getRun(database.db, tenantId, hasty.run.id)).toMatchObject({
      status: 'timed_out',
      error: { message: 'No answer to the pending tool call within 1 s; the run was ended' },
    });
  });

  it('does not end a run that was answered (queued again) or parked anew by a newer attempt', async () => {
    const answered = await waitingRun({}, 10);
    await withSystemScope(database.db, 'test: answer a run', (tx) =>
      tx.update(runs).set({ status: 'queued', heartbeatAt: sql`now()` }).where(eq(runs.id, answered.run.id)),
    );
    await sweep();
    expect((await getRun(database.db, tenantId, answered.run.id))?.status).toBe('queued');
    // The race the fence closes: the sweeper read the run parked by attempt 1, which was then
    // answered and parked again by attempt 2 before the sweeper wrote.
    const parked = await waitingRun({}, 10);
    const resumed = (await claimRun(database.db, parked.run))!;
    expect(await markRunWaiting(database.db, resumed, resumed.fence)).toBe(true);
    const error = { code: 'waiting_timeout', message: 'x', category: 'user', retryable: false };
    expect(
      await finishRunFenced(database.db, parked.run, parked.run.fence, { status: 'timed_out', error }, ['waiting']),
    ).toBe(false);
    expect((await getRun(database.db, tenantId, parked.run.id))?.status).toBe('waiting');
  });

  it('queues an abandoned run again, and ends one past the give-up age as run_abandoned', async () => {
    const { db } = database;
    const { agent } = await createAgent(db, {
      tenantId,
      name: 'Bot',
      config: {},
      contentHash: 'h-stale',
      publish: true,
    });
    const started = async () => {
      const conversation = await createConversation(db, {
        tenantId,
        agentId: agent.id,
        agentVersion: null,
        context: {},
      });
      const run = (await claimRun(db, await startRun(conversation.id, agent.id)))!;
      await age(db, run, 120);
      return run;
    };
    const stalled = await started();
    const ancient = await started();
    const longWaited = await started();
    const makeOld = (run: Run) =>
      withSystemScope(db, 'test: an old run', (tx) =>
        tx.update(runs).set({ createdAt: sql`now() - interval '2 hours'` }).where(eq(runs.id, run.id)),
      );
    await makeOld(ancient);
    await age(db, ancient, 2 * 3600); // no sign of life for two hours
    // Created two hours ago (it waited long for an approval), alive two minutes ago: resumed.
    await makeOld(longWaited);
    const { result, enqueued } = await sweep();
    expect(enqueued).toContain(stalled.id);
    expect(enqueued).toContain(longWaited.id);
    expect(result.timedOut).toBeGreaterThanOrEqual(1);
    expect((await getRun(db, tenantId, stalled.id))?.status).toBe('running');
    expect((await getRun(db, tenantId, longWaited.id))?.status).toBe('running');
    expect((await getRun(db, tenantId, ancient.id))?.error?.code).toBe('run_abandoned');
  });

  it("a run waiting behind its conversation's earlier run is neither polled nor resubmitted nor given up", async () => {
    const { db } = database;
    const { agent } = await createAgent(db, {
      tenantId,
      name: 'Bot',
      config: {},
      contentHash: 'h-defer',
      publish: true,
    });
    const conversation = await createConversation(db, { tenantId, agentId: agent.id, agentVersion: null, context: {} });
    const earlier = (await claimRun(db, await startRun(conversation.id, agent.id)))!;
    const later = await startRun(conversation.id, agent.id);
    // Both were created hours ago, the later run never touched: stale, and past the give-up age.
    await withSystemScope(db, 'test: old runs', async (tx) => {
      await tx.update(runs).set({ createdAt: sql`now() - interval '3 hours'` }).where(eq(runs.id, earlier.id));
      await tx.update(runs).set({ createdAt: sql`now() - interval '2 hours'` }).where(eq(runs.id, later.id));
    });
    const processor = createRunProcessor({ db, models: {}, maxAttempts: 3 });
    try {
      // A worker takes its job and ends it (no requeue, no timer): the earlier run still holds the
      // conversation and will submit this one when it ends.
      await processor.process({ id: later.id, data: { runId: later.id, tenantId }, attempt: 1 });
    } finally {
      processor.close();
    }
    expect((await getRun(db, tenantId, later.id))?.status).toBe('queued');
    const { enqueued, result } = await sweep();
    expect(enqueued).not.toContain(later.id);
    expect(result.timedOut).toBe(0);
    const seen = (await getRun(db, tenantId, later.id))!;
    expect(seen.status).toBe('queued');
    // Marked as seen, so the next pass reads other runs first.
    expect(Date.now() - seen.heartbeatAt!.getTime()).toBeLessThan(60_000);
  });

  it('formats the timeout in the unit an operator most likely set', () => {
    expect([
      formatSeconds(86_400),
      formatSeconds(5400),
      formatSeconds(600),
      formatSeconds(90),
      formatSeconds(1),
    ]).toEqual(['24 h', '90 min', '10 min', '90 s', '1 s']);
  });
});
