import { randomBytes } from 'node:crypto';
import { waitUntil } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createTenant,
  type Harness,
  readSse,
  runModes,
  seedConfig,
  startHarness,
  waitForRun,
} from './test-support/harness.ts';

const modes = runModes('waiting-runs');

const PRIMES =
  'let s=0;for(let n=2;n<1000;n++){let p=true;for(let d=2;d*d<=n;d++)if(n%d===0){p=false;break}if(p)s+=n}s';

describe.each(modes)('runs that wait for a person (%s)', (mode) => {
  let h: Harness;
  let key: string;
  let agentId: string;
  beforeAll(async () => {
    h = await startHarness(mode, 'openai');
    key = await createTenant(h);
    const config = seedConfig();
    config.tools[0].endpoint.url = `${h.endpoint.url}/contacts/add`;
    config.tools[0].approval = 'always';
    config.tools.push({
      name: 'browser_js_eval',
      description: 'Run JavaScript in the user’s browser and return the result',
      type: 'client',
      parameters: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
    });
    config.action_books[0].tools.push('browser_js_eval');
    const agent = await call(h, 'POST', '/v1/agents', { key, body: { config } });
    expect(agent.status).toBe(201);
    agentId = agent.json.id;
  }, 60_000);
  afterAll(() => h?.close());

  const start = async (turns: Parameters<Harness['llm']['enqueue']>) => {
    const conv = (await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agentId } })).json.id;
    h.llm.enqueue(...turns);
    const run = await call(h, 'POST', `/v1/conversations/${conv}/messages`, { key, body: { content: 'go' } });
    return { conv, run: run.json };
  };

  it('a client tool pauses the run; the browser’s result resumes it (seed 004: sum of primes below 1000)', async () => {
    const { conv, run } = await start([
      { type: 'reply', toolCalls: [{ id: 'call_js', name: 'browser_js_eval', arguments: { code: PRIMES } }] },
      { type: 'reply', text: 'The sum of the primes below 1000 is 76127.' },
    ]);
    expect(run.status).toBe('waiting');
    const events = await readSse(
      await fetch(`${h.platform.url}/v1/runs/${run.id}/events`, { headers: { authorization: `Bearer ${key}` } }),
      6,
    );
    const waiting = events.find((e) => e.event === 'waiting');
    expect(waiting?.data.pending).toEqual([
      { tool_call_id: 'call_js', name: 'browser_js_eval', arguments: { code: PRIMES }, kind: 'client' },
    ]);
    // The code is run by the browser (here: by the test, as the widget would).
    const output = new Function(`return (${`() => { ${PRIMES.replace(/s$/, 'return s')} }`})()`)();
    expect(output).toBe(76127);
    const answered = await call(h, 'POST', `/v1/runs/${run.id}/tool-results`, {
      key,
      body: { results: [{ tool_call_id: 'call_js', output }] },
    });
    expect(answered.status).toBe(202);
    const done = await waitForRun(h, key, run.id);
    expect(done.status).toBe('completed');
    expect(done.reply).toContain('76127');
    expect(JSON.stringify(h.llm.requests.at(-1)!.body)).toContain('76127');
    const again = await call(h, 'POST', `/v1/runs/${run.id}/tool-results`, {
      key,
      body: { results: [{ tool_call_id: 'call_js', output: 1 }] },
    });
    expect([again.status, again.json.code]).toEqual([409, 'run_not_waiting']);
    const transcript = (await call(h, 'GET', `/v1/conversations/${conv}`, { key })).json.messages;
    expect(transcript.map((m: any) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('an approval tool runs only after approval, and never after a decline', async () => {
    const before = h.endpoint.requests.length;
    const approved = await start([
      {
        type: 'reply',
        toolCalls: [{ id: 'call_ok', name: 'save_customer_information', arguments: { email: 'a@b.co' } }],
      },
      { type: 'reply', text: 'Saved.' },
    ]);
    expect(approved.run.status).toBe('waiting');
    expect(h.endpoint.requests.length).toBe(before);
    const bad = await call(h, 'POST', `/v1/runs/${approved.run.id}/tool-results`, {
      key,
      body: { results: [{ tool_call_id: 'call_ok', output: 'x' }] },
    });
    expect([bad.status, bad.json.errors[0].path]).toEqual([422, '/results/0/decision']);
    await call(h, 'POST', `/v1/runs/${approved.run.id}/tool-results`, {
      key,
      body: { results: [{ tool_call_id: 'call_ok', decision: 'approve' }] },
    });
    expect((await waitForRun(h, key, approved.run.id)).status).toBe('completed');
    expect(h.endpoint.requests.length).toBe(before + 1);

    const declined = await start([
      {
        type: 'reply',
        toolCalls: [{ id: 'call_no', name: 'save_customer_information', arguments: { email: 'a@b.co' } }],
      },
      { type: 'reply', text: 'Understood, nothing was saved.' },
    ]);
    const unknown = await call(h, 'POST', `/v1/runs/${declined.run.id}/tool-results`, {
      key,
      body: { results: [{ tool_call_id: 'nope', decision: 'approve' }] },
    });
    expect([unknown.status, unknown.json.errors[0].code]).toEqual([422, 'unknown_tool_call']);
    await call(h, 'POST', `/v1/runs/${declined.run.id}/tool-results`, {
      key,
      body: { results: [{ tool_call_id: 'call_no', decision: 'decline' }] },
    });
    const done = await waitForRun(h, key, declined.run.id);
    expect(done.status).toBe('completed');
    expect(done.tool_calls[0]).toMatchObject({ is_error: true, output: { error: 'declined' } });
    expect(h.endpoint.requests.length).toBe(before + 1);
  });

  it('shows visitors (publishable keys) text and waiting prompts, never tool traffic', async () => {
    const pk = (
      await call(h, 'POST', '/v1/api-keys', {
        key,
        body: { kind: 'publishable', agents: [agentId], allowed_origins: ['https://shop.example'] },
      })
    ).json.key;
    const headers = {
      authorization: `Bearer ${pk}`,
      origin: 'https://shop.example',
      'content-type': 'application/json',
    };
    const conv = await (
      await fetch(`${h.platform.url}/v1/conversations`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ agent_id: agentId }),
      })
    ).json();
    h.llm.enqueue(
      { type: 'reply', toolCalls: [{ id: 'call_js2', name: 'browser_js_eval', arguments: { code: '1+1' } }] },
      { type: 'reply', text: 'It is 2.' },
    );
    const stream = await fetch(`${h.platform.url}/v1/conversations/${conv.id}/messages`, {
      method: 'POST',
      headers: { ...headers, accept: 'text/event-stream' },
      body: JSON.stringify({ content: 'what is 1+1' }),
    });
    const first = await readSse(stream, (e) => e.event === 'waiting');
    const waiting = first.find((e) => e.event === 'waiting');
    expect(waiting?.data.pending[0]).toMatchObject({ tool_call_id: 'call_js2', kind: 'client' });
    const runId = (await (await fetch(`${h.platform.url}/v1/conversations/${conv.id}`, { headers })).json()).messages[0]
      .run_id;
    const answer = await fetch(`${h.platform.url}/v1/runs/${runId}/tool-results`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ results: [{ tool_call_id: 'call_js2', output: 2 }] }),
    });
    expect(answer.status).toBe(202);
    const rest = await readSse(
      await fetch(`${h.platform.url}/v1/runs/${runId}/events?after=${first.at(-1)!.id}`, { headers }),
    );
    const types = [...first, ...rest].map((e) => e.event);
    expect(types).toContain('text-delta');
    expect(types).not.toContain('tool-call');
    expect(types).not.toContain('tool-result');
    expect(types).not.toContain('step-finished');
    expect(rest.at(-1)?.data).toMatchObject({ status: 'completed', final: true });
    const transcript = await (await fetch(`${h.platform.url}/v1/conversations/${conv.id}`, { headers })).json();
    expect(transcript.messages.flatMap((m: any) => m.content.map((p: any) => p.type))).toEqual(['text', 'text']);
    const run = await (await fetch(`${h.platform.url}/v1/runs/${runId}`, { headers })).json();
    expect(run.tool_calls).toEqual([]);
    expect(run.reply).toBe('It is 2.');
  });
});

