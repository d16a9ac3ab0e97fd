import { startTestMcpServer, type TestMcpServer } from '@agentry/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { leaveConfig } from './test-support/flow-configs.ts';
import {
  call,
  createTenant,
  type Harness,
  readSse,
  runModes,
  startHarness,
  waitForRun,
} from './test-support/harness.ts';

const modes = runModes('permissions');

const DENIED = 'Refunds are handled by billing@example.com; tell the customer to write there.';

/** An agent whose refunds go to the recording endpoint, with the given permission rules. */
function refundConfig(endpoint: string, permissions: unknown[]) {
  const amountTool = (name: string, path: string) => ({
    name,
    description: `Refund an ${name.replace('refund_', '')}`,
    parameters: {
      type: 'object',
      properties: { order_id: { type: 'string' }, amount: { type: 'number' } },
      required: ['order_id', 'amount'],
    },
    endpoint: { url: `${endpoint}${path}`, method: 'POST', body: { order_id: '{{order_id}}', amount: '{{amount}}' } },
  });
  return {
    basic_settings: { name: 'Refund desk' },
    tools: [
      amountTool('refund_order', '/refunds'),
      amountTool('refund_shipping', '/shipping-refunds'),
      {
        name: 'lookup_order',
        description: 'Look an order up',
        parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
        endpoint: { url: `${endpoint}/orders/{{order_id}}`, method: 'GET' },
      },
      // A client tool: a deny must answer it on the server, never ask the browser.
      { name: 'refund_in_browser', description: 'Open the refund form', type: 'client' },
    ],
    permissions,
  };
}

