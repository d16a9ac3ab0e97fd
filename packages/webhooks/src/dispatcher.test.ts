import { createHmac, randomBytes } from 'node:crypto';
import {
  claimDueDeliveries,
  claimRun,
  createAgent,
  createConversation,
  createRunForMessage,
  createTenantWithKey,
  type Db,
  finishRunFenced,
  getWebhookDelivery,
  listWebhookDeliveries,
  putSecret,
  updateTenant,
  type WebhookDelivery,
  webhookDeliveries,
  withSystemScope,
} from '@agentry/db';
import { createEgressPolicy } from '@agentry/http-tools';
import { openSecrets, secretContext } from '@agentry/run-service';
import { createSecretBox } from '@agentry/secrets';
import { createMetrics } from '@agentry/telemetry';
import {
  createTestDatabase,
  type RecordingServer,
  startRecordingServer,
  type TestDatabase,
  testDatabaseKinds,
} from '@agentry/testkit';
import { inArray } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWebhookDispatcher, type WebhookDispatcherOptions } from './dispatcher.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const box = createSecretBox({ keys: { k1: randomBytes(32) }, currentKeyId: 'k1' });
const WHSEC = `whsec_${randomBytes(24).toString('base64')}`;
const RAW_SECRET = 'a plain shared secret ✓';
const HOOK_TOKEN = 'tok-9f8e7d-never-in-payloads';
const egress = createEgressPolicy({ allowlist: ['127.0.0.1'] });
const fast = { backoffBaseMs: 40, backoffMaxMs: 1000, maxAttempts: 4, timeoutMs: 2000 };

/** What the apps pass as `openSecrets`: the run service's, over the process's secret box. */
const secretOpener =
  (db: Db): WebhookDispatcherOptions['openSecrets'] =>
  (tenantId, names) =>
    openSecrets(db, box, tenantId, names);

