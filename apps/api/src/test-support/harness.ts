import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { conversations, messages, runs, withSystemScope } from '@agentry/db';
import {
  availableServices,
  createTestDatabase,
  deleteRedisKeys,
  type FakeLlmServer,
  freePort,
  type MailCatcher,
  type RecordingServer,
  startFakeLlm,
  startMailCatcher,
  startPrivateRedis,
  startRecordingServer,
  testServices,
} from '@agentry/testkit';
import { count } from 'drizzle-orm';
import { readApiConfig } from '../config.ts';
import { type RunningPlatform, startPlatform } from '../platform.ts';

export const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
export const ADMIN_TOKEN = 'test-admin-token-0123456789';
/** The PUBLIC_URL harnesses with mail configure: links in mails start with it. */
export const TEST_PUBLIC_URL = 'http://agentry.test';

/** The seed's example config (seed 003 §5.11.1), exactly as in `configs/`. */
export function seedConfig(): Record<string, any> {
  return JSON.parse(readFileSync(join(repoRoot, 'configs/seed-demo-booking.json'), 'utf8'));
}

/**
 * The modes a shared suite runs in: `embedded` always, `production` when this machine has Postgres
 * and Redis (otherwise a printed notice says its cases are skipped, never a silent pass).
 *
 * @example
 * describe.each(runModes('flows'))('flows (%s)', (mode) => { … });
 */
export function runModes(tag: string): Mode[] {
  if (availableServices().postgres && availableServices().redis) return ['embedded', 'production'];
  console.warn(`[${tag}] NOTICE: Postgres or Redis unavailable: the production-mode (BullMQ) cases are SKIPPED.`);
  return ['embedded'];
}

/**
 * - `embedded`: one process, PGlite, in-process jobs.
 * - `embedded-postgres`: one process, a fresh Postgres database, in-process jobs.
 * - `production`: API in this process and a worker in a separate one, Postgres + BullMQ.
 */
export type Mode = 'embedded' | 'embedded-postgres' | 'production';
/** The fake model's wire format the operator's environment points at; `none`: no model in the environment. */
export type Provider = 'openai' | 'anthropic' | 'none';

export interface Harness {
  platform: RunningPlatform;
  llm: FakeLlmServer;
  endpoint: RecordingServer;
  /** The SMTP server account mail goes to (absent with `mail: false`: no SMTP configured). */
  mail?: MailCatcher;
  /** Worker processes (production mode). */
  workers: ChildProcess[];
  /** Starts one more worker process with the harness's environment (production mode). */
  addWorker(): Promise<ChildProcess>;
  /** The environment the processes were started with. */
  env: Record<string, string>;
  close(): Promise<void>;
}

function providerEnv(provider: Provider, llm: FakeLlmServer): Record<string, string> {
  if (provider === 'none') return {};
  return provider === 'openai'
    ? { OPENAI_BASE_URL: llm.openaiBaseUrl, OPENAI_API_KEY: 'test-key' }
    : { ANTHROPIC_BASE_URL: llm.anthropicBaseUrl, ANTHROPIC_API_KEY: 'test-key' };
}

