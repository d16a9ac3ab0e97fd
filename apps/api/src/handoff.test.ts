import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, type Browser, tenantWithOwner } from './test-support/accounts.ts';
import {
  call,
  createTenant,
  type Harness,
  readSse,
  runModes,
  type SseEvent,
  seedConfig,
  startHarness,
  visitorCalls,
} from './test-support/harness.ts';

const modes = runModes('handoff');
const PASSWORD = 'correct horse battery staple';
const ORIGIN = 'https://shop.example';
const WHSEC = `whsec_${randomBytes(24).toString('base64')}`;
const WAITING = 'A colleague will be with you shortly.';
const UNAVAILABLE = 'Nobody is here right now; leave your email and we will write back.';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Follows an SSE route in the background, collecting its events until `stop()`. */
function follow(url: string, headers: Record<string, string>) {
  const controller = new AbortController();
  const events: Array<SseEvent & { at: number }> = [];
  const opened = fetch(url, { headers: { ...headers, accept: 'text/event-stream' }, signal: controller.signal });
  const done = opened
    .then((res) => {
      if (res.status !== 200) throw new Error(`stream answered ${res.status}`);
      return readSse(res, (e) => {
        events.push({ ...e, at: Date.now() });
        return false;
      });
    })
    .catch(() => []);
  return {
    events,
    /** Resolves when an event matching `match` arrived (within `timeoutMs`), with how long it took. */
    async next(match: (e: SseEvent) => boolean, timeoutMs = 5000): Promise<SseEvent & { at: number }> {
      const started = Date.now();
      for (;;) {
        const event = events.find(match);
        if (event) return event;
        if (Date.now() - started > timeoutMs) throw new Error(`no matching event: ${JSON.stringify(events)}`);
        await sleep(10);
      }
    },
    async stop() {
      controller.abort();
      await done;
    },
  };
}

/**
 * Issue 21, the backend: the model hands a conversation to people, a member claims it and replies
 * (streamed to the visitor), the visitor's messages go to people without calling the model, and
 * the model takes over again after release, reading the people's part; availability, business
 * hours, the flow step, webhooks and roles.
 */