describe.each(testDatabaseKinds())('webhook dispatcher on %s', (kind) => {
  let database: TestDatabase;
  let db: Db;
  let receiver: RecordingServer;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    db = database.db;
    receiver = await startRecordingServer();
  });
  afterAll(async () => {
    await receiver?.close();
    await database?.destroy();
  });
  beforeEach(async () => {
    receiver.reset();
    // Nothing left open from an earlier case (retries it scheduled would be sent in this one).
    await withSystemScope(db, 'test: close the outbox', (tx) =>
      tx
        .update(webhookDeliveries)
        .set({ status: 'failed' })
        .where(inArray(webhookDeliveries.status, ['pending', 'sending'])),
    );
  });

  /** A tenant whose agent has `webhooks`, its secrets stored; `finish()` ends a run and returns its delivery. */
  async function setUp(webhooks: Array<Record<string, unknown>>, secrets: Record<string, string> = {}) {
    const { tenant } = await createTenantWithKey(db, {
      name: 'T',
      key: { prefix: 'sk_t', hash: randomBytes(8).toString('hex') },
    });
    for (const [name, value] of Object.entries(secrets)) {
      await putSecret(db, tenant.id, name, box.seal(value, secretContext(tenant.id, name)));
    }
    const { agent } = await createAgent(db, {
      tenantId: tenant.id,
      name: 'Bot',
      config: { basic_settings: { name: 'Bot' }, webhooks },
      contentHash: 'h',
      publish: true,
    });
    const finish = async (): Promise<WebhookDelivery> => {
      const conv = await createConversation(db, {
        tenantId: tenant.id,
        agentId: agent.id,
        agentVersion: null,
        context: {},
      });
      const created = await createRunForMessage(db, {
        tenantId: tenant.id,
        conversationId: conv.id,
        agentId: agent.id,
        agentVersion: 1,
        traceId: 'trace',
        message: { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      });
      const run = (await claimRun(db, created.run))!;
      await finishRunFenced(db, run, run.fence, { status: 'completed' });
      const [delivery] = await listWebhookDeliveries(db, tenant.id, { limit: 1, runId: run.id });
      return delivery!;
    };
    return { tenant, finish };
  }

  const hook = (extra: Record<string, unknown> = {}) => ({
    url: `${receiver.url}/hooks`,
    events: ['run.completed'],
    signing_secret: 'HOOK_SECRET',
    ...extra,
  });
  const dispatcher = (extra: Partial<WebhookDispatcherOptions> = {}) =>
    createWebhookDispatcher({ db, openSecrets: secretOpener(db), egress, settings: fast, ...extra });

  /** Runs dispatch rounds until the delivery is final (or `timeoutMs`). */
  async function settle(d: ReturnType<typeof dispatcher>, delivery: WebhookDelivery, timeoutMs = 5000) {
    const until = Date.now() + timeoutMs;
    for (;;) {
      await d.runOnce();
      const row = (await getWebhookDelivery(db, delivery.tenantId, delivery.id))!;
      if (row.status === 'delivered' || row.status === 'failed' || Date.now() > until) return row;
      await sleep(10);
    }
  }

  it('sends one signed delivery that verifies with the secret (Standard Webhooks), and counts it', async () => {
    const { finish } = await setUp([hook({ headers: { Authorization: 'Bearer {{secrets.HOOK_TOKEN}}' } })], {
      HOOK_SECRET: WHSEC,
      HOOK_TOKEN,
    });
    const delivery = await finish();
    const metrics = createMetrics({ defaultMetrics: false });
    const row = await settle(dispatcher({ metrics }), delivery);
    expect([row.status, row.attempts, row.lastStatusCode]).toEqual(['delivered', 1, 200]);
    const [req] = receiver.requests;
    expect(receiver.requests.length).toBe(1);
    expect(req!.method).toBe('POST');
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.headers.authorization).toBe(`Bearer ${HOOK_TOKEN}`);
    expect(req!.headers['webhook-id']).toBe(delivery.id);
    // The receiver's side, with the maintained library …
    const verified = new Webhook(WHSEC).verify(req!.bodyText, req!.headers) as Record<string, any>;
    expect(verified).toMatchObject({ type: 'run.completed', id: delivery.id, data: { status: 'completed' } });
    // … and by hand: v1,<base64 HMAC-SHA256 of "id.timestamp.body"> with the decoded key.
    const key = Buffer.from(WHSEC.slice('whsec_'.length), 'base64');
    const signed = `${req!.headers['webhook-id']}.${req!.headers['webhook-timestamp']}.${req!.bodyText}`;
    expect(req!.headers['webhook-signature']).toBe(`v1,${createHmac('sha256', key).update(signed).digest('base64')}`);
    expect(() =>
      new Webhook(`whsec_${randomBytes(24).toString('base64')}`).verify(req!.bodyText, req!.headers),
    ).toThrow();
    // Secrets never travel in the body, nor are they stored with the delivery.
    expect(req!.bodyText).not.toContain(HOOK_TOKEN);
    expect(req!.bodyText).not.toContain(WHSEC.slice(6));
    expect(JSON.stringify(row)).not.toContain(HOOK_TOKEN);
    expect(row.headers).toEqual({ Authorization: 'Bearer {{secrets.HOOK_TOKEN}}' });
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/agentry_webhook_attempts_total\{outcome="delivered"\} 1/);
    expect(text).toMatch(/agentry_webhook_delivery_latency_seconds_count 1/);
  });

  it('a secret that is not whsec_ signs as raw UTF-8 bytes', async () => {
    const { finish } = await setUp([hook()], { HOOK_SECRET: RAW_SECRET });
    const row = await settle(dispatcher(), await finish());
    expect(row.status).toBe('delivered');
    const [req] = receiver.requests;
    const signed = `${req!.headers['webhook-id']}.${req!.headers['webhook-timestamp']}.${req!.bodyText}`;
    const expected = createHmac('sha256', Buffer.from(RAW_SECRET, 'utf8')).update(signed).digest('base64');
    expect(req!.headers['webhook-signature']).toBe(`v1,${expected}`);
    expect(
      new Webhook(new TextEncoder().encode(RAW_SECRET), { format: 'raw' }).verify(req!.bodyText, req!.headers),
    ).toBeTruthy();
  });

  it('500, 500, then 200: delivered on the 3rd attempt, after growing backoff, same id and body', async () => {
    const { finish } = await setUp([hook()], { HOOK_SECRET: WHSEC });
    let calls = 0;
    receiver.respondWith(() => (++calls <= 2 ? { status: 500, body: 'down for maintenance' } : { status: 204 }));
    const delivery = await finish();
    const settings = { ...fast, backoffBaseMs: 300 };
    const d = dispatcher({ settings });
    expect(await d.runOnce()).toBe(1);
    const afterFirst = (await getWebhookDelivery(db, delivery.tenantId, delivery.id))!;
    expect([afterFirst.status, afterFirst.lastStatusCode, afterFirst.lastError]).toEqual([
      'pending',
      500,
      { code: 'http_500', message: 'The receiver answered 500: down for maintenance' },
    ]);
    expect(await d.runOnce()).toBe(0); // not due yet: backoff (150–300 ms)
    const row = await settle(d, delivery);
    expect([row.status, row.attempts, row.lastStatusCode, row.lastError]).toEqual(['delivered', 3, 204, null]);
    const [r1, r2, r3] = receiver.requests;
    expect(receiver.requests.length).toBe(3);
    // Equal jitter: at least half of base × 2^(n−1) between attempts.
    expect(r2!.receivedAt - r1!.receivedAt).toBeGreaterThanOrEqual(settings.backoffBaseMs / 2);
    expect(r3!.receivedAt - r2!.receivedAt).toBeGreaterThanOrEqual(settings.backoffBaseMs);
    expect(new Set(receiver.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([delivery.id]));
    expect(new Set(receiver.requests.map((r) => r.bodyText)).size).toBe(1);
  });

  it('400: failed at once, with the status and the receiver’s answer kept', async () => {
    const { finish } = await setUp([hook()], { HOOK_SECRET: WHSEC });
    receiver.respondWith(() => ({ status: 400, body: { error: 'unknown event' } }));
    const row = await settle(dispatcher(), await finish());
    expect([row.status, row.attempts, row.lastStatusCode, row.lastError?.code]).toEqual(['failed', 1, 400, 'http_400']);
    expect(row.lastError?.message).toContain('unknown event');
    expect(receiver.requests.length).toBe(1);
  });

  it('429 with Retry-After: the next attempt waits at least that long', async () => {
    const { finish } = await setUp([hook()], { HOOK_SECRET: WHSEC });
    receiver.respondWith(() => ({ status: 429, headers: { 'retry-after': '30' } }));
    const delivery = await finish();
    const before = Date.now();
    await dispatcher().runOnce();
    const row = (await getWebhookDelivery(db, delivery.tenantId, delivery.id))!;
    expect([row.status, row.lastError?.code]).toEqual(['pending', 'http_429']);
    expect(row.nextAttemptAt.getTime() - before).toBeGreaterThanOrEqual(29_000);
  });

  it('gives up after maxAttempts with the last error', async () => {
    const { finish } = await setUp([hook()], { HOOK_SECRET: WHSEC });
    receiver.respondWith(() => ({ status: 503 }));
    const row = await settle(dispatcher({ settings: { ...fast, maxAttempts: 2 } }), await finish());
    expect([row.status, row.attempts, row.lastStatusCode, row.lastError?.code]).toEqual(['failed', 2, 503, 'http_503']);
    expect(row.lastError?.message).toContain('gave up after 2 attempts');
    expect(receiver.requests.length).toBe(2);
  });

  it('a private address is refused by the egress guard: failed with its code, nothing sent', async () => {
    const { finish } = await setUp([hook({ url: 'http://169.254.169.254/latest/meta-data' })], {
      HOOK_SECRET: WHSEC,
    });
    const row = await settle(dispatcher(), await finish());
    expect([row.status, row.attempts, row.lastError?.code]).toEqual(['failed', 1, 'egress_forbidden_address']);
    expect(receiver.requests.length).toBe(0);
  });

  it('the tenant’s own allowlist opens a private receiver the platform’s does not', async () => {
    const { tenant, finish } = await setUp([hook()], { HOOK_SECRET: WHSEC });
    const strict = dispatcher({ egress: createEgressPolicy() });
    expect((await settle(strict, await finish())).lastError?.code).toBe('egress_forbidden_address');
    await updateTenant(db, tenant.id, { egressAllowlist: ['127.0.0.1'] });
    expect((await settle(strict, await finish())).status).toBe('delivered');
  });

  it('a redirect is not followed: failed at once', async () => {
    const { finish } = await setUp([hook()], { HOOK_SECRET: WHSEC });
    receiver.respondWith(() => ({ status: 307, headers: { location: 'http://169.254.169.254/' } }));
    const row = await settle(dispatcher(), await finish());
    expect([row.status, row.lastError?.code]).toEqual(['failed', 'egress_too_many_redirects']);
    expect(receiver.requests.length).toBe(1);
  });

  it('a receiver that cannot be reached, or is too slow, is retried', async () => {
    const { finish } = await setUp([hook({ url: 'http://127.0.0.1:9/closed' })], { HOOK_SECRET: WHSEC });
    const unreachable = await finish();
    await dispatcher().runOnce();
    const row = (await getWebhookDelivery(db, unreachable.tenantId, unreachable.id))!;
    expect([row.status, row.lastError?.code]).toEqual(['pending', 'webhook_network_error']);

    const slow = await setUp([hook()], { HOOK_SECRET: WHSEC });
    receiver.respondWith(() => ({ status: 200, delayMs: 600 }));
    const delivery = await slow.finish();
    await dispatcher({ settings: { ...fast, timeoutMs: 200 } }).runOnce();
    const timedOut = (await getWebhookDelivery(db, delivery.tenantId, delivery.id))!;
    expect([timedOut.status, timedOut.lastError?.code]).toEqual(['pending', 'webhook_timeout']);
  });

  it('a missing signing secret is retried (the tenant can add it), never sent unsigned', async () => {
    const { finish } = await setUp([hook()]);
    const delivery = await finish();
    await dispatcher().runOnce();
    const row = (await getWebhookDelivery(db, delivery.tenantId, delivery.id))!;
    expect([row.status, row.lastError?.code]).toEqual(['pending', 'missing_secret']);
    expect(receiver.requests.length).toBe(0);
  });

  it('a dispatcher killed between claim and send: another sends the delivery once the lease ends', async () => {
    const { finish } = await setUp([hook()], { HOOK_SECRET: WHSEC });
    const delivery = await finish();
    // The "dead" dispatcher: it claimed and never sent nor recorded anything.
    const [claimed] = await claimDueDeliveries(db, { limit: 10, leaseMs: 200 });
    expect(claimed?.id).toBe(delivery.id);
    const survivor = dispatcher();
    expect(await survivor.runOnce()).toBe(0); // still leased
    await sleep(250);
    const row = await settle(survivor, delivery);
    expect([row.status, row.attempts]).toEqual(['delivered', 2]);
    expect(receiver.requests.length).toBe(1);
  });

  it('polls on its own once started, and stops', async () => {
    const { finish } = await setUp([hook()], { HOOK_SECRET: WHSEC });
    const d = dispatcher({ settings: { ...fast, pollMs: 20 } });
    d.start();
    try {
      const delivery = await finish();
      await receiver.waitForRequests(1, 3000);
      await sleep(50);
      expect((await getWebhookDelivery(db, delivery.tenantId, delivery.id))?.status).toBe('delivered');
    } finally {
      await d.stop(1000);
    }
  });
});
