import { randomBytes } from 'node:crypto';
import {
  claimRun,
  createAgent,
  createConversation,
  createRunForMessage,
  createTenantWithKey,
  type Db,
  finishRunFenced,
  getRun,
  listMessages,
  putSecret,
  requestCancel,
  toolCallRecords,
} from '@agentry/db';
import { createEgressPolicy } from '@agentry/http-tools';
import { createMemoryBus, type RunEvent } from '@agentry/run-events';
import { secretContext } from '@agentry/run-service';
import { createSecretBox } from '@agentry/secrets';
import {
  createTestDatabase,
  type FakeLlmServer,
  startFakeLlm,
  startRecordingServer,
  type TestDatabase,
  testDatabaseKinds,
} from '@agentry/testkit';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRunProcessor, type RunExecutorDeps } from './execute-run.ts';

const box = createSecretBox({ keys: { k1: randomBytes(32) }, currentKeyId: 'k1' });
const text = (t: string) => [{ type: 'text' as const, text: t }];

describe.each(testDatabaseKinds())('the start of a run on %s', (kind) => {
  let database: TestDatabase;
  let db: Db;
  let fake: FakeLlmServer;
  let tenantId: string;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    db = database.db;
    fake = await startFakeLlm();
    tenantId = (await createTenantWithKey(db, { name: 'R', key: { prefix: 'sk_r', hash: `hash-r-${kind}` } })).tenant
      .id;
  });
  afterAll(async () => {
    await fake?.close();
    await database?.destroy();
  });
  beforeEach(() => fake.reset());

  /** A new agent (`config` over a minimal one) and a conversation with it. */
  async function conversationWith(config: Record<string, unknown> = {}) {
    const { agent } = await createAgent(db, {
      tenantId,
      name: 'Bot',
      config: { basic_settings: { name: 'Bot' }, ...config },
      contentHash: `h-${randomBytes(4).toString('hex')}`,
      publish: true,
    });
    const conversation = await createConversation(db, { tenantId, agentId: agent.id, agentVersion: null, context: {} });
    return { agent, conversation };
  }

  async function send(conversationId: string, agentId: string, message: string) {
    const { run } = await createRunForMessage(db, {
      tenantId,
      conversationId,
      agentId,
      agentVersion: 1,
      traceId: 'trace',
      message: { role: 'user', content: text(message) },
    });
    return run;
  }

  /** Runs DDL as the tables' owner (the pool is the app role): `set local role none` lasts one transaction. */
  async function asOwner(statement: string) {
    await db.transaction(async (tx) => {
      await tx.execute(sql.raw('set local role none'));
      await tx.execute(sql.raw(statement));
    });
  }

  /** Runs one job of `runId` with a processor over the fake model; its events, and how the job ended. */
  async function process(runId: string, overrides: Partial<RunExecutorDeps> = {}) {
    const events = createMemoryBus();
    const processor = createRunProcessor({
      db,
      models: { openai: { apiKey: 'platform-key', baseURL: fake.openaiBaseUrl }, maxRetries: 0 },
      maxAttempts: 1,
      events,
      ...overrides,
    });
    try {
      const outcome = await processor.process({ id: runId, data: { runId, tenantId }, attempt: 1 }).then(
        () => undefined,
        (error: unknown) => error,
      );
      const seen: RunEvent[] = [];
      for await (const entry of events.subscribe(runId, { signal: AbortSignal.timeout(2000) })) seen.push(entry.event);
      return { outcome, events: seen };
    } finally {
      processor.close();
    }
  }

  it('claims the run and reads its start together: transcript, config and the agent’s own key reach the model', async () => {
    const { agent, conversation } = await conversationWith({
      basic_settings: { name: 'Bot', instructions: 'Answer in one line.' },
      model: { api_key_secret: 'MODEL_KEY' },
    });
    await putSecret(db, tenantId, 'MODEL_KEY', box.seal('tenant-model-key', secretContext(tenantId, 'MODEL_KEY')));
    const run = await send(conversation.id, agent.id, 'hi');
    fake.enqueue({ type: 'reply', text: 'Hello!' });
    const { outcome, events } = await process(run.id, { secretBox: box });
    expect(outcome).toBeUndefined();
    const stored = (await getRun(db, tenantId, run.id))!;
    expect([stored.status, stored.fence]).toEqual(['completed', 1]);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer tenant-model-key');
    const body = JSON.stringify(fake.requests[0]!.body.messages);
    expect(body).toContain('Answer in one line.');
    expect(body).toContain('hi');
    expect(events.map((e) => [e.type, e.status])).toContainEqual(['run-status', 'running']);
    expect(events.at(-1)).toMatchObject({ type: 'run-status', status: 'completed', final: true });
  });

  it('announces `waiting` only once the run is parked: a client answering on seeing it finds the run waiting', async () => {
    const { agent, conversation } = await conversationWith({
      tools: [
        {
          name: 'browser_js_eval',
          description: 'Run JavaScript in the browser',
          type: 'client',
          parameters: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
        },
      ],
    });
    const run = await send(conversation.id, agent.id, 'what is 1+1');
    fake.enqueue({ type: 'reply', toolCalls: [{ id: 'call_1', name: 'browser_js_eval', arguments: { code: '1+1' } }] });
    // What a browser does on the event: it reads (answers) the run at once.
    const bus = createMemoryBus();
    const seenOnWaiting: Array<Promise<string | undefined>> = [];
    const events: typeof bus = {
      ...bus,
      publish: (runId, event) => {
        if (event.type === 'waiting') seenOnWaiting.push(getRun(db, tenantId, runId).then((r) => r?.status));
        return bus.publish(runId, event);
      },
    };
    const { outcome } = await process(run.id, { events });
    expect(outcome).toBeUndefined();
    expect(await Promise.all(seenOnWaiting)).toEqual(['waiting']);
    const waiting = (await getRun(db, tenantId, run.id))!;
    expect(waiting.status).toBe('waiting');
  });

  it('keeps the claim when the setup fails: the failure is written with its fence', async () => {
    const { agent, conversation } = await conversationWith({ model: { api_key_secret: 'NOT_SET' } });
    const run = await send(conversation.id, agent.id, 'hi');
    const { outcome, events } = await process(run.id, { secretBox: box });
    expect(outcome).toMatchObject({ code: 'missing_secret' });
    const stored = (await getRun(db, tenantId, run.id))!;
    expect([stored.status, stored.fence, stored.error?.code]).toEqual(['failed', 1, 'missing_secret']);
    expect(fake.requests).toHaveLength(0);
    expect(events.at(-1)).toMatchObject({ type: 'run-status', status: 'failed', final: true });
  });

  it('keeps the claim when the stored config does not compile', async () => {
    const { agent, conversation } = await conversationWith({ not_a_key: true });
    const run = await send(conversation.id, agent.id, 'hi');
    const { outcome } = await process(run.id);
    expect(outcome).toMatchObject({ code: 'validation_failed' });
    const stored = (await getRun(db, tenantId, run.id))!;
    expect([stored.status, stored.fence, stored.error?.code]).toEqual(['failed', 1, 'validation_failed']);
  });

  it('keeps the claim when the platform has no model for the agent', async () => {
    const { agent, conversation } = await conversationWith();
    const run = await send(conversation.id, agent.id, 'hi');
    const { outcome } = await process(run.id, { models: {} });
    expect(outcome).toMatchObject({ code: 'model_not_configured' });
    const stored = (await getRun(db, tenantId, run.id))!;
    expect([stored.status, stored.fence, stored.error?.code]).toEqual(['failed', 1, 'model_not_configured']);
  });

  it('writes a message kept behind an earlier run before the run reads its transcript', async () => {
    const { agent, conversation } = await conversationWith();
    const earlier = (await claimRun(db, await send(conversation.id, agent.id, 'first')))!;
    const later = await send(conversation.id, agent.id, 'second');
    expect(later.pendingInput).toEqual(text('second'));
    expect(await finishRunFenced(db, earlier, earlier.fence, { status: 'completed' })).toBe(true);
    fake.enqueue({ type: 'reply', text: 'Both read.' });
    const { outcome } = await process(later.id);
    expect(outcome).toBeUndefined();
    const body = JSON.stringify(fake.requests[0]!.body.messages);
    expect(body.indexOf('first')).toBeGreaterThan(-1);
    expect(body.indexOf('second')).toBeGreaterThan(body.indexOf('first'));
    const stored = (await getRun(db, tenantId, later.id))!;
    expect([stored.status, stored.pendingInput]).toEqual(['completed', null]);
    const transcript = await listMessages(db, tenantId, conversation.id);
    expect(transcript.map((m) => [m.seq, m.role, m.runId])).toEqual([
      [1, 'user', earlier.id],
      [2, 'user', later.id],
      [3, 'assistant', later.id],
    ]);
    expect(stored.inputMessageId).toBe(transcript[1]!.id);
  });

  /** An agent with one HTTP tool, `book`, posting to `${url}/book`, and a conversation with it. */
  const conversationWithBooking = (url: string) =>
    conversationWith({
      tools: [
        {
          name: 'book',
          description: 'Books a table',
          parameters: { type: 'object', properties: {} },
          endpoint: { url: `${url}/book`, method: 'POST', body: {} },
        },
      ],
    });

  it('stops an attempt whose fence went stale during a tool call: nothing more written, the run not ended by it', async () => {
    const tool = await startRecordingServer();
    try {
      const { agent, conversation } = await conversationWithBooking(tool.url);
      const run = await send(conversation.id, agent.id, 'book it');
      // While the call is out, a newer attempt claims the run (as after a lost job lock).
      let newer: Awaited<ReturnType<typeof claimRun>>;
      tool.respondWith(async () => {
        newer = await claimRun(db, run);
        return { body: { booked: true } };
      });
      fake.enqueue({ type: 'reply', toolCalls: [{ id: 'call_book', name: 'book', arguments: {} }] });
      fake.enqueue({ type: 'reply', text: 'Booked.' });
      const { outcome, events } = await process(run.id, { egress: createEgressPolicy({ allowlist: ['127.0.0.1'] }) });
      expect(outcome).toBeUndefined();
      expect(tool.requests).toHaveLength(1);
      // The step after the call (its result, the call's completion) and the final answer are not
      // written, and the run stays with the newer attempt: running, its fence.
      const stored = (await getRun(db, tenantId, run.id))!;
      expect([stored.status, stored.fence]).toEqual(['running', newer!.fence]);
      const transcript = await listMessages(db, tenantId, conversation.id);
      expect(transcript.map((m) => m.role)).toEqual(['user', 'assistant']);
      expect((await toolCallRecords(db, run, ['call_book']))[0]?.status).toBe('started');
      expect(events.some((e) => e.type === 'run-status' && e.final)).toBe(false);
    } finally {
      await tool.close();
    }
  });

  it('fails the attempt when the step’s commit fails while the next model call runs, instead of completing', async () => {
    const tool = await startRecordingServer();
    try {
      const { agent, conversation } = await conversationWithBooking(tool.url);
      const run = await send(conversation.id, agent.id, 'book it');
      // The database refuses the step's checkpoint (the tool message carries the marker).
      await asOwner(
        `alter table messages add constraint refuse_marked check (content::text not like '%refuse-this-step%')`,
      );
      tool.respondWith(() => ({ body: { note: 'refuse-this-step' } }));
      fake.enqueue({ type: 'reply', toolCalls: [{ id: 'call_refused', name: 'book', arguments: {} }] });
      fake.enqueue({ type: 'reply', text: 'Booked.' });
      const { events } = await process(run.id, { egress: createEgressPolicy({ allowlist: ['127.0.0.1'] }) });
      const stored = (await getRun(db, tenantId, run.id))!;
      expect(stored.status).toBe('failed');
      const transcript = await listMessages(db, tenantId, conversation.id);
      expect(transcript.map((m) => m.role)).toEqual(['user', 'assistant']);
      expect(events.at(-1)).toMatchObject({ type: 'run-status', status: 'failed', final: true });
    } finally {
      await asOwner('alter table messages drop constraint if exists refuse_marked');
      await tool.close();
    }
  });

  it('stores a tool answer carrying NUL characters (which Postgres refuses) with U+FFFD in their place', async () => {
    const tool = await startRecordingServer();
    try {
      const { agent, conversation } = await conversationWithBooking(tool.url);
      const run = await send(conversation.id, agent.id, 'book it');
      tool.respondWith(() => ({ body: { note: 'booked\u0000 \\u0000' } }));
      fake.enqueue({ type: 'reply', toolCalls: [{ id: 'call_nul', name: 'book', arguments: {} }] });
      fake.enqueue({ type: 'reply', text: 'Booked.' });
      await process(run.id, { egress: createEgressPolicy({ allowlist: ['127.0.0.1'] }) });
      expect((await getRun(db, tenantId, run.id))?.status).toBe('completed');
      const transcript = await listMessages(db, tenantId, conversation.id);
      expect(transcript.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
      expect(transcript[2]?.content).toMatchObject([{ type: 'tool_result', output: { note: 'booked\ufffd \\u0000' } }]);
      expect((await toolCallRecords(db, run, ['call_nul']))[0]).toMatchObject({
        status: 'completed',
        output: { note: 'booked\ufffd \\u0000' },
      });
    } finally {
      await tool.close();
    }
  });

  it('stores a tool answer carrying lone surrogates (which Postgres jsonb refuses) with U+FFFD in their place', async () => {
    const tool = await startRecordingServer();
    try {
      const { agent, conversation } = await conversationWithBooking(tool.url);
      const run = await send(conversation.id, agent.id, 'book it');
      tool.respondWith(() => ({ body: { note: 'booked\ud800 \udc00x \\ud800 \ud83d\ude00' } }));
      fake.enqueue({ type: 'reply', toolCalls: [{ id: 'call_surrogate', name: 'book', arguments: {} }] });
      fake.enqueue({ type: 'reply', text: 'Booked.' });
      await process(run.id, { egress: createEgressPolicy({ allowlist: ['127.0.0.1'] }) });
      expect((await getRun(db, tenantId, run.id))?.status).toBe('completed');
      const transcript = await listMessages(db, tenantId, conversation.id);
      const stored = 'booked\ufffd \ufffdx \\ud800 \ud83d\ude00';
      expect(transcript[2]?.content).toMatchObject([{ type: 'tool_result', output: { note: stored } }]);
      expect((await toolCallRecords(db, run, ['call_surrogate']))[0]).toMatchObject({ output: { note: stored } });
    } finally {
      await tool.close();
    }
  });

  it('ends a run cancelled before it started, without writing its kept message', async () => {
    const { agent, conversation } = await conversationWith();
    const earlier = (await claimRun(db, await send(conversation.id, agent.id, 'first')))!;
    const later = await send(conversation.id, agent.id, 'second');
    await requestCancel(db, tenantId, later.id);
    expect(await finishRunFenced(db, earlier, earlier.fence, { status: 'completed' })).toBe(true);
    const { outcome, events } = await process(later.id);
    expect(outcome).toBeUndefined();
    expect((await getRun(db, tenantId, later.id))?.status).toBe('cancelled');
    expect(await listMessages(db, tenantId, conversation.id)).toHaveLength(1);
    expect(events.map((e) => e.status)).toEqual(['cancelled']);
    expect(fake.requests).toHaveLength(0);
  });
});
