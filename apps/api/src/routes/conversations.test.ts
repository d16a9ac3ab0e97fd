import { conversations, withSystemScope } from '@agentry/db';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, type Harness, seedConfig, startHarness } from '../test-support/harness.ts';
import { readConversationFilters } from './conversation-filters.ts';

describe('conversation list filters (query parsing)', () => {
  it('reads q, from, to, status and has_error, naming the parameter of a bad value', () => {
    expect(
      readConversationFilters({ q: ' refund ', from: '2026-03-01', to: '2026-03-02', has_error: 'false' }),
    ).toEqual({
      search: 'refund',
      createdFrom: new Date('2026-03-01T00:00:00Z'),
      createdBefore: new Date('2026-03-03T00:00:00Z'),
      hasError: false,
    });
    expect(readConversationFilters({ status: 'waiting', q: '  ' })).toEqual({ lastRunStatus: 'waiting' });
    for (const [query, parameter] of [
      [{ from: '2026-02-30' }, 'from'],
      [{ to: 'yesterday' }, 'to'],
      [{ from: '2026-03-02', to: '2026-03-01' }, 'from'],
      [{ status: 'done' }, 'status'],
      [{ has_error: 'yes' }, 'has_error'],
      [{ q: 'x'.repeat(201) }, 'q'],
    ] as const) {
      expect(() => readConversationFilters(query)).toThrow(
        expect.objectContaining({ code: 'invalid_query', details: { parameter } }),
      );
    }
  });
});

