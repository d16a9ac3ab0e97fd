/**
 * The platform as the end-to-end benches start and drive it: the fake services' process, the
 * embedded mode, one API + one worker on Postgres + Redis, provisioning a tenant with one agent per
 * fake model, and a client that streams a message's run (SSE) the way an integrator would.
 * Environment: BENCH_CPU_PROF (a directory: the platform processes run with --cpu-prof).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePort } from '@agentry/testkit';
import { startLocalTopology } from '../../infra/local-topology.ts';
import { summarize } from '../stats.ts';
import { embeddedCommand } from './embedded-command.ts';
import { rssBytes } from './proc.ts';
import { readSse } from './sse-client.ts';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const setting = (name: string): string | undefined => process.env[name];
const CPU_PROF = setting('BENCH_CPU_PROF');
/** Where (b) creates its fresh database: e.g. a private server with pg_stat_statements loaded. */
export const postgresAdminUrl = setting('BENCH_POSTGRES_URL') ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ADMIN_TOKEN = `bench-admin-${randomBytes(12).toString('hex')}`;
/**
 * The platform settings used in every mode: the defaults (8 and 4) cap one tenant at 4 runs at
 * once, and 1,200 requests a minute would throttle the load itself (this measures throughput, not
 * the limits).
 */
const PLATFORM_ENV = {
  WORKER_CONCURRENCY: '1000',
  TENANT_CONCURRENCY: '10000',
  // A deployment sized for the benches' bursts (1,000 messages at once): the default queue (512)
  // refuses the rest with 503 + Retry-After, and the figure would be the client's wait.
  ADMISSION_MAX_QUEUED: '2000',
  RATE_LIMIT_PER_MINUTE: '10000000',
  EGRESS_ALLOWLIST: '127.0.0.1',
  LOG_LEVEL: 'info',
  OPENAI_API_KEY: 'bench',
};

export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** A bench helper running as its own process (so the measuring client's event loop does not serve it). */
export interface Helper {
  pid: number;
  stop(): Promise<void>;
}

export interface Services extends Helper {
  llm: string;
  tool: string;
}

/**
 * Starts `script` (a path under the repository) with `node` and waits for the one JSON line it
 * prints once it listens.
 *
 * @example
 * const { line, helper } = await startHelper<{ url: string }>('bench/support/hand-server.ts', { LLM_URL: llm });
 */
export async function startHelper<T>(script: string, env: Record<string, string> = {}): Promise<{ line: T } & Helper> {
  const child = spawn(process.execPath, [join(repoRoot, script)], {
    cwd: repoRoot,
    ...(Object.keys(env).length > 0 ? { env: { ...process.env, ...env } } : {}),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { line: JSON.parse(line) as T, pid: child.pid!, stop: () => stopChild(child, 5000) };
}

/**
 * Starts bench/support/fake-services.ts (`env`: e.g. `SLOW_MS` for `fake-slow`).
 *
 * @example
 * const services = await startServices();
 */
export async function startServices(env: Record<string, string> = {}): Promise<Services> {
  const { line, pid, stop } = await startHelper<{ llm: string; tool: string }>('bench/support/fake-services.ts', env);
  return { ...line, pid, stop };
}

/** SIGTERM, then SIGKILL after `deadlineMs`; resolves once the child exited. */
export function stopChild(child: ChildProcess, deadlineMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), deadlineMs);
    child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
    child.kill('SIGTERM');
  });
}

/** The benches' agent: one HTTP tool, `lookup_stock`, served by the fake services' recording server. */
function agentConfig(toolUrl: string, model: string): Record<string, unknown> {
  return {
    basic_settings: {
      name: 'Stock desk',
      description: 'Answers stock questions',
      language: 'English',
      tone: 'Brief',
    },
    action_books: [
      { condition: 'When asked about stock', action: 'Look it up with lookup_stock', tools: ['lookup_stock'] },
    ],
    tools: [
      {
        name: 'lookup_stock',
        description: 'Stock of an item',
        parameters: {
          type: 'object',
          properties: { item: { type: 'string' }, email: { type: 'string' } },
          required: ['item'],
        },
        endpoint: {
          url: `${toolUrl}/stock`,
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: { item: '{item}', email: '{email}' },
        },
      },
    ],
    model: { provider: 'openai', name: model },
  };
}

/** A started platform: its URL, a tenant key, one agent id per fake model name, and its process ids. */
export interface Platform<M extends string = string> {
  label: string;
  url: string;
  key: string;
  agents: Record<M, string>;
  api: number;
  worker: number;
  database?: string;
  stop(): Promise<void>;
}

/** The fields the bench reads from the API's answers. */
export interface Created {
  id: string;
  api_key: { key: string };
}

/** A POST to the platform's API that must succeed; its JSON answer. */
export async function api(url: string, path: string, key: string, body: unknown): Promise<Created> {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Created;
  if (res.status >= 300) throw new Error(`POST ${path} → ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function provision<M extends string>(url: string, services: Services, models: readonly M[]) {
  const key = (await api(url, '/v1/tenants', ADMIN_TOKEN, { name: 'Bench' })).api_key.key;
  const agents = {} as Record<M, string>;
  for (const model of models)
    agents[model] = (await api(url, '/v1/agents', key, { config: agentConfig(services.tool, model) })).id;
  return { key, agents };
}

async function waitReady(url: string, child?: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child && child.exitCode !== null) throw new Error(`the embedded platform exited with ${child.exitCode}`);
    const status = await fetch(`${url}/readyz`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`${url} not ready`);
    await sleep(200);
  }
}

function profileEnv(): Record<string, string> {
  return CPU_PROF ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${CPU_PROF}` } : {};
}

