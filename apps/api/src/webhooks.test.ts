import { createHmac, randomBytes } from 'node:crypto';
import { type RecordedHttpRequest, type RecordingServer, startRecordingServer } from '@agentry/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  call,
  createTenant,
  type Harness,
  runModes,
  seedConfig,
  startHarness,
  waitForRun,
} from './test-support/harness.ts';

const modes = runModes('webhooks');

const WHSEC = `whsec_${randomBytes(24).toString('base64')}`;
const CRM_TOKEN = 'crm-token-never-in-webhooks';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A receiver's check, per the Standard Webhooks spec: `v1,` + base64 HMAC-SHA256 of
 * `id.timestamp.body` under the base64-decoded `whsec_` key, timestamp within 5 minutes.
 */
function verify(req: RecordedHttpRequest, secret: string): any {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const id = req.headers['webhook-id'];
  const timestamp = Number(req.headers['webhook-timestamp']);
  if (!id || Math.abs(Date.now() / 1000 - timestamp) > 300) throw new Error('bad webhook-id or timestamp');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${req.bodyText}`).digest('base64');
  const signatures = (req.headers['webhook-signature'] ?? '').split(' ');
  if (!signatures.includes(`v1,${expected}`)) throw new Error('no matching signature');
  return JSON.parse(req.bodyText);
}

/**
 * Webhooks end to end: a run's status is recorded with its outbox row, the dispatcher (in the
 * embedded process, or in the separate worker process in production mode) signs and sends it to a
 * real HTTP receiver, retries, and the API lists and re-sends deliveries, per tenant.
 */
describe.each(modes)('webhooks (%s)', (mode) => {
  let h: Harness;
  let receiver: RecordingServer;
  let key: string;
  let otherKey: string;
  let agentId: string;
  let privateAgentId: string;

  /** Deliveries the receiver got for one run. */
  const received = (runId: string) => receiver.requests.filter((r) => (r.json as any)?.data?.run_id === runId);
  const waitFor = async <T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000): Promise<T> => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > until) throw new Error('timed out waiting');
      await sleep(50);
    }
  };
  const deliveries = async (runId: string, k = key) =>
    (await call(h, 'GET', `/v1/webhook-deliveries?run_id=${runId}`, { key: k })).json.data as any[];
  const settled = (runId: string, n = 1) =>
    waitFor(async () => {
      const list = await deliveries(runId);
      return list.length >= n && list.every((d) => d.status === 'delivered' || d.status === 'failed')
        ? list
        : undefined;
    });

  const chat = async (agent: string, turns: Parameters<Harness['llm']['enqueue']>) => {
    const conv = (await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agent } })).json.id;
    h.llm.enqueue(...turns);
    return (await call(h, 'POST', `/v1/conversations/${conv}/messages`, { key, body: { content: 'go' } })).json;
  };

  beforeAll(async () => {
    receiver = await startRecordingServer();
    h = await startHarness(mode, 'openai', {
      env: {
        SECRETS_KEY: randomBytes(32).toString('base64'),
        WEBHOOK_BACKOFF_BASE_MS: '100',
        WEBHOOK_BACKOFF_MAX_MS: '400',
        WEBHOOK_MAX_ATTEMPTS: '4',
        WEBHOOK_POLL_MS: '50',
      },
    });
    key = await createTenant(h, 'Hooks');
    otherKey = await createTenant(h, 'Other');
    for (const [name, value] of [
      ['HOOK_SECRET', WHSEC],
      ['CRM_TOKEN', CRM_TOKEN],
    ]) {
      expect((await call(h, 'PUT', `/v1/secrets/${name}`, { key, body: { value } })).status).toBe(201);
    }
    const config = seedConfig();
    config.tools[0].endpoint.url = `${h.endpoint.url}/contacts/add`;
    config.tools[0].endpoint.headers = { 'X-Api-Key': '{{secrets.CRM_TOKEN}}' };
    config.tools[0].approval = 'always';
    config.webhooks = [
      {
        url: `${receiver.url}/hooks`,
        events: ['run.completed', 'run.failed', 'run.waiting'],
        signing_secret: 'HOOK_SECRET',
        headers: { 'X-Hook-Source': 'agentry-test' },
      },
      { url: `${receiver.url}/disabled`, events: ['run.completed'], signing_secret: 'HOOK_SECRET', enabled: false },
    ];
    const agent = await call(h, 'POST', '/v1/agents', { key, body: { config } });
    expect(agent.status, JSON.stringify(agent.json)).toBe(201);
    agentId = agent.json.id;
    const privateConfig = seedConfig();
    privateConfig.webhooks = [
      { url: 'http://10.20.30.40/hooks', events: ['run.completed'], signing_secret: 'HOOK_SECRET' },
    ];
    privateAgentId = (await call(h, 'POST', '/v1/agents', { key, body: { config: privateConfig } })).json.id;
  }, 90_000);
  afterAll(async () => {
    await h?.close();
    await receiver?.close();
  });
  beforeEach(() => receiver.reset());

  it('a completed run: one signed delivery that verifies with the secret, no secrets in it', async () => {
    const run = await chat(agentId, [{ type: 'reply', text: 'All booked for Monday.' }]);
    expect(run.status).toBe('completed');
    const [delivery] = await settled(run.id);
    expect(delivery).toMatchObject({
      object: 'webhook_delivery',
      run_id: run.id,
      agent_id: agentId,
      event: 'run.completed',
      url: `${receiver.url}/hooks`,
      status: 'delivered',
      attempts: 1,
      last_status_code: 200,
      last_error: null,
      next_attempt_at: null,
    });
    const requests = received(run.id);
    expect(requests.length).toBe(1); // the disabled webhook sent nothing
    const [req] = requests as [RecordedHttpRequest];
    expect(req.path).toBe('/hooks');
    expect(req.headers['x-hook-source']).toBe('agentry-test');
    expect(req.headers['webhook-id']).toBe(delivery.id);
    const body = verify(req, WHSEC);
    expect(body).toEqual({
      type: 'run.completed',
      id: delivery.id,
      created_at: expect.any(String),
      data: expect.objectContaining({
        run_id: run.id,
        conversation_id: run.conversation_id,
        agent_id: agentId,
        status: 'completed',
        output: 'All booked for Monday.',
        pending: null,
        usage: expect.objectContaining({ total_tokens: run.meta.total_tokens }),
      }),
    });
    expect(() => verify(req, `whsec_${randomBytes(24).toString('base64')}`)).toThrow('no matching signature');
    for (const secret of [CRM_TOKEN, WHSEC, WHSEC.slice('whsec_'.length)]) expect(req.bodyText).not.toContain(secret);
    expect((await call(h, 'GET', `/v1/webhook-deliveries/${delivery.id}`, { key })).json).toEqual(delivery);
  });

  it('a run waiting for approval: run.waiting with the pending call, then run.completed', async () => {
    const run = await chat(agentId, [
      {
        type: 'reply',
        toolCalls: [{ id: 'call_ok', name: 'save_customer_information', arguments: { email: 'a@b.co' } }],
      },
      { type: 'reply', text: 'Saved.' },
    ]);
    expect(run.status).toBe('waiting');
    const [waiting] = await settled(run.id);
    expect([waiting.event, waiting.status]).toEqual(['run.waiting', 'delivered']);
    const [req] = received(run.id);
    const body = verify(req!, WHSEC);
    expect(body.data).toMatchObject({
      status: 'waiting',
      output: null,
      pending: [
        {
          tool_call_id: 'call_ok',
          name: 'save_customer_information',
          arguments: { email: 'a@b.co' },
          kind: 'approval',
        },
      ],
    });
    await call(h, 'POST', `/v1/runs/${run.id}/tool-results`, {
      key,
      body: { results: [{ tool_call_id: 'call_ok', decision: 'approve' }] },
    });
    expect((await waitForRun(h, key, run.id)).status).toBe('completed');
    const both = await settled(run.id, 2);
    expect(both.map((d) => d.event).sort()).toEqual(['run.completed', 'run.waiting']);
    // The tool's secret header and its output stay server-side.
    for (const r of received(run.id)) expect(r.bodyText).not.toContain(CRM_TOKEN);
  });

  it('a failed run: run.failed with the reason', async () => {
    const run = await chat(agentId, [{ type: 'error', status: 400, message: 'bad request to the model' }]);
    const done = await waitForRun(h, key, run.id);
    expect(done.status).toBe('failed');
    const [delivery] = await settled(run.id);
    expect([delivery.event, delivery.status]).toEqual(['run.failed', 'delivered']);
    const data = (received(run.id)[0]!.json as any).data;
    expect(data).toMatchObject({ status: 'failed', error_code: done.error.code, output: null });
    expect(typeof data.reason).toBe('string');
  });

  it('receiver answers 500 twice, then 200: delivered on the 3rd attempt, after backoff', async () => {
    let calls = 0;
    receiver.respondWith(() => (++calls <= 2 ? { status: 500, body: 'oops' } : { status: 200 }));
    const run = await chat(agentId, [{ type: 'reply', text: 'Done.' }]);
    const [delivery] = await settled(run.id);
    expect([delivery.status, delivery.attempts, delivery.last_status_code]).toEqual(['delivered', 3, 200]);
    const [r1, r2, r3] = received(run.id);
    expect(r2!.receivedAt - r1!.receivedAt).toBeGreaterThanOrEqual(50); // ≥ base/2
    expect(r3!.receivedAt - r2!.receivedAt).toBeGreaterThanOrEqual(100); // ≥ base
    expect(new Set([r1, r2, r3].map((r) => r!.headers['webhook-id']))).toEqual(new Set([delivery.id]));
  });

  it('receiver answers 400: failed at once; the retry endpoint sends it again', async () => {
    receiver.respondWith(() => ({ status: 400, body: { error: 'nope' } }));
    const run = await chat(agentId, [{ type: 'reply', text: 'Hi.' }]);
    const [failed] = await settled(run.id);
    expect([failed.status, failed.attempts, failed.last_status_code, failed.last_error.code]).toEqual([
      'failed',
      1,
      400,
      'http_400',
    ]);
    expect(received(run.id).length).toBe(1);
    const listed = (await call(h, 'GET', '/v1/webhook-deliveries?status=failed', { key })).json.data;
    expect(listed.map((d: any) => d.id)).toContain(failed.id);

    receiver.respondWith(() => ({ status: 202 }));
    const retried = await call(h, 'POST', `/v1/webhook-deliveries/${failed.id}/retry`, { key });
    expect(retried.status).toBe(202);
    expect([retried.json.status, retried.json.attempts]).toEqual(['pending', 0]);
    const [delivered] = await settled(run.id);
    expect([delivered.status, delivered.attempts, delivered.last_status_code]).toEqual(['delivered', 1, 202]);
    expect(received(run.id).map((r) => r.headers['webhook-id'])).toEqual([failed.id, failed.id]);
    const again = await call(h, 'POST', `/v1/webhook-deliveries/${failed.id}/retry`, { key });
    expect([again.status, again.json.code]).toEqual([409, 'webhook_delivery_not_failed']);
    const audit = (await call(h, 'GET', '/v1/audit-events', { key })).json.data;
    expect(audit.some((e: any) => e.action === 'webhook_delivery.retried' && e.target.id === failed.id)).toBe(true);
  });

  it('a private address: refused by the egress guard, recorded as failed with its code', async () => {
    const run = await chat(privateAgentId, [{ type: 'reply', text: 'Hi.' }]);
    const [delivery] = await settled(run.id);
    expect([delivery.status, delivery.last_error.code, delivery.last_status_code]).toEqual([
      'failed',
      'egress_forbidden_address',
      null,
    ]);
  });

  it('another tenant sees none of it: lists are empty, ids answer 404', async () => {
    const run = await chat(agentId, [{ type: 'reply', text: 'Mine.' }]);
    const [delivery] = await settled(run.id);
    const theirs = await call(h, 'GET', '/v1/webhook-deliveries', { key: otherKey });
    expect([theirs.status, theirs.json.data]).toEqual([200, []]);
    expect((await call(h, 'GET', `/v1/webhook-deliveries?run_id=${run.id}`, { key: otherKey })).json.data).toEqual([]);
    for (const [method, path] of [
      ['GET', `/v1/webhook-deliveries/${delivery.id}`],
      ['POST', `/v1/webhook-deliveries/${delivery.id}/retry`],
      ['POST', `/v1/webhook-deliveries/${crypto.randomUUID()}/retry`],
      ['GET', '/v1/webhook-deliveries/not-an-id'],
    ] as const) {
      const res = await call(h, method, path, { key: otherKey });
      expect([res.status, res.json.code], `${method} ${path}`).toEqual([404, 'webhook_delivery_not_found']);
    }
    const bad = await call(h, 'GET', '/v1/webhook-deliveries?status=lost', { key });
    expect([bad.status, bad.json.code]).toEqual([400, 'invalid_query']);
    const badRun = await call(h, 'GET', '/v1/webhook-deliveries?run_id=x', { key });
    expect([badRun.status, badRun.json.code]).toEqual([400, 'invalid_query']);
    // A key without the scope is refused.
    const narrow = await call(h, 'POST', '/v1/api-keys', { key, body: { kind: 'secret', scopes: ['runs:read'] } });
    const refused = await call(h, 'GET', '/v1/webhook-deliveries', { key: narrow.json.key });
    expect(refused.status).toBe(403);
    const reader = await call(h, 'POST', '/v1/api-keys', {
      key,
      body: { kind: 'secret', scopes: ['webhook-deliveries:read'] },
    });
    expect((await call(h, 'GET', '/v1/webhook-deliveries?limit=1', { key: reader.json.key })).json.data.length).toBe(1);
  });
});
