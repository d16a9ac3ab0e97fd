import { createHash, randomUUID } from 'node:crypto';
import {
  agents,
  answerWaitingRun,
  claimIdempotencyKey,
  createConversation,
  linkIdempotencyKey,
  runs,
  withSystemScope,
  withTenantScope,
} from '@agentry/db';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createTenant,
  type Harness,
  readSse,
  rowCounts,
  seedConfig,
  startHarness,
  waitForRun,
} from '../test-support/harness.ts';

describe('Idempotency-Key on creating POSTs', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    // A lease far shorter than a run's wait: only its renewals keep a live request's key (one case below).
    h = await startHarness('embedded', 'openai', { env: { IDEMPOTENCY_LEASE_MS: '1000' } });
    key = await createTenant(h);
  }, 120_000);
  afterAll(() => h?.close());

  const post = async (path: string, body: unknown, idempotencyKey: string) => {
    const res = await fetch(`${h.platform.url}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'idempotency-key': idempotencyKey,
      },
      body: JSON.stringify(body),
    });
    return { status: res.status, replayed: res.headers.get('idempotent-replayed'), json: await res.json() };
  };

  it('replays the first answer instead of creating twice, and refuses the key for another request', async () => {
    const first = await post('/v1/agents', { config: seedConfig() }, 'create-agent-1');
    const again = await post('/v1/agents', { config: seedConfig() }, 'create-agent-1');
    expect(first.status).toBe(201);
    expect([again.status, again.replayed, again.json.id]).toEqual([201, 'true', first.json.id]);
    expect((await call(h, 'GET', '/v1/agents', { key })).json.data).toHaveLength(1);

    const other = seedConfig();
    other.basic_settings.name = 'Another';
    const reused = await post('/v1/agents', { config: other }, 'create-agent-1');
    expect([reused.status, reused.json.code]).toEqual([422, 'idempotency_key_reused']);
  });

  it('sends one message once even when the client retries it', async () => {
    const agent = await post('/v1/agents', { config: seedConfig() }, 'agent-for-chat');
    const conv = await post('/v1/conversations', { agent_id: agent.json.id }, 'conv-1');
    h.llm.enqueue({ type: 'reply', text: 'Hello once' });
    const first = await post(`/v1/conversations/${conv.json.id}/messages`, { content: 'hi' }, 'msg-1');
    const before = await rowCounts(h);
    const retry = await post(`/v1/conversations/${conv.json.id}/messages`, { content: 'hi' }, 'msg-1');
    expect([retry.replayed, retry.json.id, retry.json.reply]).toEqual(['true', first.json.id, 'Hello once']);
    expect(await rowCounts(h)).toEqual(before);
    expect(h.llm.pending()).toBe(0);
  });

  it('a streamed message is not replayed, but its key still names its run: a retry gets that run, not a second one', async () => {
    const agent = await post('/v1/agents', { config: seedConfig() }, 'agent-for-stream');
    const conv = await post('/v1/conversations', { agent_id: agent.json.id }, 'conv-stream');
    h.llm.enqueue({ type: 'reply', text: 'Streamed once' });
    const stream = await fetch(`${h.platform.url}/v1/conversations/${conv.json.id}/messages`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
        'idempotency-key': 'msg-stream',
      },
      body: JSON.stringify({ content: 'hi' }),
    });
    const events = await readSse(stream);
    const runId = stream.headers.get('location')?.split('/').at(-1);
    expect(events.at(-1)?.data).toMatchObject({ type: 'run-status', status: 'completed' });
    const before = await rowCounts(h);
    const retry = await post(`/v1/conversations/${conv.json.id}/messages`, { content: 'hi' }, 'msg-stream');
    expect([retry.status, retry.replayed, retry.json.id, retry.json.reply]).toEqual([
      200,
      null,
      runId,
      'Streamed once',
    ]);
    const again = await post(`/v1/conversations/${conv.json.id}/messages`, { content: 'hi' }, 'msg-stream');
    expect([again.status, again.replayed, again.json.id]).toEqual([200, 'true', runId]);
    expect(await rowCounts(h)).toEqual(before);
  });

  it('a retry after the request died answers with the conversation it created (its lease ran out)', async () => {
    const agent = await post('/v1/agents', { config: seedConfig() }, 'agent-for-takeover');
    const db = h.platform.database.db;
    const [{ tenantId }] = (await withSystemScope(db, 'test: the tenant of an agent', (tx) =>
      tx.select({ tenantId: agents.tenantId }).from(agents).where(eq(agents.id, agent.json.id)),
    )) as [{ tenantId: string }];
    // The request that died: it reserved the key (its lease already over), created, and never answered.
    const body = JSON.stringify({ agent_id: agent.json.id });
    const requestHash = createHash('sha256').update('POST /v1/conversations\n').update(body).digest('hex');
    const dead = { tenantId, key: 'conv-of-dead-request', holder: randomUUID() };
    await claimIdempotencyKey(db, { ...dead, requestHash, leaseMs: 0 });
    const created = await createConversation(
      db,
      { tenantId, agentId: agent.json.id, agentVersion: null, context: {} },
      dead,
    );
    const before = await rowCounts(h);
    const retry = await post('/v1/conversations', { agent_id: agent.json.id }, 'conv-of-dead-request');
    expect([retry.status, retry.replayed, retry.json.id]).toEqual([201, null, created.id]);
    expect(await rowCounts(h)).toEqual(before);
  });

  it('a retry after the request died between storing the answers and queueing the run: that run, queued', async () => {
    const config = seedConfig();
    config.tools.push({
      name: 'browser_js_eval',
      description: 'Run JavaScript in the user’s browser and return the result',
      type: 'client',
      parameters: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
    });
    config.action_books[0].tools.push('browser_js_eval');
    const agent = await post('/v1/agents', { config }, 'agent-for-answers');
    const conv = await post('/v1/conversations', { agent_id: agent.json.id }, 'conv-for-answers');
    h.llm.enqueue(
      { type: 'reply', toolCalls: [{ id: 'call_js', name: 'browser_js_eval', arguments: { code: '1+1' } }] },
      { type: 'reply', text: 'It is 2.' },
    );
    const waiting = await post(`/v1/conversations/${conv.json.id}/messages`, { content: 'go' }, 'msg-for-answers');
    expect(waiting.json.status).toBe('waiting');
    const db = h.platform.database.db;
    const run = (
      await withSystemScope(db, 'test: a waiting run', (tx) =>
        tx.select().from(runs).where(eq(runs.id, waiting.json.id)),
      )
    )[0]!;
    const path = `/v1/runs/${run.id}/tool-results`;
    const body = { results: [{ tool_call_id: 'call_js', output: 2 }] };
    // The request that died: its answers and the key's link committed, the run never queued.
    const requestHash = createHash('sha256').update(`POST ${path}\n`).update(JSON.stringify(body)).digest('hex');
    const dead = { tenantId: run.tenantId, key: 'answers-of-dead-request', holder: randomUUID() };
    await claimIdempotencyKey(db, { ...dead, requestHash, leaseMs: 0 });
    await withTenantScope(db, run.tenantId, async (tx) => {
      await answerWaitingRun(tx, run, [
        { toolCallId: 'call_js', name: 'browser_js_eval', kind: 'client', output: 2, isError: false },
      ]);
      await linkIdempotencyKey(tx, dead, { type: 'run', id: run.id });
    });
    const retry = await post(path, body, 'answers-of-dead-request');
    expect([retry.status, retry.replayed, retry.json.id]).toEqual([202, null, run.id]);
    expect((await waitForRun(h, key, run.id)).reply).toBe('It is 2.');
  });

  it('does not keep refusals: a failed request can be retried with its key', async () => {
    const bad = await post('/v1/agents', { config: { tools: 'x' } }, 'fix-and-retry');
    expect(bad.status).toBe(422);
    const fixed = await post('/v1/agents', { config: seedConfig() }, 'fix-and-retry');
    expect([fixed.status, fixed.replayed]).toEqual([201, null]);
    const tooLong = await post('/v1/agents', { config: seedConfig() }, 'x'.repeat(256));
    expect([tooLong.status, tooLong.json.code]).toEqual([400, 'invalid_idempotency_key']);
  });

  it('a retry during a long wait answers 409 in use (not taken over); after the answer it is replayed', async () => {
    const agent = (await call(h, 'POST', '/v1/agents', { key, body: { config: seedConfig() } })).json.id;
    const conversation = (await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agent } })).json.id;
    const asked = h.llm.requests.length;
    h.llm.enqueue({ type: 'reply', text: 'Slow answer', delayMs: 4000 });
    const send = () =>
      fetch(`${h.platform.url}/v1/conversations/${conversation}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'long-wait' },
        body: JSON.stringify({ content: 'hello' }),
      });
    const first = send();
    // Three leases later: without renewals the key would be taken over by now.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const during = await send();
    expect(during.status).toBe(409);
    expect(((await during.json()) as { code: string }).code).toBe('idempotency_key_in_use');
    const answered = await first;
    expect(answered.status).toBe(200);
    const run = (await answered.json()) as { id: string; reply: string };
    expect(run.reply).toBe('Slow answer');
    const replayed = await send();
    expect([replayed.status, replayed.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    expect(((await replayed.json()) as { id: string }).id).toBe(run.id);
    expect(h.llm.requests.length - asked).toBe(1);
  });
});
