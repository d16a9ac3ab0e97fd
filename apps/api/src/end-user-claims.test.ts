import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { getRun } from '@agentry/db';
import { SignJWT } from 'jose';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  call,
  type Harness,
  readSse,
  runModes,
  startHarness,
  visitorCalls,
  waitForRun,
} from './test-support/harness.ts';

/**
 * Per-user credentials (issue 25): an agent's `end_user` lets its tools send the verified end
 * user's claims (`{{user.email}}`) and token (`{{user.token}}`). They reach the tool's endpoint and
 * nothing else: every request the fake model received, the transcript, the run and its events and
 * every log line are searched for them. Without a verified end user the tool is not called and the
 * model reads the agent's sign-in message.
 */

const modes = runModes('end-user-claims');

const SIGNING_SECRET = `eu-signing-${randomBytes(12).toString('hex')}`;
const ORIGIN = 'https://shop.example';
const SIGN_IN = 'Please sign in on shop.example first.';

const hex = () => randomBytes(8).toString('hex');

async function endUserToken(claims: Record<string, unknown>, expiresAt: number | string = '10m'): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(String(claims.sub ?? `user-${hex()}`))
    .setIssuedAt()
    .setExpirationTime(expiresAt)
    .sign(new TextEncoder().encode(SIGNING_SECRET));
}

/** A customer with claims a test can search for: every value is unique to this call. */
function customer() {
  return {
    sub: `user-${hex()}`,
    email: `ada.${hex()}@example.com`,
    org_id: `org-${hex()}`,
    plan: `gold-${hex()}`,
    // Not declared by the agent: it must go nowhere.
    internal_note: `undeclared-${hex()}`,
  };
}

