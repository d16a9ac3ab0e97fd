import { randomBytes } from 'node:crypto';
import {
  createAgent,
  createConversation,
  createRunForMessage,
  createTenantWithKey,
  getRun,
  listWebhookDeliveries,
  putSecret,
} from '@agentry/db';
import { createEgressPolicy } from '@agentry/http-tools';
import { createInProcessQueue, createMemoryScheduler, DEFAULT_JOB_LOCK_MS, runJobData } from '@agentry/queue';
import { createMemoryBus, createMemoryRunControl } from '@agentry/run-events';
import { secretContext } from '@agentry/run-service';
import { createSecretBox } from '@agentry/secrets';
import {
  createTestDatabase,
  type FakeLlmServer,
  type RecordingServer,
  startFakeLlm,
  startRecordingServer,
  type TestDatabase,
} from '@agentry/testkit';
import { defaultWebhookSettings } from '@agentry/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWorkerTimings, startRunWorker } from './start-run-worker.ts';

describe('the run worker timings', () => {
  it('are one rule for both apps: stale after max(60 s, 2 × lock), give up after 30 min, reconcile every half lock', () => {
    expect(runWorkerTimings()).toEqual({ staleAfterMs: 60_000, giveUpAfterMs: 1_800_000, reconcileEveryMs: 15_000 });
    expect(runWorkerTimings(DEFAULT_JOB_LOCK_MS)).toEqual(runWorkerTimings());
    expect(runWorkerTimings(120_000)).toEqual({
      staleAfterMs: 240_000,
      giveUpAfterMs: 1_800_000,
      reconcileEveryMs: 60_000,
    });
    expect(runWorkerTimings(1000).reconcileEveryMs).toBe(1000);
  });
});

describe('startRunWorker (in-process queue, PGlite)', () => {
  let database: TestDatabase;
  let fake: FakeLlmServer;
  let receiver: RecordingServer;
  beforeAll(async () => {
    database = await createTestDatabase('pglite');
    fake = await startFakeLlm();
    receiver = await startRecordingServer();
  });
  afterAll(async () => {
    await receiver?.close();
    await fake?.close();
    await database?.destroy();
  });

  it('runs a submitted run to its end and sends its signed webhook, then stops', async () => {
    const { db } = database;
    const box = createSecretBox({ keys: { k1: randomBytes(32) }, currentKeyId: 'k1' });
    const { tenant } = await createTenantWithKey(db, { name: 'W', key: { prefix: 'sk_w', hash: 'hash-w' } });
    const whsec = `whsec_${randomBytes(24).toString('base64')}`;
    await putSecret(db, tenant.id, 'HOOK_SECRET', box.seal(whsec, secretContext(tenant.id, 'HOOK_SECRET')));
    const { agent } = await createAgent(db, {
      tenantId: tenant.id,
      name: 'Bot',
      config: {
        basic_settings: { name: 'Bot' },
        webhooks: [{ url: `${receiver.url}/hooks`, events: ['run.completed'], signing_secret: 'HOOK_SECRET' }],
      },
      contentHash: 'h-worker',
      publish: true,
    });
    const conversation = await createConversation(db, {
      tenantId: tenant.id,
      agentId: agent.id,
      agentVersion: null,
      context: {},
    });
    const queue = createInProcessQueue();
    const scheduler = createMemoryScheduler({ perTenant: 2, dispatch: (jobId, data) => queue.enqueue(jobId, data) });
    const events = createMemoryBus();
    const control = createMemoryRunControl();
    const worker = startRunWorker({
      db,
      scheduler,
      events,
      control,
      startWorker: (handler, options) => queue.startWorker(handler, options),
      concurrency: 2,
      models: { openai: { apiKey: 'platform-key', baseURL: fake.openaiBaseUrl }, maxRetries: 0 },
      secretBox: box,
      egress: createEgressPolicy({ allowlist: ['127.0.0.1'] }),
      sweeper: { intervalMs: 60_000, waitingTimeoutSeconds: 60 },
      webhooks: { ...defaultWebhookSettings, pollMs: 20 },
    });
    try {
      fake.enqueue({ type: 'reply', text: 'Hello!' });
      const { run } = await createRunForMessage(db, {
        tenantId: tenant.id,
        conversationId: conversation.id,
        agentId: agent.id,
        agentVersion: 1,
        traceId: 'trace',
        message: { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      });
      await scheduler.submit(runJobData({ ...run, agentVersion: 1 }));
      await receiver.waitForRequests(1, 10_000);
      expect((await getRun(db, tenant.id, run.id))?.status).toBe('completed');
      expect(receiver.requests[0]?.headers['webhook-signature']).toMatch(/^v1,/);
      // The attempt's result is recorded after the receiver answered.
      const delivered = async () => {
        for (const until = Date.now() + 5000; Date.now() < until; await new Promise((r) => setTimeout(r, 20))) {
          const [delivery] = await listWebhookDeliveries(db, tenant.id, { limit: 1, runId: run.id });
          if (delivery?.status === 'delivered') return delivery;
        }
        return undefined;
      };
      expect((await delivered())?.attempts).toBe(1);
    } finally {
      await worker.stop(1000);
      await Promise.all([queue.close(), scheduler.close(), control.close(), events.close()]);
    }
  });
});