describe.each(['embedded', 'embedded-postgres'] as const)('GET /v1/conversations search and filters (%s)', (mode) => {
  let h: Harness;
  let key: string;
  let other: string;
  let agentA: string;
  let agentB: string;
  const ids: Record<string, string> = {};

  /** A new conversation of the agent with one message; returns the conversation id. */
  async function chat(agentId: string, content: string): Promise<string> {
    const conv = await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agentId } });
    await call(h, 'POST', `/v1/conversations/${conv.json.id}/messages`, { key, body: { content } });
    return conv.json.id;
  }

  const list = async (query: string, as = key) => {
    const res = await call(h, 'GET', `/v1/conversations?${query}`, { key: as });
    expect(res.status).toBe(200);
    return (res.json.data as Array<{ id: string }>).map((c) => c.id).sort();
  };
  const named = (...names: string[]) => names.map((n) => ids[n]).sort();

  beforeAll(async () => {
    h = await startHarness(mode, 'openai');
    key = await createTenant(h, 'A');
    other = await createTenant(h, 'B');
    const config = seedConfig();
    config.tools[0].endpoint.url = `${h.endpoint.url}/contacts/add`;
    agentA = (await call(h, 'POST', '/v1/agents', { key, body: { config } })).json.id;
    agentB = (await call(h, 'POST', '/v1/agents', { key, body: { config } })).json.id;
    h.endpoint.respondWith(() => ({ status: 500, body: { ok: false } }));

    h.llm.enqueue({ type: 'reply', text: 'Sure' });
    ids.refund = await chat(agentA, 'I want a REFUND for order 100%');
    h.llm.enqueue(
      { type: 'reply', toolCalls: [{ name: 'save_customer_information', arguments: { email: 'bad@example.com' } }] },
      { type: 'reply', text: 'That failed' },
    );
    ids.toolError = await chat(agentA, '我的邮箱 bad@example.com');
    h.llm.enqueue({ type: 'error', status: 400, message: 'model refused' });
    ids.failed = await chat(agentB, 'hello');
    h.llm.enqueue({ type: 'reply', text: 'Old news' });
    ids.old = await chat(agentB, 'an old question');
    await withSystemScope(h.platform.database.db, 'test: backdate a conversation', (tx) =>
      tx
        .update(conversations)
        .set({ createdAt: new Date('2026-03-10T12:00:00Z') })
        .where(eq(conversations.id, ids.old ?? '')),
    );
    ids.empty = (await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agentB } })).json.id;
  }, 60_000);
  afterAll(() => h?.close());

  it('searches the text of messages, case-insensitively and literally', async () => {
    expect(await list('q=refund')).toEqual(named('refund'));
    expect(await list('q=100%25')).toEqual(named('refund'));
    expect(await list('q=%25')).toEqual(named('refund'));
    expect(await list(`q=${encodeURIComponent('邮箱')}`)).toEqual(named('toolError'));
    expect(await list('q=That%20failed')).toEqual(named('toolError'));
    expect(await list('q=nothing-like-this')).toEqual([]);
    expect(await list('q=refund', other)).toEqual([]);
  });

  it('filters by latest run status and by errors (failed runs and failed tool calls)', async () => {
    expect(await list('status=failed')).toEqual(named('failed'));
    expect(await list('status=completed')).toEqual(named('refund', 'toolError', 'old'));
    expect(await list('has_error=true')).toEqual(named('toolError', 'failed'));
    expect(await list('has_error=false')).toEqual(named('refund', 'old', 'empty'));
    expect(await list(`has_error=true&agent_id=${agentA}`)).toEqual(named('toolError'));
  });

  it('filters by creation day (UTC, both ends included) and pages through the filtered list', async () => {
    expect(await list('from=2026-03-10&to=2026-03-10')).toEqual(named('old'));
    expect(await list('to=2026-03-09')).toEqual([]);
    const today = new Date().toISOString().slice(0, 10);
    expect(await list(`from=${today}&agent_id=${agentB}`)).toEqual(named('failed', 'empty'));
    const first = await call(h, 'GET', '/v1/conversations?status=completed&limit=2', { key });
    const second = await call(h, 'GET', `/v1/conversations?status=completed&limit=2&cursor=${first.json.next_cursor}`, {
      key,
    });
    expect([...first.json.data, ...second.json.data].map((c: { id: string }) => c.id).sort()).toEqual(
      named('refund', 'toolError', 'old'),
    );
    expect(second.json.next_cursor).toBeNull();
  });

  it('says how each listed conversation’s runs went', async () => {
    const res = await call(h, 'GET', '/v1/conversations', { key });
    const byId = new Map(res.json.data.map((c: { id: string }) => [c.id, c]));
    expect(byId.get(ids.failed)).toMatchObject({ last_run_status: 'failed', has_error: true });
    expect(byId.get(ids.refund)).toMatchObject({ last_run_status: 'completed', has_error: false });
    expect(byId.get(ids.empty)).toMatchObject({ last_run_status: null, has_error: false });
  });

  it('shows each listed conversation’s first user message (cut to 200 characters) and its end user', async () => {
    const long = `Can I book a demo? ${'x'.repeat(300)}`;
    const conv = await call(h, 'POST', '/v1/conversations', {
      key,
      body: { agent_id: agentA, context: { userId: 'customer-42' } },
    });
    expect(conv.status).toBe(201);
    h.llm.enqueue({ type: 'reply', text: 'Sure' }, { type: 'reply', text: 'Again' });
    await call(h, 'POST', `/v1/conversations/${conv.json.id}/messages`, { key, body: { content: long } });
    await call(h, 'POST', `/v1/conversations/${conv.json.id}/messages`, { key, body: { content: 'second' } });
    const res = await call(h, 'GET', '/v1/conversations', { key });
    const byId = new Map<string, any>(res.json.data.map((c: { id: string }) => [c.id, c]));
    expect(byId.get(conv.json.id)).toMatchObject({ preview: long.slice(0, 200), end_user_id: 'customer-42' });
    expect(byId.get(ids.toolError ?? '')).toMatchObject({ preview: '我的邮箱 bad@example.com', end_user_id: null });
    expect(byId.get(ids.empty ?? '')).toMatchObject({ preview: null, end_user_id: null });
  });

  it('answers 400 invalid_query naming a malformed filter, writing nothing', async () => {
    const bad = await call(h, 'GET', '/v1/conversations?has_error=maybe', { key });
    expect([bad.status, bad.json.code]).toEqual([400, 'invalid_query']);
    expect(bad.json.detail).toMatch(/has_error/);
  });
});
