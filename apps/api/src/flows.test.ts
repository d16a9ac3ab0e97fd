import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const modes = runModes('flows');

describe.each(modes)('flows (%s)', (mode) => {
  let h: Harness;
  let key: string;
  let agentId: string;
  beforeAll(async () => {
    h = await startHarness(mode, 'openai');
    key = await createTenant(h);
    const agent = await call(h, 'POST', '/v1/agents', { key, body: { config: leaveConfig(h.endpoint.url) } });
    expect(agent.status, JSON.stringify(agent.json)).toBe(201);
    agentId = agent.json.id;
  }, 60_000);
  afterAll(() => h?.close());

  const conversation = async () =>
    (await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agentId } })).json.id as string;
  const say = async (conv: string, content: string) => {
    const res = await call(h, 'POST', `/v1/conversations/${conv}/messages`, { key, body: { content } });
    expect(res.status, JSON.stringify(res.json)).toBeLessThan(300);
    return res.json;
  };

  it('a trigger pattern runs the whole leave request with zero model requests', async () => {
    h.endpoint.reset();
    h.endpoint.respondWith((req) => ({ status: 201, body: { id: 'LR-7', received: req.json } }));
    const conv = await conversation();
    const llmBefore = h.llm.requests.length;
    expect((await say(conv, 'I want to make a leave request')).reply).toBe(
      'Which day does your leave start? (YYYY-MM-DD)',
    );
    expect((await say(conv, 'from 2026-12-01')).reply).toBe('And the last day? (YYYY-MM-DD)');
    expect((await say(conv, 'until 2026-12-05')).reply).toBe('What is the reason for your leave?');
    const confirm = await say(conv, 'Family visit');
    expect(confirm.reply).toBe('File leave from 2026-12-01 to 2026-12-05 (Family visit)?');
    const events = await readSse(
      await fetch(`${h.platform.url}/v1/runs/${confirm.id}/events`, { headers: { authorization: `Bearer ${key}` } }),
      (e) => e.event === 'run-status' && e.data.final === true,
    );
    expect(events.find((e) => e.event === 'flow' && e.data.action === 'step')?.data).toMatchObject({
      flow: 'leave_request',
      stepId: 'confirm',
      quickReplies: ['Yes, file it', 'No'],
    });
    // A reloaded widget shows the pending question's buttons again: the conversation lists them.
    const pending = await call(h, 'GET', `/v1/conversations/${conv}`, { key });
    expect(pending.json.quick_replies).toEqual(['Yes, file it', 'No']);
    const done = await say(conv, 'Yes, file it');
    expect(done.reply).toBe('Done: your leave request LR-7 is filed.');
    expect((await call(h, 'GET', `/v1/conversations/${conv}`, { key })).json.quick_replies).toBeUndefined();
    expect(h.llm.requests.length).toBe(llmBefore);
    expect(h.endpoint.requests).toHaveLength(1);
    expect(h.endpoint.requests[0]!.json).toMatchObject({
      start: '2026-12-01',
      end: '2026-12-05',
      reason: 'Family visit',
    });
    // The transcript shows each flow turn: its state as a flow__ call, the tool step, the reply.
    const transcript = (await call(h, 'GET', `/v1/conversations/${conv}`, { key })).json.messages;
    const states = transcript.flatMap((m: any) =>
      m.content.filter((p: any) => p.type === 'tool_result' && p.name === 'flow__leave_request'),
    );
    expect(states.map((p: any) => p.output.status)).toEqual(['active', 'active', 'active', 'active', 'ended']);
    expect(states.at(-1).output.slots).toMatchObject({ request_id: 'LR-7' });
    expect(
      transcript.some((m: any) =>
        m.content.some((p: any) => p.type === 'tool_call' && p.name === 'create_leave_request'),
      ),
    ).toBe(true);
  });

  it('an answer that fails the slot schema is asked again with the reason; leaving mid-way hands back to the model', async () => {
    const conv = await conversation();
    await say(conv, 'leave request please');
    const again = await say(conv, '2026-13-45');
    expect(again.reply).toMatch(/not a valid answer.*date.*Which day does your leave start\?/s);
    expect((await say(conv, '2026-12-01')).reply).toBe('And the last day? (YYYY-MM-DD)');
    const llmBefore = h.llm.requests.length;
    expect((await say(conv, 'Cancel')).reply).toBe('OK, I stopped here.');
    expect(h.llm.requests.length).toBe(llmBefore);
    h.llm.enqueue({ type: 'reply', text: 'You have 25 days of leave a year.' });
    expect((await say(conv, 'How many days do I have?')).reply).toBe('You have 25 days of leave a year.');
    expect(h.llm.requests.length).toBe(llmBefore + 1);
  });

  it('the model starts the flow with its tool, passing what the user already said', async () => {
    h.endpoint.reset();
    const conv = await conversation();
    h.llm.enqueue({
      type: 'reply',
      toolCalls: [
        { id: 'call_flow', name: 'flow__leave_request', arguments: { start: '2026-12-01', end: '2026-12-03' } },
      ],
    });
    const llmBefore = h.llm.requests.length;
    const first = await say(conv, 'I need to be off from the 1st to the 3rd of December');
    expect(first.reply).toBe('What is the reason for your leave?');
    expect(h.llm.requests.length).toBe(llmBefore + 1);
    const offered = (h.llm.requests.at(-1)!.body as any).tools.map((t: any) => t.function.name);
    expect(offered).toContain('flow__leave_request');
    expect((await say(conv, 'Moving house')).reply).toBe('File leave from 2026-12-01 to 2026-12-03 (Moving house)?');
    expect((await say(conv, 'no')).reply).toBe('OK, I did not file anything.');
    expect(h.endpoint.requests).toHaveLength(0);
    expect(h.llm.requests.length).toBe(llmBefore + 1);
  });

  it('a tool step that needs approval parks the run; approved it is sent once, declined the flow takes on_error', async () => {
    const config = leaveConfig(h.endpoint.url);
    config.tools[0].approval = 'always';
    const approving = (await call(h, 'POST', '/v1/agents', { key, body: { config } })).json.id;
    h.endpoint.reset();
    h.endpoint.respondWith(() => ({ status: 201, body: { id: 'LR-8' } }));
    for (const decision of ['approve', 'decline'] as const) {
      const conv = (await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: approving } })).json.id;
      for (const text of ['leave request', '2026-12-01', '2026-12-02', 'Dentist']) await say(conv, text);
      const waiting = await say(conv, 'yes');
      expect(waiting.status).toBe('waiting');
      const events = await readSse(
        await fetch(`${h.platform.url}/v1/runs/${waiting.id}/events`, { headers: { authorization: `Bearer ${key}` } }),
        (e) => e.event === 'waiting',
      );
      const pending = events.at(-1)!.data.pending;
      expect(pending).toMatchObject([
        { name: 'create_leave_request', kind: 'approval', arguments: { reason: 'Dentist' } },
      ]);
      const answered = await call(h, 'POST', `/v1/runs/${waiting.id}/tool-results`, {
        key,
        body: { results: [{ tool_call_id: pending[0].tool_call_id, decision }] },
      });
      expect(answered.status).toBe(202);
      const done = await waitForRun(h, key, waiting.id);
      expect(done.status).toBe('completed');
      expect(done.reply).toBe(
        decision === 'approve'
          ? 'Done: your leave request LR-8 is filed.'
          : 'Sorry, the HR system did not accept the request. Please try again later.',
      );
      // The waiting call is stored once: the turn run again after the answer does not repeat it.
      const messages = (await call(h, 'GET', `/v1/conversations/${conv}`, { key })).json.messages;
      const ids = messages.flatMap((m: any) =>
        m.content.filter((p: any) => p.type === 'tool_call').map((p: any) => p.id),
      );
      expect(ids.length).toBe(new Set(ids).size);
      expect(ids.filter((id: string) => id === pending[0].tool_call_id)).toHaveLength(1);
    }
    expect(h.endpoint.requests).toHaveLength(1);
  });

  it('a run cancelled during a tool step ends cancelled and leaves the flow where it was', async () => {
    h.endpoint.reset();
    h.endpoint.respondWith(() => ({ status: 201, body: { id: 'LR-5' }, delayMs: 10_000 }));
    const conv = await conversation();
    for (const text of ['leave request', '2026-12-01', '2026-12-02', 'Dentist']) await say(conv, text);
    const sent = await fetch(`${h.platform.url}/v1/conversations/${conv}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', prefer: 'respond-async' },
      body: JSON.stringify({ content: 'yes' }),
    });
    const run = (await sent.json()) as { id: string };
    await h.endpoint.waitForRequests(1, 10_000);
    expect((await call(h, 'POST', `/v1/runs/${run.id}/cancel`, { key })).status).toBeLessThan(300);
    expect((await waitForRun(h, key, run.id)).status).toBe('cancelled');
    h.endpoint.respondWith(() => ({ status: 201, body: { id: 'LR-6' } }));
    // The flow still waits for the confirmation it asked for.
    expect((await say(conv, 'yes')).reply).toBe('Done: your leave request LR-6 is filed.');
  });

  it('a slot without a pattern is read by the model, which corrects an invalid value; a new subject leaves the flow', async () => {
    const conv = await conversation();
    expect((await say(conv, 'give feedback')).reply).toBe('How would you rate us from 1 to 5?');
    const llmBefore = h.llm.requests.length;
    h.llm.enqueue(
      { type: 'reply', toolCalls: [{ id: 'c1', name: 'set_value', arguments: { value: 9 } }] },
      { type: 'reply', toolCalls: [{ id: 'c2', name: 'set_value', arguments: { value: 4 } }] },
    );
    expect((await say(conv, 'four out of five')).reply).toBe('Thanks for the 4!');
    expect(h.llm.requests.length).toBe(llmBefore + 2);
    expect(JSON.stringify(h.llm.requests.at(-1)!.body)).toMatch(/must be <= 5|maximum|at most 5/);

    const other = await conversation();
    await say(other, 'give feedback');
    h.llm.enqueue(
      { type: 'reply', toolCalls: [{ id: 'c3', name: 'change_subject', arguments: {} }] },
      { type: 'reply', text: 'Orders ship within 2 working days.' },
    );
    expect((await say(other, 'when will my order ship?')).reply).toBe('Orders ship within 2 working days.');
    // The model answering saw the flow's turn before the question.
    expect(JSON.stringify(h.llm.requests.at(-1)!.body)).toContain('flow__feedback');
  });
});
