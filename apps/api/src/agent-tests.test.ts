import { type FakeRequest, type FakeTurn, startTestMcpServer, type TestMcpServer } from '@agentry/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { leaveConfig } from './test-support/flow-configs.ts';
import { call, createTenant, type Harness, readSse, runModes, startHarness } from './test-support/harness.ts';
import { waitForDocument } from './test-support/knowledge.ts';

const modes = runModes('agent tests');

/**
 * The agent's behaviour follows its prompt, as a model's would: a prompt saying BROKEN never calls
 * the refund tool; one saying TERSE never apologises; one saying FLAKY calls the tool every other
 * time. The judge (its own system prompt) passes a rubric about apologising only for replies that
 * say sorry. Keyed on the request, not on arrival order: cases run concurrently.
 */
function agentModel(flaky: { n: number }) {
  return (req: FakeRequest): FakeTurn => {
    const body = JSON.stringify(req.body);
    const messages: any[] = req.body.messages ?? [];
    const system = messages.find((m) => m.role === 'system')?.content ?? '';
    const last = messages.at(-1);
    if (String(system).includes('You grade one reply')) {
      const text = String(last?.content ?? '');
      const reply = /Reply to grade:\n([\s\S]*?)\n\nRubric:/.exec(text)?.[1] ?? '';
      const rubric = /Rubric:\n([\s\S]*)$/.exec(text)?.[1] ?? '';
      const passed = /apologi/i.test(rubric)
        ? /sorry/i.test(reply)
        : /delivery date/i.test(rubric)
          ? /\d{4}-\d\d-\d\d/.test(reply)
          : false;
      return {
        type: 'reply',
        toolCalls: [
          {
            name: 'verdict',
            arguments: {
              pass: passed,
              reason: passed ? 'The reply does what the rubric asks.' : 'The reply does not do what the rubric asks.',
            },
          },
        ],
      };
    }
    if (last?.role === 'tool') {
      return {
        type: 'reply',
        text: body.includes('TERSE') ? 'Refund done.' : 'Sorry about that! Your refund of order 1042 is done.',
      };
    }
    const asked = String(last?.content ?? '');
    if (/person|human/i.test(asked)) {
      return {
        type: 'reply',
        toolCalls: [
          { name: 'handoff_to_human', arguments: { reason: 'asked for a person', summary: 'wants a person' } },
        ],
      };
    }
    if (/refund/i.test(asked)) {
      const skip = body.includes('BROKEN') || (body.includes('FLAKY') && flaky.n++ % 3 === 1);
      if (skip) return { type: 'reply', text: 'I cannot help with refunds.' };
      return { type: 'reply', toolCalls: [{ name: 'refund_order', arguments: { order_id: '1042', amount: 59 } }] };
    }
    return { type: 'reply', text: 'How can I help?' };
  };
}

function refundAgent(endpoint: string, prompt: string) {
  return {
    basic_settings: { name: 'Refund desk', background: prompt },
    tools: [
      {
        name: 'refund_order',
        description: 'Refund an order',
        parameters: {
          type: 'object',
          properties: { order_id: { type: 'string' }, amount: { type: 'number' } },
          required: ['order_id'],
        },
        endpoint: { url: `${endpoint}/refunds`, method: 'POST', body: { order_id: '{{order_id}}' } },
      },
    ],
    handoff: { enabled: true },
  };
}

const REFUND_CASE = {
  name: 'Refund a broken order',
  turns: [
    {
      user: 'Please refund order 1042, it arrived broken.',
      expect: [
        {
          type: 'tool_called',
          tool: 'refund_order',
          arguments: { type: 'object', properties: { order_id: { const: '1042' } }, required: ['order_id'] },
        },
        { type: 'reply_contains', text: 'refund' },
      ],
    },
  ],
  fixtures: [{ tool: 'refund_order', output: { status: 'refunded', amount: 59 } }],
};