/**
 * Waiting runs expire: with `WAITING_RUN_TTL_SECONDS` at 2 s (and a fast sweep), a run nobody
 * answers ends as `timed_out` through the sweeper (in the worker process in production mode), while
 * an agent whose `limits.waiting_timeout` allows longer keeps its run waiting.
 */
describe.each(modes)('runs nobody answers expire (%s)', (mode) => {
  let h: Harness;
  let key: string;
  let hastyAgent: string;
  let patientAgent: string;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const approvalConfig = (url: string) => {
    const config = seedConfig();
    config.tools[0].endpoint.url = `${url}/contacts/add`;
    config.tools[0].approval = 'always';
    return config;
  };
  const ask = (id: string) => ({
    type: 'reply' as const,
    toolCalls: [{ id, name: 'save_customer_information', arguments: { email: 'a@b.co' } }],
  });
  const post = (conv: string, content: string) =>
    fetch(`${h.platform.url}/v1/conversations/${conv}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', prefer: 'respond-async' },
      body: JSON.stringify({ content }),
    }).then(async (res) => ({ status: res.status, json: await res.json() }));

  beforeAll(async () => {
    h = await startHarness(mode, 'openai', {
      env: {
        WAITING_RUN_TTL_SECONDS: '2',
        SWEEP_INTERVAL_MS: '100',
        SECRETS_KEY: randomBytes(32).toString('base64'),
        WEBHOOK_POLL_MS: '50',
      },
    });
    key = await createTenant(h);
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    expect((await call(h, 'PUT', '/v1/secrets/HOOK_SECRET', { key, body: { value: secret } })).status).toBe(201);
    const hasty = approvalConfig(h.endpoint.url);
    hasty.webhooks = [{ url: `${h.endpoint.url}/hooks`, events: ['run.timed_out'], signing_secret: 'HOOK_SECRET' }];
    const patient = approvalConfig(h.endpoint.url);
    patient.limits = { waiting_timeout: 3600 };
    for (const [config, set] of [
      [hasty, (id: string) => (hastyAgent = id)],
      [patient, (id: string) => (patientAgent = id)],
    ] as const) {
      const agent = await call(h, 'POST', '/v1/agents', { key, body: { config } });
      expect(agent.status, JSON.stringify(agent.json)).toBe(201);
      set(agent.json.id);
    }
  }, 60_000);
  afterAll(() => h?.close());

  it('past the TTL: timed_out with its reason, final event and webhook; the conversation moves on; a late answer is refused', async () => {
    const conv = (await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: hastyAgent } })).json.id;
    h.llm.enqueue(ask('call_late'), { type: 'reply', text: 'Hello again.' });
    const first = await post(conv, 'save me');
    expect(first.status).toBe(202);
    const parked = await waitForStatus(h, key, first.json.id, 'waiting');
    expect(parked.status).toBe('waiting');
    // A second message waits behind the parked run (busy policy `enqueue`) until the run ends.
    const second = await post(conv, 'hello?');
    expect(second.status).toBe(202);

    const done = await waitForRun(h, key, first.json.id);
    expect(done.status).toBe('timed_out');
    expect(done.error).toEqual({
      code: 'waiting_timeout',
      message: 'No answer to the pending tool call within 2 s; the run was ended',
      category: 'user',
      retryable: false,
    });
    const waitedMs = Date.parse(done.finished_at) - Date.parse(parked.created_at);
    expect(waitedMs).toBeGreaterThanOrEqual(2000);

    const events = await readSse(
      await fetch(`${h.platform.url}/v1/runs/${first.json.id}/events`, { headers: { authorization: `Bearer ${key}` } }),
      (e) => e.data?.final === true,
    );
    expect(events.at(-1)?.data).toMatchObject({
      type: 'run-status',
      status: 'timed_out',
      final: true,
      error: { code: 'waiting_timeout' },
    });

    const hook = await waitUntil(() =>
      h.endpoint.requests.find((r) => r.path === '/hooks' && (r.json as any)?.data?.run_id === first.json.id),
    );
    expect(hook.json).toMatchObject({
      type: 'run.timed_out',
      data: { run_id: first.json.id, status: 'timed_out', error_code: 'waiting_timeout' },
    });

    // The conversation is free: the queued message ran, and a new one runs too.
    const next = await waitForRun(h, key, second.json.id);
    expect([next.status, next.reply]).toEqual(['completed', 'Hello again.']);
    h.llm.enqueue({ type: 'reply', text: 'Still here.' });
    const third = await call(h, 'POST', `/v1/conversations/${conv}/messages`, { key, body: { content: 'and now?' } });
    expect([third.status, third.json.status]).toEqual([200, 'completed']);

    const late = await call(h, 'POST', `/v1/runs/${first.json.id}/tool-results`, {
      key,
      body: { results: [{ tool_call_id: 'call_late', decision: 'approve' }] },
    });
    expect([late.status, late.json.code]).toEqual([409, 'run_not_waiting']);
    expect(late.json.detail).toContain('timed_out');
    expect(h.endpoint.requests.filter((r) => r.path === '/contacts/add')).toEqual([]);
  }, 30_000);

  it("within the agent's own waiting_timeout: the run keeps waiting, and the answer still resumes it", async () => {
    const conv = (await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: patientAgent } })).json.id;
    h.llm.enqueue(ask('call_patient'), { type: 'reply', text: 'Saved.' });
    const run = (await call(h, 'POST', `/v1/conversations/${conv}/messages`, { key, body: { content: 'save me' } }))
      .json;
    expect(run.status).toBe('waiting');
    // Longer than the platform TTL (2 s) and many sweeps.
    await sleep(3500);
    expect((await call(h, 'GET', `/v1/runs/${run.id}`, { key })).json.status).toBe('waiting');
    const answered = await call(h, 'POST', `/v1/runs/${run.id}/tool-results`, {
      key,
      body: { results: [{ tool_call_id: 'call_patient', decision: 'approve' }] },
    });
    expect(answered.status).toBe(202);
    expect((await waitForRun(h, key, run.id)).status).toBe('completed');
  }, 30_000);
});

/** Polls a run until it has `status` (or is final). */
async function waitForStatus(h: Harness, key: string, runId: string, status: string): Promise<any> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const run = (await call(h, 'GET', `/v1/runs/${runId}`, { key })).json;
    if (run.status === status || ['completed', 'failed', 'cancelled', 'timed_out'].includes(run.status)) return run;
    if (Date.now() > deadline) return run;
    await new Promise((r) => setTimeout(r, 50));
  }
}