/** SIGTERM, then SIGKILL after 10 s; resolves when the process has exited. */
export function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Starts `apps/worker` as its own process and resolves once it says it is ready. */
function spawnWorker(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(repoRoot, 'apps/worker/src/main.ts')], {
    env: { PATH: process.env.PATH ?? '', ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    // Generous: a loaded machine takes tens of seconds to start a process that loads the SDKs.
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('worker started')) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}:\n${output}`)));
    (child as ChildProcess & { output: () => string }).output = () => output;
  });
}

/**
 * A running platform with a fake model (speaking `provider`'s wire format), a recording tool
 * endpoint and (unless `mail: false`) a recording SMTP server for account mail; `close()` stops
 * everything and removes the data it created.
 */
export async function startHarness(
  mode: Mode,
  provider: Provider,
  options: {
    env?: Record<string, string>;
    workers?: number;
    mail?: boolean;
    /** The API's logger (and the in-process worker's, embedded), e.g. one writing into memory. */
    logger?: NonNullable<Parameters<typeof startPlatform>[1]>['logger'];
  } = {},
): Promise<Harness> {
  const extraEnv = options.env ?? {};
  const workers: ChildProcess[] = [];
  const cleanup: Array<() => unknown> = [];
  const close = async () => {
    for (const fn of cleanup.reverse()) await fn();
  };
  try {
    const llm = await startFakeLlm();
    cleanup.push(() => llm.close());
    const endpoint = await startRecordingServer();
    cleanup.push(() => endpoint.close());
    const mail = options.mail === false ? undefined : await startMailCatcher();
    if (mail) cleanup.push(() => mail.close());
    const env: Record<string, string> = {
      PORT: '0',
      PLATFORM_ADMIN_TOKEN: ADMIN_TOKEN,
      LOG_LEVEL: 'silent',
      RUN_WAIT_MS: '20000',
      // The fake model and tool endpoints listen on loopback, which the egress guard refuses by default.
      EGRESS_ALLOWLIST: '127.0.0.1',
      // The embedded mode allows all of loopback by default; tests hold it to the one address above,
      // so the guard's refusals (127.0.0.2, …) are tested as in production.
      EGRESS_ALLOW_LOOPBACK: 'false',
      // Without a model the embedded mode would answer with the demo model: tests say which model they want.
      DEMO_MODEL: 'false',
      // Workers pick a free metrics port, so several can run at once.
      METRICS_PORT: '0',
      ...providerEnv(provider, llm),
      ...(mail
        ? { SMTP_URL: mail.url, MAIL_FROM: 'Agentry <no-reply@agentry.test>', PUBLIC_URL: TEST_PUBLIC_URL }
        : {}),
      ...extraEnv,
    };
    if (mode === 'embedded') {
      const dataDir = mkdtempSync(join(tmpdir(), 'agentry-test-'));
      cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
      env.DATA_DIR = dataDir;
    } else {
      const database = await createTestDatabase('postgres');
      cleanup.push(() => database.destroy());
      env.DATABASE_URL = database.url!;
    }
    if (mode === 'production') {
      const prefix = `test-${randomBytes(6).toString('hex')}`;
      Object.assign(env, { REDIS_URL: extraEnv.REDIS_URL ?? testServices.redisUrl, QUEUE_PREFIX: prefix });
      cleanup.push(() => deleteRedisKeys(prefix));
      cleanup.push(() => Promise.all(workers.map(stopProcess)));
      for (let i = 0; i < (options.workers ?? 1); i++) workers.push(await spawnWorker(env));
    }
    const platform = await startPlatform(
      readApiConfig(env, mode !== 'production'),
      options.logger ? { logger: options.logger } : {},
    );
    cleanup.push(() => platform.close());
    const addWorker = async () => {
      const worker = await spawnWorker(env);
      workers.push(worker);
      return worker;
    };
    return { platform, llm, endpoint, ...(mail ? { mail } : {}), workers, addWorker, env, close };
  } catch (error) {
    await close();
    throw error;
  }
}

export interface CallResult {
  status: number;
  type: string;
  headers: Headers;
  json: any;
}

/** One API call with fetch; `raw` sends a body as-is. */
export async function call(
  h: Pick<Harness, 'platform'>,
  method: string,
  path: string,
  options: { key?: string; body?: unknown; raw?: string } = {},
): Promise<CallResult> {
  const headers: Record<string, string> = {};
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.body !== undefined || options.raw !== undefined) headers['content-type'] = 'application/json';
  const body = options.raw ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined);
  const res = await fetch(`${h.platform.url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    headers: res.headers,
    json: text ? JSON.parse(text) : undefined,
  };
}

/**
 * A visitor's calls: the publishable key from its allowed origin, with an end-user token when given.
 *
 * `target` is read at each call (the harness and key usually come from a `beforeAll`).
 *
 * @example
 * const visitor = visitorCalls(() => ({ url: h.platform.url, key: pk }), ORIGIN);
 * const { status, json } = await visitor('POST', '/v1/conversations', token, { agent_id });
 */
export function visitorCalls(target: () => { url: string; key: string }, origin: string) {
  return async (method: string, path: string, endUserToken?: string, body?: unknown) => {
    const { url, key } = target();
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        origin,
        'content-type': 'application/json',
        ...(endUserToken ? { 'x-end-user-token': endUserToken } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: await res.json() };
  };
}