describe.each(modes)('test conversations that gate publishing (%s)', (mode) => {
  let h: Harness;
  let key: string;
  let mcp: TestMcpServer;
  const flaky = { n: 0 };
  beforeAll(async () => {
    h = await startHarness(mode, 'openai');
    mcp = await startTestMcpServer();
    key = await createTenant(h);
    h.llm.setResponder(agentModel(flaky));
  }, 60_000);
  afterAll(async () => {
    await mcp?.close();
    await h?.close();
  });
  beforeEach(() => h.endpoint.reset());

  const api = (method: string, path: string, body?: unknown) =>
    call(h, method, path, { key, ...(body !== undefined ? { body } : {}) });
  const newAgent = async (prompt: string) => {
    const res = await api('POST', '/v1/agents', { config: refundAgent(h.endpoint.url, prompt) });
    expect(res.status).toBe(201);
    return res.json.id as string;
  };
  const addVersion = async (agentId: string, config: unknown) => {
    const res = await api('POST', `/v1/agents/${agentId}/versions`, { config, publish: false });
    expect(res.status).toBe(201);
    return res.json.version as number;
  };
  /** Starts a test run and follows its events to the end; the run with its results. */
  const runTests = async (agentId: string, body: Record<string, unknown>) => {
    const started = await api('POST', `/v1/agents/${agentId}/test-runs`, body);
    expect(started.status, JSON.stringify(started.json)).toBe(202);
    const res = await fetch(`${h.platform.url}/v1/agents/${agentId}/test-runs/${started.json.id}/events`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const events = await readSse(res, (e) => e.event === 'test-run-finished');
    const done = await api('GET', `/v1/agents/${agentId}/test-runs/${started.json.id}`);
    return { events, run: done.json };
  };

  it('a draft that breaks a tool-call expectation cannot be published (409); the fixed draft can; fixtures send nothing', async () => {
    const agentId = await newAgent('You help with refunds.');
    expect((await api('PATCH', `/v1/agents/${agentId}`, { require_passing_tests: true })).json).toMatchObject({
      require_passing_tests: true,
    });
    expect((await api('POST', `/v1/agents/${agentId}/tests`, REFUND_CASE)).status).toBe(201);

    const broken = await addVersion(agentId, refundAgent(h.endpoint.url, 'BROKEN: never refund.'));
    const failed = await runTests(agentId, { version: broken });
    expect(failed.run).toMatchObject({ status: 'failed', agent_version: broken, case_count: 1, failed_count: 1 });
    const turn = failed.run.results[0].attempts[0].turns[0];
    expect(turn.expectations[0]).toMatchObject({
      passed: false,
      detail: expect.stringContaining('refund_order was not called'),
    });
    expect(failed.events.map((e) => e.event)).toEqual(['test-run-started', 'test-case', 'test-run-finished']);

    const refused = await api('POST', `/v1/agents/${agentId}/versions/${broken}/publish`);
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({
      code: 'tests_failed',
      state: 'failing',
      test_run_id: failed.run.id,
      failing_cases: ['Refund a broken order'],
    });
    const gate = await api('GET', `/v1/agents/${agentId}/versions/${broken}/test-gate`);
    expect(gate.json).toMatchObject({ required: true, state: 'failing', failing_cases: ['Refund a broken order'] });

    const fixed = await addVersion(agentId, refundAgent(h.endpoint.url, 'You refund broken orders.'));
    expect((await api('POST', `/v1/agents/${agentId}/versions/${fixed}/publish`)).json).toMatchObject({
      code: 'tests_failed',
      state: 'missing',
    });
    const passed = await runTests(agentId, { version: fixed });
    expect(passed.run).toMatchObject({
      status: 'passed',
      passed_count: 1,
      usage: { input_tokens: expect.any(Number) },
    });
    const seen = passed.run.results[0].attempts[0].turns[0];
    expect(seen.tool_calls).toEqual([
      expect.objectContaining({ name: 'refund_order', output: { status: 'refunded', amount: 59 }, fixture: true }),
    ]);
    const published = await api('POST', `/v1/agents/${agentId}/versions/${fixed}/publish`);
    expect(published.status).toBe(200);
    expect(published.json.published_version).toBe(fixed);

    // The fixture answered every call: the refund endpoint never heard of the tests.
    expect(h.endpoint.requests).toEqual([]);
    // Test conversations stay out of the tenant's conversations.
    expect((await api('GET', `/v1/conversations?agent_id=${agentId}`)).json.data).toEqual([]);
  });

  it('an owner may publish past failing tests with a reason (audited); a narrower key may not; a new version under the gate needs force', async () => {
    const agentId = await newAgent('You help with refunds.');
    await api('PATCH', `/v1/agents/${agentId}`, { require_passing_tests: true });
    await api('POST', `/v1/agents/${agentId}/tests`, REFUND_CASE);
    const broken = await addVersion(agentId, refundAgent(h.endpoint.url, 'BROKEN'));
    await runTests(agentId, { version: broken });

    const narrow = await api('POST', '/v1/api-keys', {
      kind: 'secret',
      name: 'agents only',
      scopes: ['agents:write', 'agents:read'],
    });
    expect(narrow.status).toBe(201);
    const asNarrow = await call(h, 'POST', `/v1/agents/${agentId}/versions/${broken}/publish`, {
      key: narrow.json.key,
      body: { force: true, reason: 'hotfix' },
    });
    expect([asNarrow.status, asNarrow.json.code]).toEqual([403, 'insufficient_role']);
    const noReason = await api('POST', `/v1/agents/${agentId}/versions/${broken}/publish`, { force: true });
    expect([noReason.status, noReason.json.code]).toEqual([422, 'validation_failed']);
    const forced = await api('POST', `/v1/agents/${agentId}/versions/${broken}/publish`, {
      force: true,
      reason: 'Outage fix; tests updated tomorrow',
    });
    expect(forced.status).toBe(200);
    const log = await api('GET', '/v1/audit-events?limit=50');
    const entry = log.json.data.find((e: any) => e.action === 'agent.version_published' && e.target.id === agentId);
    expect(entry?.details).toMatchObject({
      version: broken,
      forced: true,
      reason: 'Outage fix; tests updated tomorrow',
      test_state: 'failing',
    });

    const direct = await api('POST', `/v1/agents/${agentId}/versions`, { config: refundAgent(h.endpoint.url, 'x') });
    expect([direct.status, direct.json.code, direct.json.state]).toEqual([409, 'tests_failed', 'missing']);
    const versions = await api('GET', `/v1/agents/${agentId}/versions`);
    expect(versions.json.data.length).toBe(2); // nothing was written by the refused upload
    const forcedNew = await api('POST', `/v1/agents/${agentId}/versions`, {
      config: refundAgent(h.endpoint.url, 'y'),
      force_publish: true,
      publish_reason: 'Emergency prompt change',
    });
    expect(forcedNew.status).toBe(201);
    expect(forcedNew.json.published).toBe(true);
  });

  it('rubrics pass and fail by a scripted judge, with its reason; tokens are counted', async () => {
    const agentId = await newAgent('You refund broken orders.');
    const cases = [
      {
        name: 'Apologises',
        turns: [
          { user: 'Refund order 1042 please', expect: [{ type: 'rubric', rubric: 'Apologises to the customer' }] },
        ],
        fixtures: [{ tool: 'refund_order', output: { status: 'refunded' } }],
      },
      {
        name: 'Gives a delivery date',
        turns: [{ user: 'Refund order 1042 please', expect: [{ type: 'rubric', rubric: 'States the delivery date' }] }],
        fixtures: [{ tool: 'refund_order', output: { status: 'refunded' } }],
      },
    ];
    const { run } = await runTests(agentId, { cases });
    expect(run).toMatchObject({ status: 'failed', passed_count: 1, failed_count: 1 });
    const byName = Object.fromEntries(run.results.map((r: any) => [r.name, r]));
    expect(byName.Apologises.passed).toBe(true);
    expect(byName['Gives a delivery date'].attempts[0].turns[0].expectations[0]).toEqual({
      expectation: { type: 'rubric', rubric: 'States the delivery date' },
      passed: false,
      detail: 'The reply does not do what the rubric asks.',
    });
    const judged = h.llm.requests.filter((r) => JSON.stringify(r.body).includes('You grade one reply'));
    expect(judged.length).toBeGreaterThanOrEqual(2);
    expect(run.usage.input_tokens).toBeGreaterThan(0);
  });

  it('repetitions with a threshold: 2 of 3 passes a 0.6 threshold and fails 1', async () => {
    const agentId = await newAgent('FLAKY: you refund broken orders.');
    const one = { ...REFUND_CASE, turns: [{ ...REFUND_CASE.turns[0]!, expect: [REFUND_CASE.turns[0]!.expect[0]!] }] };
    flaky.n = 0;
    const lenient = await runTests(agentId, { cases: [one], repetitions: 3, threshold: 0.6 });
    expect(lenient.run.results[0]).toMatchObject({ passed: true, pass_rate: 2 / 3 });
    expect(lenient.run.results[0].attempts.map((a: any) => a.passed)).toEqual([true, false, true]);
    expect(lenient.run.status).toBe('passed');
    flaky.n = 0;
    const strict = await runTests(agentId, { cases: [one], repetitions: 3 });
    expect(strict.run).toMatchObject({ status: 'failed', threshold: 1 });
    expect(strict.run.results[0]).toMatchObject({ passed: false, pass_rate: 2 / 3 });
  });

  it('flows, handoffs and tools not called: a flow step reached with no model, a handoff that reaches nobody', async () => {
    const config = leaveConfig(h.endpoint.url);
    config.handoff = { enabled: true };
    const agent = await api('POST', '/v1/agents', { config });
    const agentId = agent.json.id as string;
    const before = h.llm.requests.length;
    const flowCase = {
      name: 'Leave request starts',
      turns: [
        {
          user: 'leave request',
          expect: [
            { type: 'flow_step', flow: 'leave_request', step: 'ask_start' },
            { type: 'tool_not_called', tool: 'create_leave_request' },
          ],
        },
      ],
    };
    const flowRun = await runTests(agentId, { cases: [flowCase] });
    expect(flowRun.run.status, JSON.stringify(flowRun.run.results)).toBe('passed');
    expect(h.llm.requests.length).toBe(before);

    const refunds = await newAgent('You refund broken orders.');
    const handoffCase = {
      name: 'Asks for a person',
      turns: [{ user: 'I want to talk to a person', expect: [{ type: 'handoff_requested' }] }],
    };
    const handed = await runTests(refunds, { cases: [handoffCase] });
    expect(handed.run.status, JSON.stringify(handed.run.results)).toBe('passed');
    const conversationId = handed.run.results[0].attempts[0].conversation_id;
    // The conversation stayed with the bot and nobody's inbox heard of it.
    expect((await api('GET', `/v1/conversations/${conversationId}`)).json.mode).toBe('bot');
    expect((await api('GET', '/v1/inbox')).json.data).toEqual([]);
  });

  it('MCP tools, client tools and approvals answer from fixtures: the server, the browser and people hear nothing', async () => {
    const config = {
      basic_settings: { name: 'Desk', background: 'DESK' },
      mcp_servers: [{ name: 'desk', url: mcp.url }],
      tools: [
        { name: 'open_form', description: 'Open a form in the browser', type: 'client' },
        {
          name: 'wipe_account',
          description: 'Delete the account',
          parameters: { type: 'object', properties: {} },
          endpoint: { url: `${h.endpoint.url}/wipe`, method: 'POST' },
          approval: 'always',
        },
      ],
    };
    const agent = await api('POST', '/v1/agents', { config });
    expect(agent.status).toBe(201);
    h.llm.setResponder((req) => {
      const last = (req.body.messages ?? []).at(-1);
      if (last?.role === 'tool')
        return {
          type: 'reply',
          text: `Results: ${JSON.stringify(req.body.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.content))}`,
        };
      return {
        type: 'reply',
        toolCalls: [
          { name: 'desk__echo', arguments: { text: 'hello' } },
          { name: 'open_form', arguments: {} },
          { name: 'wipe_account', arguments: {} },
        ],
      };
    });
    try {
      const callsBefore = mcp.calls.length;
      const { run } = await runTests(agent.json.id, {
        cases: [
          {
            name: 'All kinds of tools',
            turns: [
              {
                user: 'Do everything',
                expect: [
                  { type: 'tool_called', tool: 'desk__echo' },
                  { type: 'reply_contains', text: 'ECHOED-BY-FIXTURE' },
                  { type: 'reply_contains', text: 'FORM-FILLED' },
                ],
              },
            ],
            fixtures: [
              { tool: 'desk__echo', output: 'ECHOED-BY-FIXTURE' },
              { tool: 'open_form', output: { value: 'FORM-FILLED' } },
              { tool: 'wipe_account', decision: 'decline' },
            ],
          },
        ],
      });
      expect(run.status, JSON.stringify(run.results)).toBe('passed');
      const calls = run.results[0].attempts[0].turns[0].tool_calls;
      expect(calls.find((c: any) => c.name === 'wipe_account')).toMatchObject({ is_error: true });
      expect(mcp.calls.length).toBe(callsBefore);
      expect(h.endpoint.requests).toEqual([]);
    } finally {
      h.llm.setResponder(agentModel(flaky));
    }
  });

  it('a citation names a document of a knowledge base (auto retrieval, real search)', async () => {
    const base = await api('POST', '/v1/knowledge-bases', { name: `Policies ${mode}` });
    const doc = await api('POST', `/v1/knowledge-bases/${base.json.id}/documents`, {
      title: 'Returns handbook',
      text: 'Refunds\n\nRefunds are paid within 14 days after the parcel arrives.',
    });
    expect((await waitForDocument(h, key, base.json.id, doc.json.id)).status).toBe('ready');
    const agent = await api('POST', '/v1/agents', {
      config: { basic_settings: { name: 'Helper' }, knowledge: { bases: [base.json.name], mode: 'auto' } },
    });
    h.llm.setResponder(() => ({ type: 'reply', text: 'Refunds take 14 days [1].' }));
    try {
      const turn = (document: string) => ({
        name: `cites ${document}`,
        turns: [{ user: 'How long do refunds take?', expect: [{ type: 'cited', document }] }],
      });
      const { run } = await runTests(agent.json.id, { cases: [turn('returns handbook'), turn('Shipping guide')] });
      const byName = Object.fromEntries(run.results.map((r: any) => [r.name, r]));
      expect(byName['cites returns handbook'].passed).toBe(true);
      expect(byName['cites Shipping guide'].attempts[0].turns[0].expectations[0].detail).toBe(
        'cited "Returns handbook", not "Shipping guide"',
      );
      expect(byName['cites returns handbook'].attempts[0].turns[0].citations[0]).toMatchObject({
        document_id: doc.json.id,
        title: 'Returns handbook',
      });
    } finally {
      h.llm.setResponder(agentModel(flaky));
    }
  });

  it('cases are checked, stored with revisions, exported and imported as JSON', async () => {
    const agentId = await newAgent('You refund broken orders.');
    const bad = await api('POST', `/v1/agents/${agentId}/tests`, {
      name: 'bad',
      turns: [
        {
          user: 'hi',
          expect: [
            { type: 'reply_matches', pattern: '(?<=x)' },
            { type: 'tool_called', tool: 'refund_order', arguments: { type: 'object', $ref: 'http://evil/' } },
          ],
        },
      ],
    });
    expect(bad.status).toBe(422);
    expect(bad.json.errors.map((e: any) => e.path)).toEqual(
      expect.arrayContaining(['/turns/0/expect/0/pattern', expect.stringMatching(/^\/turns\/0\/expect\/1\/arguments/)]),
    );
    const created = await api('POST', `/v1/agents/${agentId}/tests`, REFUND_CASE);
    expect(created.json.revision).toBe(1);
    const changed = await api('PUT', `/v1/agents/${agentId}/tests/${created.json.id}`, {
      ...REFUND_CASE,
      description: 'changed',
    });
    expect(changed.json.revision).toBe(2);
    const exported = await api('GET', `/v1/agents/${agentId}/tests/export`);
    expect(exported.json.tests).toEqual([expect.objectContaining({ name: REFUND_CASE.name, description: 'changed' })]);

    const other = await newAgent('You refund broken orders.');
    const imported = await api('POST', `/v1/agents/${other}/tests/import`, { tests: exported.json.tests });
    expect(imported.json).toEqual({ created: 1, updated: 0, removed: 0 });
    const again = await api('POST', `/v1/agents/${other}/tests/import`, {
      tests: exported.json.tests,
      mode: 'replace',
    });
    expect(again.json).toEqual({ created: 0, updated: 0, removed: 0 });
    const duplicate = await api('POST', `/v1/agents/${other}/tests/import`, { tests: [REFUND_CASE, REFUND_CASE] });
    expect([duplicate.status, duplicate.json.errors[0].path]).toEqual([422, '/tests/1/name']);
    expect((await api('GET', `/v1/agents/${other}/tests`)).json.data).toHaveLength(1);
    // Numbers past Postgres' integer are refused, not sent to the database (route fuzzing found it).
    const huge = await api('POST', `/v1/agents/${other}/test-runs`, { version: 9007199254740947 });
    expect([huge.status, huge.json.errors?.[0]?.path]).toEqual([422, '/version']);
    expect((await api('GET', `/v1/agents/${other}/versions/9007199254740947/test-gate`)).status).toBe(404);
    // A model the platform cannot use here (no Anthropic credentials in this harness) is the caller's to fix.
    const unusable = await api('POST', `/v1/agents/${other}/test-runs`, { model: 'anthropic/claude-x' });
    expect([unusable.status, unusable.json.errors?.[0]?.path]).toEqual([422, '/model']);
    const nonsense = await api('POST', `/v1/agents/${other}/test-runs`, { judge_model: 'not a model' });
    expect([nonsense.status, nonsense.json.errors?.[0]?.path]).toEqual([422, '/judge_model']);
  });
});