/**
 * (a) `node apps/api/src/main.ts --embedded` on a fresh data directory, logging to a file there,
 * with one agent per model in `models`; `env` adds to (or overrides) the platform settings.
 *
 * @example
 * const embedded = await startEmbedded(services, ['fake-instant']);
 */
export async function startEmbedded<M extends string>(
  services: Services,
  models: readonly M[],
  env: Record<string, string> = {},
): Promise<Platform<M>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'agentry-bench-'));
  const port = await freePort();
  const log = createWriteStream(join(dataDir, 'platform.log'));
  await new Promise((done) => log.once('open', done));
  const launch = embeddedCommand();
  const child = spawn(process.execPath, [...launch.nodeFlags, join(repoRoot, 'apps/api/src/main.ts'), '--embedded'], {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH ?? '',
      ...launch.env,
      ...PLATFORM_ENV,
      ...profileEnv(),
      ...env,
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      PLATFORM_ADMIN_TOKEN: ADMIN_TOKEN,
      OPENAI_BASE_URL: services.llm,
    },
    stdio: ['ignore', log, log],
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await stopChild(child, 15_000);
    log.end();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitReady(url, child);
    const { key, agents } = await provision(url, services, models);
    return { label: '(a) embedded', url, key, agents, api: child.pid!, worker: child.pid!, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * (b) one API + one worker process (infra/local-topology.ts) on a fresh database and a random queue prefix.
 *
 * @example
 * const separate = await startSeparate(services, ['fake-instant', 'fake-slow']);
 */
export async function startSeparate<M extends string>(services: Services, models: readonly M[]): Promise<Platform<M>> {
  const topology = await startLocalTopology({
    apis: 1,
    workers: 1,
    platformAdminToken: ADMIN_TOKEN,
    env: { ...PLATFORM_ENV, ...profileEnv(), OPENAI_BASE_URL: services.llm },
    onLog: () => {},
    stopDeadlineMs: 20_000,
    postgresAdminUrl,
  });
  try {
    const url = topology.apiUrls[0]!;
    const { key, agents } = await provision(url, services, models);
    const pid = (role: string) => topology.processes.find((p) => p.role === role)!.pid;
    return {
      label: '(b) API + worker',
      url,
      key,
      agents,
      api: pid('api'),
      worker: pid('worker'),
      database: new URL(topology.databaseUrl).pathname.slice(1),
      stop: () => topology.stop(),
    };
  } catch (error) {
    await topology.stop();
    throw error;
  }
}

/** A new conversation with `agentId`; its id. */
export async function createConversation(p: Platform, agentId: string): Promise<string> {
  return (await api(p.url, '/v1/conversations', p.key, { agent_id: agentId })).id;
}

/** What a client saw of one run. */
export interface Timing {
  /** ms from sending the message to the first text token, and to the end of the run. */
  first: number;
  done: number;
  /** performance.now() at the end. */
  end: number;
  /** Times the message was refused with 503 + Retry-After (the API's admission bound) and sent again. */
  retried?: number;
}

/**
 * Posts `content` asking for a stream and reads the SSE until the final event: the first
 * `text-delta` is the first token (each delta's text goes to `onText` as it arrives); the final
 * `run-status` must say completed after a successful tool result.
 *
 * @example
 * const { first, done } = await streamRun(platform, conversationId, 'How many of item 42?');
 */
export async function streamRun(
  p: Platform,
  conversationId: string,
  content: string,
  onText?: (text: string) => void,
): Promise<Timing> {
  const start = performance.now();
  const send = () =>
    fetch(`${p.url}/v1/conversations/${conversationId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${p.key}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ content }),
      // A run that never ends fails after 2 minutes instead of hanging the bench.
      signal: AbortSignal.timeout(120_000),
    });
  let res = await send();
  // As a well-behaved client does: a burst past the API's admission queue is told when to come back.
  let retried = 0;
  for (; res.status === 503 && res.headers.has('retry-after') && retried < MAX_RETRIES; retried++) {
    await res.body?.cancel();
    await sleep(Number(res.headers.get('retry-after')) * 1000);
    res = await send();
  }
  if (res.status !== 200) throw new Error(`message POST → ${res.status} ${await res.text()}`);
  let first: number | undefined;
  let toolOk = false;
  let final = '';
  await readSse(res, (event, data) => {
    if (event === 'text-delta') {
      first ??= performance.now() - start;
      onText?.((JSON.parse(data) as { delta: string }).delta);
    }
    if (event === 'tool-result') toolOk = !data.includes('"isError":true');
    if (!data.includes('"final":true')) return false;
    final = data;
    return true;
  });
  const end = performance.now();
  const status = (JSON.parse(final) as { status?: string }).status;
  if (status !== 'completed' || !toolOk || first === undefined)
    throw new Error(`run ended ${status} (tool ok: ${toolOk}, text: ${first !== undefined}): ${final}`);
  return { first, done: end - start, end, ...(retried > 0 ? { retried } : {}) };
}

/** Times a refused message is sent again. */
const MAX_RETRIES = 5;

/** Runs `fn` on `items` with at most `limit` at once. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

/** Median of a few RSS readings 200 ms apart. */
export async function settledRss(pid: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    samples.push(rssBytes(pid));
    await sleep(200);
  }
  return summarize(samples).median;
}
