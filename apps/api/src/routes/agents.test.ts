import { runs, withSystemScope } from '@agentry/db';
import { availableServices } from '@agentry/testkit';
import { asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, type Harness, type Mode, seedConfig, startHarness } from '../test-support/harness.ts';

const modes: Mode[] = availableServices().postgres ? ['embedded', 'embedded-postgres'] : ['embedded'];

describe.each(modes)('agent routes (%s)', (mode) => {
  let h: Harness;
  let key: string;
  let otherKey: string;
  beforeAll(async () => {
    h = await startHarness(mode, 'openai');
    key = await createTenant(h, 'A');
    otherKey = await createTenant(h, 'B');
  }, 60_000);
  afterAll(() => h?.close());

  const pointedConfig = () => {
    const config = seedConfig();
    config.tools[0].endpoint.url = `${h.endpoint.url}/contacts/add`;
    return config;
  };

  it('validates a config: summary with the system prompt, or every issue with path, code and hint', async () => {
    const ok = await call(h, 'POST', '/v1/agents/validate', { key, body: { config: seedConfig() } });
    expect(ok.status).toBe(200);
    expect(ok.json.valid).toBe(true);
    expect(ok.json.summary.tools.map((t: { name: string }) => t.name)).toEqual(['save_customer_information']);
    expect(ok.json.summary.system_prompt).toContain('Agent Name');

    const broken = seedConfig();
    broken.tools[0].endpoint.body.email = '{{emial}}';
    broken.action_books[0].tools = ['save_customer'];
    const bad = await call(h, 'POST', '/v1/agents/validate', { key, body: { config: broken } });
    expect(bad.status).toBe(422);
    expect(bad.type).toBe('application/problem+json');
    expect(bad.json.errors.map((e: { path: string; code: string }) => [e.path, e.code]).sort()).toEqual([
      ['/action_books/0/tools/0', 'unknown_tool'],
      ['/tools/0/endpoint/body/email', 'unknown_placeholder'],
    ]);
    expect(bad.json.errors.find((e: { code: string }) => e.code === 'unknown_placeholder').hint).toContain('email');
  });

  it('refuses a triple-stash placeholder at upload, naming the field and how to write it', async () => {
    const config = seedConfig();
    config.tools[0].endpoint.body.email = '{{{email}}}';
    const res = await call(h, 'POST', '/v1/agents', { key, body: { config } });
    expect([res.status, res.json.code]).toEqual([422, 'validation_failed']);
    expect(res.json.errors).toEqual([
      expect.objectContaining({
        path: '/tools/0/endpoint/body/email',
        code: 'template_triple_stash',
        hint: expect.stringContaining('write {{email}}'),
      }),
    ]);
  });

  it('keeps immutable versions: drafts, publish, roll back, diff, prompt', async () => {
    const created = await call(h, 'POST', '/v1/agents', { key, body: { config: seedConfig() } });
    const id = created.json.id;
    const changed = seedConfig();
    changed.basic_settings.tone = 'Formal';
    const draft = await call(h, 'POST', `/v1/agents/${id}/versions`, {
      key,
      body: { config: changed, publish: false },
    });
    expect(draft.status).toBe(201);
    expect(draft.json).toMatchObject({ version: 2, published: false });
    expect((await call(h, 'GET', `/v1/agents/${id}`, { key })).json).toMatchObject({
      published_version: 1,
      latest_version: 2,
    });

    const list = await call(h, 'GET', `/v1/agents/${id}/versions`, { key });
    expect(list.json.data.map((v: { version: number; published: boolean }) => [v.version, v.published])).toEqual([
      [2, false],
      [1, true],
    ]);
    const v2 = await call(h, 'GET', `/v1/agents/${id}/versions/2`, { key });
    expect(v2.json.config.basic_settings.tone).toBe('Formal');

    const diff = await call(h, 'GET', `/v1/agents/${id}/versions/1/diff/2`, { key });
    expect(diff.json.changes).toEqual([
      { path: '/basic_settings/tone', op: 'replace', before: 'Friendly and professional', after: 'Formal' },
    ]);

    expect((await call(h, 'POST', `/v1/agents/${id}/versions/2/publish`, { key })).json.published_version).toBe(2);
    expect((await call(h, 'GET', `/v1/agents/${id}/prompt`, { key })).json.prompt).toContain('Formal');
    // Roll back.
    expect((await call(h, 'POST', `/v1/agents/${id}/versions/1/publish`, { key })).json.published_version).toBe(1);
    const prompt = await call(h, 'GET', `/v1/agents/${id}/prompt`, { key });
    expect(prompt.json).toMatchObject({ version: 1 });
    expect(prompt.json.prompt).not.toContain('Formal');

    for (const path of [
      `/v1/agents/${id}/versions/9`,
      `/v1/agents/${id}/versions/x`,
      `/v1/agents/${id}/versions/1/diff/9`,
    ]) {
      const res = await call(h, 'GET', path, { key });
      expect([res.status, res.json.code]).toEqual([404, 'agent_version_not_found']);
    }
    expect((await call(h, 'POST', `/v1/agents/${id}/versions/9/publish`, { key })).status).toBe(404);
  });

  it('runs a conversation pinned to a draft version', async () => {
    const created = await call(h, 'POST', '/v1/agents', { key, body: { config: pointedConfig() } });
    const draftConfig = pointedConfig();
    draftConfig.basic_settings.name = 'Draft Bot';
    const draft = await call(h, 'POST', `/v1/agents/${created.json.id}/versions`, {
      key,
      body: { config: draftConfig, publish: false },
    });
    const conv = await call(h, 'POST', '/v1/conversations', {
      key,
      body: { agent_id: created.json.id, agent_version: draft.json.version },
    });
    expect(conv.json.agent_version).toBe(2);
    h.llm.enqueue({ type: 'reply', text: 'Hello from the draft' });
    const sent = await call(h, 'POST', `/v1/conversations/${conv.json.id}/messages`, { key, body: { content: 'hi' } });
    expect(sent.json).toMatchObject({ status: 'completed', agent_version: 2, reply: 'Hello from the draft' });
    const system = JSON.stringify(h.llm.requests.at(-1)!.body);
    expect(system).toContain('Draft Bot');
  });

  it('lists each agent with its runs of the last 24 hours', async () => {
    const busy = await call(h, 'POST', '/v1/agents', { key, body: { config: pointedConfig() } });
    const idle = await call(h, 'POST', '/v1/agents', { key, body: { config: pointedConfig() } });
    const conv = await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: busy.json.id } });
    for (const text of ['one', 'two', 'three']) {
      h.llm.enqueue({ type: 'reply', text });
      await call(h, 'POST', `/v1/conversations/${conv.json.id}/messages`, { key, body: { content: text } });
    }
    // The first run happened two days ago: it no longer counts.
    await withSystemScope(h.platform.database.db, 'test: an old run', async (tx) => {
      const [oldest] = await tx
        .select({ id: runs.id })
        .from(runs)
        .where(eq(runs.conversationId, conv.json.id))
        .orderBy(asc(runs.createdAt))
        .limit(1);
      await tx.update(runs).set({ createdAt: sql`now() - interval '2 days'` }).where(eq(runs.id, oldest!.id));
    });
    const listed = (await call(h, 'GET', '/v1/agents', { key })).json.data as Array<{ id: string; runs_24h: number }>;
    expect(listed.find((a) => a.id === busy.json.id)?.runs_24h).toBe(2);
    expect(listed.find((a) => a.id === idle.json.id)?.runs_24h).toBe(0);
  });

  it('checks a conversation’s context against the declared variables and shows visible ones to the model', async () => {
    const config = pointedConfig();
    config.context = [
      { name: 'plan', type: 'string', required: true, description: 'customer plan', visible_to_model: true },
      { name: 'seats', type: 'integer' },
    ];
    const agent = await call(h, 'POST', '/v1/agents', { key, body: { config } });
    const missing = await call(h, 'POST', '/v1/conversations', {
      key,
      body: { agent_id: agent.json.id, context: { seats: 'many' } },
    });
    expect(missing.status).toBe(422);
    expect(missing.json.code).toBe('invalid_context');
    expect(missing.json.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      '/context/plan',
      '/context/seats',
    ]);
    const ok = await call(h, 'POST', '/v1/conversations', {
      key,
      body: { agent_id: agent.json.id, context: { plan: 'enterprise', seats: 40 } },
    });
    expect(ok.status).toBe(201);
    h.llm.enqueue({ type: 'reply', text: 'Hi' });
    await call(h, 'POST', `/v1/conversations/${ok.json.id}/messages`, { key, body: { content: 'hello' } });
    const sent = JSON.stringify(h.llm.requests.at(-1)!.body);
    expect(sent).toContain('plan (customer plan): enterprise');
    expect(sent).not.toContain('seats');
  });

  it('tests a tool: the exact request, then a real send with the shaped response', async () => {
    const config = pointedConfig();
    const render = await call(h, 'POST', '/v1/agents/tools/test', {
      key,
      body: { config, tool: 'save_customer_information', arguments: { email: 'a@b.co' } },
    });
    expect(render.status).toBe(200);
    expect(render.json.request).toMatchObject({ method: 'POST', url: `${h.endpoint.url}/contacts/add` });
    expect(JSON.parse(render.json.request.body)).toEqual({ email: 'a@b.co', dialogId: 'conversation-under-test' });
    expect(render.json.response).toBeUndefined();
    const before = h.endpoint.requests.length;
    expect(before).toBe(0);

    const sent = await call(h, 'POST', '/v1/agents/tools/test', {
      key,
      body: { config, tool: 'save_customer_information', arguments: { email: 'a@b.co' }, send: true },
    });
    expect(sent.json.response).toMatchObject({ status: 200, is_error: false });
    expect(sent.json.response.duration_ms).toBeGreaterThanOrEqual(0);
    expect(h.endpoint.requests).toHaveLength(1);

    const invalid = await call(h, 'POST', '/v1/agents/tools/test', {
      key,
      body: { config, tool: 'save_customer_information', arguments: { name: 'no email' } },
    });
    expect([invalid.status, invalid.json.code]).toEqual([422, 'invalid_arguments']);
    const unknown = await call(h, 'POST', '/v1/agents/tools/test', {
      key,
      body: { config, tool: 'nope', arguments: {} },
    });
    expect([unknown.status, unknown.json.code]).toEqual([404, 'tool_not_found']);
  });

  it('lists agents and conversations with cursor pagination, scoped to the tenant', async () => {
    const mine = await call(h, 'GET', '/v1/agents?limit=1', { key });
    expect(mine.json.data).toHaveLength(1);
    expect(mine.json.next_cursor).toEqual(expect.any(String));
    const next = await call(h, 'GET', `/v1/agents?limit=1&cursor=${mine.json.next_cursor}`, { key });
    const ids = [...mine.json.data, ...next.json.data].map((a: { id: string }) => a.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect((await call(h, 'GET', '/v1/agents', { key: otherKey })).json.data).toEqual([]);
    const convs = await call(h, 'GET', `/v1/conversations?agent_id=${mine.json.data[0].id}`, { key });
    expect(convs.status).toBe(200);
    expect((await call(h, 'GET', '/v1/conversations', { key: otherKey })).json.data).toEqual([]);
    const badLimit = await call(h, 'GET', '/v1/agents?limit=1000', { key });
    expect([badLimit.status, badLimit.json.code]).toEqual([400, 'invalid_query']);
    const foreign = await call(h, 'GET', `/v1/agents/${mine.json.data[0].id}/versions`, { key: otherKey });
    expect([foreign.status, foreign.json.code]).toEqual([404, 'agent_not_found']);
  });
});