/** Sends a raw body with node:http, which (unlike fetch) reads an early answer to an unfinished upload. */
export function postRaw(url: string, key: string, body: string): Promise<Omit<CallResult, 'headers'>> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'] ?? '', json: JSON.parse(text) }),
      );
    });
    req.on('error', (error) => {
      if (!('code' in error) || error.code !== 'EPIPE') reject(error);
    });
    req.end(body);
  });
}

/** Creates a tenant through the operator route and returns its secret key. */
export async function createTenant(h: Pick<Harness, 'platform'>, name = 'Acme'): Promise<string> {
  const res = await call(h, 'POST', '/v1/tenants', { key: ADMIN_TOKEN, body: { name } });
  if (res.status !== 201) throw new Error(`tenant creation failed: ${JSON.stringify(res.json)}`);
  return res.json.api_key.key;
}

/** Row counts of what a chat writes, to assert that a refused request wrote nothing. */
export async function rowCounts(h: Pick<Harness, 'platform'>) {
  return withSystemScope(h.platform.database.db, 'test: row counts of every tenant', async (tx) => {
    const [c] = await tx.select({ n: count() }).from(conversations);
    const [m] = await tx.select({ n: count() }).from(messages);
    const [r] = await tx.select({ n: count() }).from(runs);
    return { conversations: c!.n, messages: m!.n, runs: r!.n };
  });
}

export interface SseEvent {
  id: string | undefined;
  event: string | undefined;
  data: any;
}

/**
 * Reads an SSE response until it ends (or `stopAfter` events), parsing with eventsource-parser.
 *
 * @example
 * const events = await readSse(await fetch(url, { headers: { accept: 'text/event-stream' } }));
 */
export async function readSse(
  res: Response,
  stop: number | ((event: SseEvent) => boolean) = Number.POSITIVE_INFINITY,
): Promise<SseEvent[]> {
  const { createParser } = await import('eventsource-parser');
  const events: SseEvent[] = [];
  const done = () =>
    typeof stop === 'number' ? events.length >= stop : events.length > 0 && stop(events[events.length - 1]!);
  const parser = createParser({
    onEvent: (e) => {
      if (!done()) events.push({ id: e.id, event: e.event, data: JSON.parse(e.data) });
    },
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  while (!done()) {
    const { done: ended, value } = await reader.read();
    if (ended) break;
    parser.feed(decoder.decode(value, { stream: true }));
  }
  await reader.cancel().catch(() => {});
  return events;
}

const FINAL = new Set(['completed', 'failed', 'cancelled', 'timed_out']);

/** Polls a run until it is final (the API's own wait is bounded; faults can make runs slow). */
export async function waitForRun(h: Harness, key: string, runId: string, timeoutMs = 30_000): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const run = await call(h, 'GET', `/v1/runs/${runId}`, { key });
    if (FINAL.has(run.json.status) || Date.now() > until) return run.json;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Resolves with a child process's exit code once it has exited. */
export function exited(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise((r) => child.once('exit', (code) => r(code)));
}

/**
 * A production-mode harness (one worker process) on a private redis-server, for tests that kill
 * and restart Redis; `redis` is the current server process (`restartRedis` starts a new one on the
 * same port).
 *
 * @example
 * const p = await startWithPrivateRedis();
 * p.redis.kill('SIGKILL');
 * await p.restartRedis();
 */
export async function startWithPrivateRedis(): Promise<{
  h: Harness;
  key: string;
  redis: ChildProcess;
  restartRedis(): Promise<void>;
  close(): Promise<void>;
}> {
  const port = await freePort();
  const state = {
    redis: await startPrivateRedis(port),
  };
  const h = await startHarness('production', 'openai', { env: { REDIS_URL: `redis://127.0.0.1:${port}` }, workers: 1 });
  const key = await createTenant(h);
  return {
    h,
    key,
    get redis() {
      return state.redis;
    },
    async restartRedis() {
      state.redis = await startPrivateRedis(port);
    },
    async close() {
      await h.close();
      state.redis.kill('SIGKILL');
    },
  };
}