describe.each(modes)('human handoff (%s)', (mode) => {
  let h: Harness;
  let tenant: { id: string; key: string; owner: Browser };
  let editor: Browser;
  let viewer: Browser;
  let editorId: string;
  let agentId: string;
  let plainAgentId: string;
  let pk: string;
  let otherKey: string;

  const key = () => tenant.key;
  const as = (b: Browser, method: string, path: string, body?: unknown) =>
    b.request(method, path, { tenant: tenant.id, ...(body !== undefined ? { body } : {}) });
  const visitor = visitorCalls(() => ({ url: h.platform.url, key: pk }), ORIGIN);
  const session = (b: Browser) => ({ cookie: `agentry_session=${b.cookie}`, 'x-agentry-tenant': tenant.id });
  const newConversation = async (agent = agentId) =>
    (await call(h, 'POST', '/v1/conversations', { key: key(), body: { agent_id: agent } })).json.id as string;
  const send = (conversation: string, content: string) =>
    call(h, 'POST', `/v1/conversations/${conversation}/messages`, { key: key(), body: { content } });
  const setAvailable = async (available: boolean) =>
    expect((await as(editor, 'PUT', '/v1/inbox/availability', { available })).status).toBe(200);
  const hooks = (event: string, conversation: string) =>
    h.endpoint.requests.filter(
      (r) =>
        r.path === '/hooks' &&
        (r.json as any)?.type === event &&
        (r.json as any)?.data?.conversation_id === conversation,
    );
  const waitForHook = async (event: string, conversation: string) => {
    for (let i = 0; i < 200; i++) {
      const found = hooks(event, conversation);
      if (found.length > 0) return found;
      await sleep(50);
    }
    throw new Error(`no ${event} webhook for ${conversation}`);
  };
  /** Every text the model was sent in its latest request, joined. */
  const lastPrompt = () => JSON.stringify(h.llm.requests.at(-1)?.body.messages ?? []);

  beforeAll(async () => {
    h = await startHarness(mode, 'openai', {
      env: { SECRETS_KEY: randomBytes(32).toString('base64'), WEBHOOK_POLL_MS: '50' },
    });
    tenant = await tenantWithOwner(h, 'Helpdesk', 'owner@helpdesk.test', PASSWORD);
    editor = await addMember(h, tenant.owner, tenant.id, 'ana@helpdesk.test', 'editor', PASSWORD);
    viewer = await addMember(h, tenant.owner, tenant.id, 'vic@helpdesk.test', 'viewer', PASSWORD);
    editorId = (await as(editor, 'GET', '/v1/auth/session')).json?.user?.id;
    if (!editorId) {
      const members = (await call(h, 'GET', '/v1/members', { key: key() })).json.data as any[];
      editorId = members.find((m) => m.email === 'ana@helpdesk.test').user_id;
    }
    expect((await call(h, 'PUT', '/v1/secrets/HOOK_SECRET', { key: key(), body: { value: WHSEC } })).status).toBe(201);
    const config = seedConfig();
    config.handoff = {
      enabled: true,
      visitor_button: true,
      waiting_message: WAITING,
      unavailable_message: UNAVAILABLE,
      when_unavailable: 'collect_contact',
    };
    config.webhooks = [
      {
        url: `${h.endpoint.url}/hooks`,
        events: ['conversation.handoff_requested', 'conversation.human_message', 'conversation.resolved'],
        signing_secret: 'HOOK_SECRET',
      },
    ];
    config.flows = [
      {
        name: 'sales',
        description: 'Pass the visitor to the sales team.',
        triggers: { patterns: ['(?i)^talk to sales$'] },
        steps: [{ id: 'pass', type: 'handoff', message: 'Passing you to our sales team.' }],
      },
    ];
    const agent = await call(h, 'POST', '/v1/agents', { key: key(), body: { config } });
    expect(agent.status, JSON.stringify(agent.json)).toBe(201);
    agentId = agent.json.id;
    plainAgentId = (await call(h, 'POST', '/v1/agents', { key: key(), body: { config: seedConfig() } })).json.id;
    const publishable = await call(h, 'POST', '/v1/api-keys', {
      key: key(),
      body: { kind: 'publishable', agents: [agentId, plainAgentId], allowed_origins: [ORIGIN] },
    });
    pk = publishable.json.key;
    otherKey = await createTenant(h, 'Elsewhere');
  }, 120_000);
  afterAll(() => h?.close());

  it('model hands off → inbox within 1 s → claim → reply streamed → visitor held (no model call) → release → the model reads the people’s part', async () => {
    await setAvailable(true);
    const inbox = follow(`${h.platform.url}/v1/inbox/events`, session(editor));
    const conversation = await newConversation();
    const followed = follow(`${h.platform.url}/v1/conversations/${conversation}/events`, {
      authorization: `Bearer ${pk}`,
      origin: ORIGIN,
    });
    await sleep(200); // both streams are open

    h.llm.enqueue({
      type: 'reply',
      toolCalls: [
        {
          id: 'call_handoff',
          name: 'handoff_to_human',
          arguments: { reason: 'Refund above the limit', summary: 'Customer wants a refund of 300 € for order 42.' },
        },
      ],
    });
    const asked = Date.now();
    const run = await send(conversation, 'I want my money back, let me talk to a person');
    expect(run.status).toBe(200);
    expect(run.json.status).toBe('completed');
    expect(run.json.reply).toBe(WAITING);
    const arrived = await inbox.next((e) => e.event === 'mode' && e.data.conversation_id === conversation);
    // In the member's inbox within 1 s of the handoff (recorded during the model's turn).
    expect(arrived.at - Date.parse(arrived.data.mode_changed_at)).toBeLessThan(1000);
    expect(arrived.at).toBeGreaterThanOrEqual(asked);
    expect(arrived.data).toMatchObject({
      to: 'pending_human',
      by: 'model',
      handoff: { source: 'model', reason: 'Refund above the limit', summary: expect.stringContaining('order 42') },
    });

    const detail = await call(h, 'GET', `/v1/conversations/${conversation}`, { key: key() });
    expect(detail.json).toMatchObject({ mode: 'pending_human', handoff: { mode: 'pending_human' } });
    const waiting = await as(viewer, 'GET', '/v1/inbox?filter=waiting');
    expect(waiting.status).toBe(200); // viewers read
    const item = waiting.json.data.find((i: any) => i.conversation_id === conversation);
    expect(item).toMatchObject({
      mode: 'pending_human',
      handoff: { summary: 'Customer wants a refund of 300 € for order 42.' },
      waiting_seconds: expect.any(Number),
    });

    const requestsBefore = h.llm.requests.length;
    // Viewers read; editors and owners act.
    const refused = await as(viewer, 'POST', `/v1/conversations/${conversation}/assign`, {});
    expect([refused.status, refused.json.code]).toEqual([403, 'insufficient_role']);
    // A member cannot reply before someone holds it.
    const early = await as(editor, 'POST', `/v1/conversations/${conversation}/human-messages`, { content: 'Hi' });
    expect([early.status, early.json.code]).toEqual([409, 'conversation_not_waiting']);

    const claimed = await as(editor, 'POST', `/v1/conversations/${conversation}/assign`, {});
    expect(claimed.status, claimed.text).toBe(200);
    expect(claimed.json).toMatchObject({ mode: 'human', assigned_to: editorId });
    // The owner cannot claim what Ana holds, but may assign it (to her again: nothing changes).
    const stolen = await as(tenant.owner, 'POST', `/v1/conversations/${conversation}/assign`, {});
    expect([stolen.status, stolen.json.code]).toEqual([409, 'conversation_assigned_elsewhere']);
    expect((await as(viewer, 'GET', '/v1/inbox?filter=mine')).json.data).toEqual([]);
    expect((await as(editor, 'GET', '/v1/inbox?filter=mine')).json.data.map((i: any) => i.conversation_id)).toEqual([
      conversation,
    ]);
    await followed.next((e) => e.event === 'mode' && e.data.mode === 'human' && e.data.assigned_name === 'ana');

    const reply = await as(editor, 'POST', `/v1/conversations/${conversation}/human-messages`, {
      content: 'Hi, Ana here. I can approve that refund.',
    });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.json).toMatchObject({ role: 'assistant', author: { type: 'human', name: 'ana' } });
    const streamed = await followed.next((e) => e.event === 'human-message');
    expect(streamed.data.message).toMatchObject({
      content: [{ type: 'text', text: 'Hi, Ana here. I can approve that refund.' }],
      author: { type: 'human', name: 'ana' },
    });
    // The visitor's view of the stream has no summaries, notes or ids of members.
    expect(JSON.stringify(followed.events)).not.toContain('order 42');

    // The visitor answers: stored for people, shown live in the inbox, the model is not called.
    const held = await visitor('POST', `/v1/conversations/${conversation}/messages`, undefined, {
      content: 'Great, it was order 42',
    });
    expect(held.status).toBe(202);
    expect(held.json).toMatchObject({ object: 'held_message', mode: 'human' });
    const live = await inbox.next((e) => e.event === 'visitor-message' && e.data.conversation_id === conversation);
    expect(live.data.message.content[0].text).toBe('Great, it was order 42');
    const unread = (await as(editor, 'GET', '/v1/inbox')).json.data.find(
      (i: any) => i.conversation_id === conversation,
    );
    expect(unread.unread_count).toBe(1);
    expect(h.llm.requests.length).toBe(requestsBefore);

    // An internal note: members see it, the visitor and the model never do.
    const note = await as(editor, 'POST', `/v1/conversations/${conversation}/notes`, {
      content: 'INTERNAL: customer is a VIP',
    });
    expect(note.status).toBe(201);
    const visitorView = await visitor('GET', `/v1/conversations/${conversation}`);
    expect(JSON.stringify(visitorView.json)).not.toContain('INTERNAL');
    expect(visitorView.json.messages.at(-2)).toMatchObject({ author: { type: 'human', name: 'ana', user_id: null } });

    const released = await as(editor, 'POST', `/v1/conversations/${conversation}/release`, {
      note: 'Refund of 300 € approved; confirm it if asked.',
    });
    expect(released.status).toBe(200);
    expect(released.json.mode).toBe('bot');
    expect(JSON.stringify((await visitor('GET', `/v1/conversations/${conversation}`)).json)).not.toContain(
      'approved; confirm',
    );

    h.llm.enqueue({ type: 'reply', text: 'Your refund is confirmed.' });
    const after = await send(conversation, 'So is my refund done?');
    expect(after.json.status).toBe('completed');
    expect(h.llm.requests.length).toBe(requestsBefore + 1);
    const prompt = lastPrompt();
    expect(prompt).toContain('Hi, Ana here. I can approve that refund.');
    expect(prompt).toContain('ana, a person from the team');
    expect(prompt).toContain('Great, it was order 42');
    expect(prompt).toContain('Refund of 300 € approved');
    expect(prompt).not.toContain('INTERNAL');

    // Every transition is recorded, with who.
    const history = await as(viewer, 'GET', `/v1/conversations/${conversation}/handoff-history`);
    expect(history.json.data.map((e: any) => [e.kind, e.from, e.to, e.actor.type])).toEqual([
      ['transition', 'bot', 'pending_human', 'model'],
      ['transition', 'pending_human', 'human', 'user'],
      ['note', null, null, 'user'],
      ['transition', 'human', 'bot', 'user'],
    ]);
    const auditLog = await call(h, 'GET', '/v1/audit-events?limit=100', { key: key() });
    const actions = (auditLog.json.data as any[])
      .filter((e) => e.target.id === conversation)
      .map((e) => e.action)
      .reverse();
    expect(actions).toEqual(['conversation.handoff_requested', 'conversation.assigned', 'conversation.released']);

    const resolved = await as(editor, 'POST', `/v1/conversations/${conversation}/resolve`, {});
    expect(resolved.json.mode).toBe('resolved');
    for (const event of ['conversation.handoff_requested', 'conversation.human_message', 'conversation.resolved']) {
      const [delivery] = await waitForHook(event, conversation);
      expect((delivery!.json as any).data).toMatchObject({ conversation_id: conversation, agent_id: agentId });
    }
    expect((hooks('conversation.handoff_requested', conversation)[0]!.json as any).data.summary).toContain('order 42');
    expect((hooks('conversation.human_message', conversation)[0]!.json as any).data.message.author.name).toBe('ana');
    // The visitor's stream carried people's replies and modes only: no notes, no visitor messages.
    expect(new Set(followed.events.map((e) => e.event))).toEqual(new Set(['mode', 'human-message']));
    await inbox.stop();
    await followed.stop();
  });

  it('a member takes over a conversation the model answers; the model is not called until released', async () => {
    const conversation = await newConversation();
    h.llm.enqueue({ type: 'reply', text: 'Hello!' });
    expect((await send(conversation, 'hi')).json.status).toBe('completed');
    const took = await as(tenant.owner, 'POST', `/v1/conversations/${conversation}/assign`, { user_id: editorId });
    expect(took.json).toMatchObject({ mode: 'human', assigned_to: editorId });
    const before = h.llm.requests.length;
    for (const text of ['one', 'two']) expect((await send(conversation, text)).status).toBe(202);
    expect(h.llm.requests.length).toBe(before);
    // The owner is not the holder: only Ana (or a secret key, for her) replies.
    const ownerReply = await as(tenant.owner, 'POST', `/v1/conversations/${conversation}/human-messages`, {
      content: 'x',
    });
    expect(ownerReply.json.code).toBe('conversation_assigned_elsewhere');
    const byKey = await call(h, 'POST', `/v1/conversations/${conversation}/human-messages`, {
      key: key(),
      body: { content: 'Sent by the CRM' },
    });
    expect(byKey.json).toMatchObject({ author: { type: 'human', name: 'ana', user_id: editorId } });
    await call(h, 'POST', `/v1/conversations/${conversation}/resolve`, { key: key(), body: {} });
    // A resolved conversation the visitor writes to goes back to the model.
    h.llm.enqueue({ type: 'reply', text: 'Back again?' });
    expect((await send(conversation, 'hello again')).json.status).toBe('completed');
    expect(h.llm.requests.length).toBe(before + 1);
  });

  it('nobody available: the visitor gets the configured message and the model keeps the conversation', async () => {
    await setAvailable(false);
    const conversation = await newConversation();
    h.llm.enqueue({
      type: 'reply',
      toolCalls: [
        { id: 'call_h2', name: 'handoff_to_human', arguments: { reason: 'asked', summary: 'wants a person' } },
      ],
    });
    const run = await send(conversation, 'a person please');
    expect(run.json.reply).toBe(UNAVAILABLE);
    expect((await call(h, 'GET', `/v1/conversations/${conversation}`, { key: key() })).json.mode).toBe('bot');
    // The model was told to collect contact details (when_unavailable: collect_contact).
    h.llm.enqueue({ type: 'reply', text: 'What is your email?' });
    await send(conversation, 'ok');
    expect(lastPrompt()).toContain('email address or phone number');

    // The widget's button says the same, and asks nobody.
    const button = await visitor('POST', `/v1/conversations/${conversation}/handoff`, undefined, {});
    expect(button.json).toMatchObject({ status: 'unavailable', reason: 'no_member_available', message: UNAVAILABLE });
    expect(
      (await call(h, 'GET', '/v1/inbox', { key: key() })).json.data.map((i: any) => i.conversation_id),
    ).not.toContain(conversation);
  });

  it('business hours: closed hours refuse the handoff even with someone available; open hours let it through', async () => {
    await setAvailable(true);
    const never = await call(h, 'PUT', '/v1/inbox/business-hours', {
      key: key(),
      body: { time_zone: 'Europe/Berlin', intervals: [] },
    });
    expect(never.status).toBe(200);
    const conversation = await newConversation();
    const closed = await visitor('POST', `/v1/conversations/${conversation}/handoff`, undefined, {});
    expect(closed.json).toMatchObject({
      status: 'unavailable',
      reason: 'outside_business_hours',
      message: UNAVAILABLE,
    });
    expect((await call(h, 'GET', '/v1/inbox/availability', { key: key() })).json).toMatchObject({
      open_now: false,
      available_now: false,
    });
    const allWeek = [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day, start: '00:00', end: '24:00' }));
    await call(h, 'PUT', '/v1/inbox/business-hours', {
      key: key(),
      body: { time_zone: 'Pacific/Auckland', intervals: allWeek },
    });
    const open = await visitor('POST', `/v1/conversations/${conversation}/handoff`, undefined, {});
    expect(open.json).toMatchObject({ status: 'pending_human', message: WAITING, state: { mode: 'pending_human' } });
    const bad = await call(h, 'PUT', '/v1/inbox/business-hours', {
      key: key(),
      body: { time_zone: 'Mars/Base', intervals: [{ day: 1, start: '18:00', end: '09:00' }] },
    });
    expect([bad.status, bad.json.code]).toEqual([422, 'validation_failed']);
    await call(h, 'PUT', '/v1/inbox/business-hours', { key: key(), body: { time_zone: null } });
    // Visitors may ask only when the agent offers the button.
    const plain = (await call(h, 'POST', '/v1/conversations', { key: key(), body: { agent_id: plainAgentId } })).json
      .id;
    expect((await visitor('POST', `/v1/conversations/${plain}/handoff`, undefined, {})).status).toBe(403);
  });

  it('a flow’s handoff step asks for a person (no model call)', async () => {
    await setAvailable(true);
    const conversation = await newConversation();
    const before = h.llm.requests.length;
    const run = await send(conversation, 'talk to sales');
    expect(run.json.status).toBe('completed');
    expect(run.json.reply).toBe('Passing you to our sales team.');
    expect(h.llm.requests.length).toBe(before);
    const detail = (await call(h, 'GET', `/v1/conversations/${conversation}`, { key: key() })).json;
    expect(detail.handoff).toMatchObject({ mode: 'pending_human', handoff: { source: 'flow' } });
  });

  it('another tenant sees none of it', async () => {
    const conversation = await newConversation();
    for (const [method, path, body] of [
      ['POST', 'handoff', {}],
      ['POST', 'assign', { user_id: editorId }],
      ['POST', 'human-messages', { content: 'x' }],
      ['POST', 'notes', { content: 'x' }],
      ['POST', 'release', {}],
      ['POST', 'resolve', {}],
      ['GET', 'handoff-history', undefined],
      ['GET', 'events', undefined],
    ] as const) {
      const res = await call(h, method, `/v1/conversations/${conversation}/${path}`, {
        key: otherKey,
        ...(body ? { body } : {}),
      });
      expect([res.status, res.json?.code], `${method} ${path}`).toEqual([404, 'conversation_not_found']);
    }
    expect((await call(h, 'GET', '/v1/inbox', { key: otherKey })).json.data).toEqual([]);
    expect((await call(h, 'GET', `/v1/conversations/${conversation}`, { key: key() })).json.mode).toBe('bot');
  });
});