describe.each(modes)('end-user claims and the forwarded token reach the tool, never the model (%s)', (mode) => {
  const lines: string[] = [];
  let h: Harness;
  let key: string;
  let tenantId: string;
  let pk: string;
  let agentId: string;
  /** Everything that must never appear outside the tool's request. */
  const watched: Record<string, string> = {};

  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    h = await startHarness(mode, 'openai', {
      logger: pino({ level: 'trace', base: { app: 'api' } }, stream),
      // The API and the worker process seal and open with the same key (embedded makes one itself).
      env: { SECRETS_KEY: randomBytes(32).toString('base64') },
    });
    const tenant = await call(h, 'POST', '/v1/tenants', { key: ADMIN_TOKEN, body: { name: 'Shop' } });
    key = tenant.json.api_key.key;
    tenantId = tenant.json.id;
    await call(h, 'PUT', '/v1/secrets/END_USER_JWT_SECRET', { key, body: { value: SIGNING_SECRET } });
    const config = {
      basic_settings: { name: 'Shop helper', description: 'Answers questions about the customer’s orders' },
      action_books: [
        {
          condition: 'The customer asks about orders',
          action: 'Look them up',
          tools: ['my_orders', 'page_context'],
        },
      ],
      end_user: { claims: ['email', 'org_id', 'plan'], forward_token: true, sign_in_message: SIGN_IN },
      tools: [
        {
          name: 'my_orders',
          description: 'The signed-in customer’s orders',
          parameters: { type: 'object', properties: { status: { type: 'string' } } },
          endpoint: {
            url: `${h.endpoint.url}/orgs/{{user.org_id}}/orders?email={{user.email}}`,
            method: 'POST',
            headers: { Authorization: 'Bearer {{user.token}}' },
            query_params: { plan: '{{user.plan}}' },
            body: { customer: '{{user.email}}', status: '{{status}}', note: 'for {{user.email}}' },
          },
        },
        {
          name: 'page_context',
          description: 'What the visitor is looking at (run by the page)',
          type: 'client',
          parameters: { type: 'object', properties: {} },
        },
      ],
    };
    const agent = await call(h, 'POST', '/v1/agents', { key, body: { config } });
    expect(agent.status, JSON.stringify(agent.json)).toBe(201);
    agentId = agent.json.id;
    pk = (
      await call(h, 'POST', '/v1/api-keys', {
        key,
        body: { kind: 'publishable', agents: [agentId], allowed_origins: [ORIGIN] },
      })
    ).json.key;
    // The endpoint carelessly echoes everything it received: the echo is masked before the model reads it.
    h.endpoint.respondWith((req) => ({
      body: {
        orders: [{ id: 'NW-1', status: 'shipped' }],
        echo: { path: req.path, query: req.query, auth: req.headers.authorization, body: req.json },
      },
    }));
  }, 90_000);
  afterAll(() => h?.close());

  const visitor = visitorCalls(() => ({ url: h.platform.url, key: pk }), ORIGIN);

  const callsTheTool = () =>
    h.llm.enqueue(
      { type: 'reply', toolCalls: [{ name: 'my_orders', arguments: { status: 'open' } }] },
      { type: 'reply', text: 'Your order NW-1 has shipped.' },
    );

  /** Everything a run left behind that a person or the model could read. */
  async function exposed(conversationId: string, runId: string): Promise<string> {
    const conversation = await call(h, 'GET', `/v1/conversations/${conversationId}`, { key });
    const run = await call(h, 'GET', `/v1/runs/${runId}`, { key });
    const events = await readSse(
      await fetch(`${h.platform.url}/v1/runs/${runId}/events`, {
        headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
      }),
    );
    expect(events.length).toBeGreaterThan(2);
    return JSON.stringify([conversation.json, run.json, events]);
  }

  function assertNowhere(where: string, text: string) {
    for (const [name, value] of Object.entries(watched)) {
      expect(text.includes(value), `${name} appears in ${where}`).toBe(false);
      expect(text.includes(encodeURIComponent(value)), `${name} (encoded) appears in ${where}`).toBe(false);
    }
  }

  it('a signed-in visitor’s claims and token reach the endpoint in path, query, header and body; a newer token replaces them', async () => {
    const ada = customer();
    const token = await endUserToken(ada);
    Object.assign(watched, {
      email: ada.email,
      org: ada.org_id,
      plan: ada.plan,
      undeclared: ada.internal_note,
      token,
    });
    const conv = await visitor('POST', '/v1/conversations', token, { agent_id: agentId });
    expect(conv.status).toBe(201);
    const before = h.endpoint.requests.length;
    callsTheTool();
    const sent = await visitor('POST', `/v1/conversations/${conv.json.id}/messages`, token, {
      content: 'Where is my order?',
    });
    expect(sent.json.status).toBe('completed');
    expect(sent.json.reply).toContain('shipped');
    const [req] = h.endpoint.requests.slice(before);
    expect(req).toBeDefined();
    expect(req!.path).toBe(`/orgs/${ada.org_id}/orders`);
    expect(req!.query).toEqual({ email: ada.email, plan: ada.plan });
    expect(req!.headers.authorization).toBe(`Bearer ${token}`);
    expect(req!.json).toEqual({ customer: ada.email, status: 'open', note: `for ${ada.email}` });
    // Only the declared claims are kept: the undeclared one is in the token, never in the request.
    expect(JSON.stringify({ ...req, headers: { ...req!.headers, authorization: '' } })).not.toContain(
      ada.internal_note,
    );

    // A finished run keeps nothing of the end user.
    const row = await getRun(h.platform.database.db, tenantId, sent.json.id);
    expect(row!.endUser).toBeNull();

    // The model read the tool's (echoing) answer with the values masked, and never anything else.
    assertNowhere('a model request', JSON.stringify(h.llm.requests));
    expect(JSON.stringify(h.llm.requests.at(-1)!.body)).toContain('NW-1');
    assertNowhere('the conversation, run or events', await exposed(conv.json.id, sent.json.id));

    // A later message with a newer token (another address) sends the new values.
    const moved = { ...ada, email: `ada.new.${hex()}@example.com` };
    const newer = await endUserToken(moved);
    Object.assign(watched, { newEmail: moved.email, newToken: newer });
    callsTheTool();
    const again = await visitor('POST', `/v1/conversations/${conv.json.id}/messages`, newer, {
      content: 'And now?',
    });
    expect(again.json.status).toBe('completed');
    const last = h.endpoint.requests.at(-1)!;
    expect(last.query.email).toBe(moved.email);
    expect(last.headers.authorization).toBe(`Bearer ${newer}`);
    assertNowhere('a model request', JSON.stringify(h.llm.requests));
    assertNowhere('the conversation, run or events', await exposed(conv.json.id, again.json.id));
  });

  it('a secret-key caller’s X-End-User-Token is used the same way', async () => {
    const bob = customer();
    const token = await endUserToken(bob);
    Object.assign(watched, { bobEmail: bob.email, bobToken: token });
    const conv = await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agentId } });
    callsTheTool();
    const res = await fetch(`${h.platform.url}/v1/conversations/${conv.json.id}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-end-user-token': token },
      body: JSON.stringify({ content: 'orders?' }),
    });
    const sent = await res.json();
    expect(sent.status).toBe('completed');
    expect(h.endpoint.requests.at(-1)!.headers.authorization).toBe(`Bearer ${token}`);
    expect(sent.tool_calls[0].is_error).toBe(false);
    assertNowhere('a model request', JSON.stringify(h.llm.requests));
    assertNowhere('the run', JSON.stringify(sent));
  });

  it.each([
    ['an anonymous visitor', 'visitor'],
    ['a secret-key caller without a token', 'secret'],
    // Any visitor of the key may read an anonymous conversation: a signed-in user's values stay out of it.
    ['a signed-in visitor in an anonymous conversation (not theirs)', 'signed-in-elsewhere'],
  ])('for %s the tool is not called: the model reads the sign-in message and the run goes on', async (_name, who) => {
    const conv =
      who === 'secret'
        ? await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agentId } })
        : await visitor('POST', '/v1/conversations', undefined, { agent_id: agentId });
    const signedIn = who === 'signed-in-elsewhere' ? await endUserToken(customer()) : undefined;
    if (signedIn) watched.elsewhereToken = signedIn;
    const before = h.endpoint.requests.length;
    h.llm.enqueue(
      { type: 'reply', toolCalls: [{ name: 'my_orders', arguments: {} }] },
      { type: 'reply', text: 'Please sign in first, then I can look up your orders.' },
    );
    const sent =
      who === 'secret'
        ? await call(h, 'POST', `/v1/conversations/${conv.json.id}/messages`, { key, body: { content: 'my orders?' } })
        : await visitor('POST', `/v1/conversations/${conv.json.id}/messages`, signedIn, { content: 'my orders?' });
    expect(sent.json.status).toBe('completed');
    expect(h.endpoint.requests.length).toBe(before);
    const toolResult = JSON.stringify(h.llm.requests.at(-1)!.body);
    expect(toolResult).toContain(SIGN_IN);
    expect(toolResult).toContain('sign_in_required');
  });

  it('the OpenAI-compatible route uses a caller’s X-End-User-Token the same way', async () => {
    const carol = customer();
    const token = await endUserToken(carol);
    Object.assign(watched, { carolEmail: carol.email, carolOrg: carol.org_id, carolToken: token });
    callsTheTool();
    const before = h.endpoint.requests.length;
    const res = await fetch(`${h.platform.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-end-user-token': token },
      body: JSON.stringify({ model: agentId, messages: [{ role: 'user', content: 'orders?' }] }),
    });
    const completion = await res.json();
    expect(res.status, JSON.stringify(completion)).toBe(200);
    expect(completion.choices[0].message.content).toBe('Your order NW-1 has shipped.');
    const sent = h.endpoint.requests.at(-1)!;
    expect(h.endpoint.requests.length).toBe(before + 1);
    expect(sent.headers.authorization).toBe(`Bearer ${token}`);
    expect(sent.path).toBe(`/orgs/${carol.org_id}/orders`);
    expect(sent.json).toMatchObject({ customer: carol.email });
    assertNowhere('a model request', JSON.stringify(h.llm.requests));
    assertNowhere('the completion', JSON.stringify(completion));
  });

  it('a token that expires before the tool call is not used (each call checks `exp`)', async () => {
    const eve = customer();
    const token = await endUserToken(eve, Math.floor(Date.now() / 1000) + 2);
    Object.assign(watched, { eveEmail: eve.email, eveToken: token });
    const conv = await visitor('POST', '/v1/conversations', token, { agent_id: agentId });
    expect(conv.status).toBe(201);
    const before = h.endpoint.requests.length;
    // The model takes longer than the token lives before it asks for the tool.
    h.llm.enqueue(
      { type: 'reply', toolCalls: [{ name: 'my_orders', arguments: {} }], delayMs: 3500 },
      { type: 'reply', text: 'Please sign in again.' },
    );
    const sent = await visitor('POST', `/v1/conversations/${conv.json.id}/messages`, token, { content: 'orders?' });
    expect(sent.json.status).toBe('completed');
    expect(h.endpoint.requests.length).toBe(before);
    expect(JSON.stringify(h.llm.requests.at(-1)!.body)).toContain(SIGN_IN);
  });

  it('an answer to a waiting run with a newer token refreshes the values its tools send (the old one expired meanwhile)', async () => {
    const kim = customer();
    const shortLived = await endUserToken(kim, Math.floor(Date.now() / 1000) + 2);
    const conv = await visitor('POST', '/v1/conversations', shortLived, { agent_id: agentId });
    h.llm.enqueue(
      { type: 'reply', toolCalls: [{ id: 'call_page', name: 'page_context', arguments: {} }] },
      { type: 'reply', toolCalls: [{ name: 'my_orders', arguments: {} }] },
      { type: 'reply', text: 'Your order NW-1 has shipped.' },
    );
    const sent = await visitor('POST', `/v1/conversations/${conv.json.id}/messages`, shortLived, {
      content: 'orders?',
    });
    expect(sent.json.status).toBe('waiting');
    // Stored sealed on the (waiting) run: AES-GCM, bound to tenant and conversation, never in plain text.
    const parked = await getRun(h.platform.database.db, tenantId, sent.json.id);
    expect(Object.keys(JSON.parse(parked!.endUser!)).sort()).toEqual(['ciphertext', 'iv', 'keyId', 'tag']);
    expect(parked!.endUser).not.toContain(kim.email);
    expect(parked!.endUser).not.toContain(shortLived);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const renewed = await endUserToken({ ...kim, email: `kim.renewed.${hex()}@example.com` });
    Object.assign(watched, { kimEmail: kim.email, kimToken: shortLived, kimRenewed: renewed });
    const before = h.endpoint.requests.length;
    const answered = await visitor('POST', `/v1/runs/${sent.json.id}/tool-results`, renewed, {
      results: [{ tool_call_id: 'call_page', output: { page: '/orders' } }],
    });
    expect(answered.status).toBe(202);
    const done = await waitForRun(h, key, sent.json.id);
    expect(done.status).toBe('completed');
    expect((await getRun(h.platform.database.db, tenantId, sent.json.id))!.endUser).toBeNull();
    expect(h.endpoint.requests.length).toBe(before + 1);
    const req = h.endpoint.requests.at(-1)!;
    expect(req.headers.authorization).toBe(`Bearer ${renewed}`);
    expect(req.query.email).toMatch(/^kim\.renewed\./);
    assertNowhere('a model request', JSON.stringify(h.llm.requests));
  });

  it('no claim value or token appears in any log line (API and workers)', () => {
    const workerOutput = h.workers.map((w) => (w as typeof w & { output: () => string }).output()).join('\n');
    const logged = `${lines.join('\n')}\n${workerOutput}`;
    // The capture saw the flow, so the search below can fail.
    expect(lines.some((line) => line.includes('"msg":"request"'))).toBe(true);
    if (mode === 'embedded') expect(logged).toMatch(/run finished/);
    else expect(workerOutput).toMatch(/run finished/);
    expect(Object.keys(watched).length).toBeGreaterThan(8);
    assertNowhere('a log line', logged);
  });
});