describe.each(modes)('tool permission rules through the API (%s)', (mode) => {
  let h: Harness;
  let mcp: TestMcpServer;
  let key: string;
  beforeAll(async () => {
    h = await startHarness(mode, 'openai');
    mcp = await startTestMcpServer();
    key = await createTenant(h);
  }, 60_000);
  afterAll(async () => {
    await mcp?.close();
    await h?.close();
  });
  beforeEach(() => h.endpoint.reset());

  const createAgent = async (permissions: unknown[]) => {
    const agent = await call(h, 'POST', '/v1/agents', {
      key,
      body: { config: refundConfig(h.endpoint.url, permissions) },
    });
    expect(agent.status).toBe(201);
    return agent.json.id as string;
  };
  const start = async (agentId: string, turns: Parameters<Harness['llm']['enqueue']>) => {
    const conv = (await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agentId } })).json.id;
    h.llm.enqueue(...turns);
    const run = await call(h, 'POST', `/v1/conversations/${conv}/messages`, { key, body: { content: 'refund me' } });
    return run.json;
  };

  it('a deny rule by wildcard never reaches the endpoint (nor the browser); the model reads its message', async () => {
    const agentId = await createAgent([{ tool: 'refund_*', action: 'deny', message: DENIED }]);
    const run = await start(agentId, [
      {
        type: 'reply',
        toolCalls: [
          { id: 'call_refund', name: 'refund_order', arguments: { order_id: 'A1', amount: 20 } },
          { id: 'call_form', name: 'refund_in_browser', arguments: {} },
          { id: 'call_lookup', name: 'lookup_order', arguments: { order_id: 'A1' } },
        ],
      },
      { type: 'reply', text: 'Please write to billing@example.com for the refund.' },
    ]);
    const done = run.status === 'completed' ? run : await waitForRun(h, key, run.id);
    expect(done.status).toBe('completed');
    // Only the call no rule matched was sent.
    expect(h.endpoint.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /orders/A1']);
    const results = JSON.stringify(h.llm.requests.at(-1)!.body);
    expect(results).toContain(DENIED);
    expect(results).toContain('permission_denied');
    const byId = Object.fromEntries(done.tool_calls.map((c: any) => [c.id ?? c.tool_call_id, c]));
    expect(byId.call_refund).toMatchObject({ is_error: true, output: { error: 'permission_denied', message: DENIED } });
    expect(byId.call_form).toMatchObject({ is_error: true, output: { error: 'permission_denied' } });
    expect(byId.call_lookup).toMatchObject({ is_error: false });
  });

  it('an ask rule with `when` parks 5000 for a person, sends 50 directly, and sends 5000 once after approval', async () => {
    const agentId = await createAgent([
      {
        tool: 'refund_*',
        when: { properties: { amount: { minimum: 1000 } }, required: ['amount'] },
        action: 'ask',
      },
    ]);
    const small = await start(agentId, [
      {
        type: 'reply',
        toolCalls: [{ id: 'call_small', name: 'refund_order', arguments: { order_id: 'A1', amount: 50 } }],
      },
      { type: 'reply', text: 'Refunded 50.' },
    ]);
    expect((small.status === 'completed' ? small : await waitForRun(h, key, small.id)).status).toBe('completed');
    expect(h.endpoint.requests.map((r) => r.json)).toEqual([{ order_id: 'A1', amount: 50 }]);

    const big = await start(agentId, [
      {
        type: 'reply',
        toolCalls: [{ id: 'call_big', name: 'refund_order', arguments: { order_id: 'B2', amount: 5000 } }],
      },
      { type: 'reply', text: 'Refunded 5000.' },
    ]);
    expect(big.status).toBe('waiting');
    const events = await readSse(
      await fetch(`${h.platform.url}/v1/runs/${big.id}/events`, { headers: { authorization: `Bearer ${key}` } }),
      (e) => e.event === 'waiting',
    );
    expect(events.at(-1)?.data.pending).toEqual([
      { tool_call_id: 'call_big', name: 'refund_order', arguments: { order_id: 'B2', amount: 5000 }, kind: 'approval' },
    ]);
    expect(h.endpoint.requests).toHaveLength(1);
    const answered = await call(h, 'POST', `/v1/runs/${big.id}/tool-results`, {
      key,
      body: { results: [{ tool_call_id: 'call_big', decision: 'approve' }] },
    });
    expect(answered.status).toBe(202);
    expect((await waitForRun(h, key, big.id)).status).toBe('completed');
    expect(h.endpoint.requests.map((r) => r.json)).toEqual([
      { order_id: 'A1', amount: 50 },
      { order_id: 'B2', amount: 5000 },
    ]);
  });

  it('covers MCP tools (server__tool) and skills: a denied MCP call never reaches the server, an asked skill waits', async () => {
    const config = {
      basic_settings: { name: 'Desk' },
      mcp_servers: [{ name: 'desk', url: mcp.url }],
      skills: [{ name: 'research', description: 'Researches a question', basic_settings: { name: 'Researcher' } }],
      permissions: [
        { tool: 'desk__*', when: { required: ['text'], properties: { text: { pattern: 'secret' } } }, action: 'deny' },
        { tool: 'skill__*', action: 'ask' },
      ],
    };
    const agent = await call(h, 'POST', '/v1/agents', { key, body: { config } });
    expect(agent.status).toBe(201);
    const callsBefore = mcp.calls.length;
    const run = await start(agent.json.id, [
      {
        type: 'reply',
        toolCalls: [
          { id: 'c_secret', name: 'desk__echo', arguments: { text: 'the secret plan' } },
          { id: 'c_plain', name: 'desk__echo', arguments: { text: 'hello' } },
          { id: 'c_skill', name: 'skill__research', arguments: { input: 'why?' } },
        ],
      },
      // The skill's own run (after approval), then the parent's answer.
      { type: 'reply', text: 'Because.' },
      { type: 'reply', text: 'Done.' },
    ]);
    expect(run.status).toBe('waiting');
    // Nothing of the step runs before the person answers; then the skill runs, the plain echo is
    // sent, and the secret one never is.
    expect(mcp.calls.length).toBe(callsBefore);
    await call(h, 'POST', `/v1/runs/${run.id}/tool-results`, {
      key,
      body: { results: [{ tool_call_id: 'c_skill', decision: 'approve' }] },
    });
    const done = await waitForRun(h, key, run.id);
    expect(done.status).toBe('completed');
    expect(mcp.calls.slice(callsBefore).map((c) => c.arguments)).toEqual([{ text: 'hello' }]);
    const byId = Object.fromEntries(done.tool_calls.map((c: any) => [c.id ?? c.tool_call_id, c]));
    expect(byId.c_secret).toMatchObject({ is_error: true, output: { error: 'permission_denied' } });
    expect(byId.c_skill).toMatchObject({ is_error: false, output: 'Because.' });
  });

  it('covers flow tools: a denied flow__ never starts, an asked one starts only once approved', async () => {
    const config = leaveConfig(h.endpoint.url);
    config.permissions = [
      { tool: 'flow__feedback', action: 'deny', message: 'No feedback today.' },
      { tool: 'flow__leave_*', action: 'ask' },
    ];
    const agent = await call(h, 'POST', '/v1/agents', { key, body: { config } });
    expect(agent.status, JSON.stringify(agent.json)).toBe(201);
    const denied = await start(agent.json.id, [
      { type: 'reply', toolCalls: [{ id: 'f_feedback', name: 'flow__feedback', arguments: {} }] },
      { type: 'reply', text: 'Feedback is closed today.' },
    ]);
    const deniedDone = denied.status === 'completed' ? denied : await waitForRun(h, key, denied.id);
    expect(deniedDone.reply).toBe('Feedback is closed today.');
    expect(JSON.stringify(h.llm.requests.at(-1)!.body)).toContain('No feedback today.');

    const startLeave = () =>
      start(agent.json.id, [
        { type: 'reply', toolCalls: [{ id: 'f_leave', name: 'flow__leave_request', arguments: {} }] },
        { type: 'reply', text: 'Understood, no leave request.' },
      ]);
    for (const decision of ['decline', 'approve'] as const) {
      const run = await startLeave();
      expect(run.status).toBe('waiting');
      await call(h, 'POST', `/v1/runs/${run.id}/tool-results`, {
        key,
        body: { results: [{ tool_call_id: 'f_leave', decision }] },
      });
      const done = await waitForRun(h, key, run.id);
      expect(done.status).toBe('completed');
      expect(done.reply).toBe(
        decision === 'approve' ? 'Which day does your leave start? (YYYY-MM-DD)' : 'Understood, no leave request.',
      );
      // The model's second turn was not used by the approved run: drop it for the next case.
      if (decision === 'approve') h.llm.reset();
    }
  });

  it('refuses at upload a rule whose pattern matches no tool, naming /permissions/N/tool', async () => {
    const res = await call(h, 'POST', '/v1/agents', {
      key,
      body: { config: refundConfig(h.endpoint.url, [{ tool: 'refnd_*', action: 'deny' }]) },
    });
    expect(res.status).toBe(422);
    expect(res.json.errors.map((e: any) => [e.path, e.code])).toContainEqual(['/permissions/0/tool', 'unknown_tool']);
  });
});
