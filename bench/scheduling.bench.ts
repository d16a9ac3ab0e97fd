// One benchmark script (just over 400 lines): its scenarios share the processes it starts.
/**
 * Scheduling (issue 16's benchmark): does a waiting run cost anything? One API + one worker
 * (`TENANT_CONCURRENCY=4`), the fake model answering after 2 s, a fresh database per scenario:
 *   - backlog: tenant A posts N messages (each its own conversation, `Prefer: respond-async`), then
 *     the CPU of API + worker + Postgres + Redis is read over a fixed window while A drains, and
 *     tenant B sends messages one after another (their completion latency against the model's 2 s);
 *   - waiting: the idle platform's CPU over the same window, then again with W conversations each
 *     holding a run parked `waiting` for a client tool and one message queued behind it.
 * With `SCHED_COMPARE_DIR` (a checkout of older code, installed) the same scenarios run on its API
 * and worker too, side by side. See bench/README.md for the method. Environment: SCHED_BACKLOGS
 * (`0,2000,10000`; empty: none), SCHED_WINDOW_SECONDS (20), SCHED_B_MESSAGES (5), SCHED_WAITING (1000; 0: skip),
 * SCHED_POST_CONCURRENCY (16), SCHED_COMPARE_DIR.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import postgres from 'postgres';
import type { startLocalTopology } from '../infra/local-topology.ts';
import type { BenchResult } from './run.ts';
import { summarize } from './stats.ts';
import { mapLimit, type Services, startServices } from './support/platform.ts';
import { cpuMeter, machineCpuMs, pidsByComm, postgresPids } from './support/proc.ts';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const setting = (name: string): string | undefined => process.env[name];
const envNumber = (name: string, fallback: number) => Number(setting(name) ?? fallback);
/** Comma-separated sizes; an empty list skips the scenario. */
const sizes = (text: string) => text.split(',').filter(Boolean).map(Number);
const BACKLOGS = sizes(setting('SCHED_BACKLOGS') ?? '0,2000,10000');
const WINDOW_SECONDS = envNumber('SCHED_WINDOW_SECONDS', 20);
const B_MESSAGES = envNumber('SCHED_B_MESSAGES', 5);
const WAITING = envNumber('SCHED_WAITING', 1000);
const POST_CONCURRENCY = envNumber('SCHED_POST_CONCURRENCY', 16);
const COMPARE_DIR = setting('SCHED_COMPARE_DIR');
/** Backlog sizes for the compared code (default SCHED_BACKLOGS): polling code posts far slower. */
const COMPARE_BACKLOGS = sizes(setting('SCHED_COMPARE_BACKLOGS') ?? BACKLOGS.join(','));
const MODEL_MS = 2000;
const ADMIN_TOKEN = `bench-admin-${randomBytes(12).toString('hex')}`;
/** The defaults except the rate limit, which 10,000 posts would hit (this measures scheduling, not limits). */
const PLATFORM_ENV = {
  TENANT_CONCURRENCY: '4',
  WORKER_CONCURRENCY: '8',
  RATE_LIMIT_PER_MINUTE: '10000000',
  EGRESS_ALLOWLIST: '127.0.0.1',
  LOG_LEVEL: 'info',
  OPENAI_API_KEY: 'bench',
};

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const log = (line: string) => process.stdout.write(`  [scheduling] ${line}\n`);

/** Which code a platform runs: this checkout, or `SCHED_COMPARE_DIR`'s. */
interface Code {
  label: string;
  root: string;
}

interface Platform {
  url: string;
  databaseUrl: string;
  queuePrefix: string;
  api: number;
  worker: number;
  database: string;
  stop(): Promise<void>;
}

/** One API + one worker of `code` (its own infra/local-topology.ts) on a fresh database and queue prefix. */
async function startPlatform(code: Code, services: Services): Promise<Platform> {
  const mod = (await import(pathToFileURL(join(code.root, 'infra/local-topology.ts')).href)) as {
    startLocalTopology: typeof startLocalTopology;
  };
  const topology = await mod.startLocalTopology({
    apis: 1,
    workers: 1,
    platformAdminToken: ADMIN_TOKEN,
    env: { ...PLATFORM_ENV, OPENAI_BASE_URL: services.llm },
    onLog: () => {},
    // The machine is shared: a start can take longer than the default 30 s.
    readyTimeoutMs: 120_000,
    stopDeadlineMs: 20_000,
  });
  const pid = (role: string) => topology.processes.find((p) => p.role === role)!.pid;
  return {
    url: topology.apiUrls[0]!,
    databaseUrl: topology.databaseUrl,
    queuePrefix: topology.queuePrefix,
    api: pid('api'),
    worker: pid('worker'),
    database: new URL(topology.databaseUrl).pathname.slice(1),
    stop: () => topology.stop(),
  };
}

async function post(url: string, key: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { id: string; api_key: { key: string } };
  if (res.status >= 300) throw new Error(`POST ${url} → ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** An agent on `model`; with `clientTool`, its one tool is run by the client, so a run parks `waiting`. */
function agentConfig(model: string, clientTool: boolean): Record<string, unknown> {
  const tools = clientTool
    ? [
        {
          name: 'lookup_stock',
          type: 'client',
          description: 'Stock of an item, looked up by the page',
          parameters: { type: 'object', properties: { item: { type: 'string' } }, required: ['item'] },
        },
      ]
    : [];
  return {
    basic_settings: { name: 'Desk', description: 'Answers questions', language: 'English', tone: 'Brief' },
    action_books: [],
    tools,
    model: { provider: 'openai', name: model },
  };
}

/** A tenant with one agent; returns its API key and the agent's id. */
async function tenant(p: Platform, name: string, model: string, clientTool = false) {
  const key = (await post(`${p.url}/v1/tenants`, ADMIN_TOKEN, { name })).api_key.key;
  const agent = (await post(`${p.url}/v1/agents`, key, { config: agentConfig(model, clientTool) })).id;
  return { key, agent };
}

/** A new conversation with one message posted `Prefer: respond-async` (202 at once). */
async function postAsync(p: Platform, key: string, conversationId: string): Promise<void> {
  await post(
    `${p.url}/v1/conversations/${conversationId}/messages`,
    key,
    { content: 'How many of item 42 are in stock?' },
    { prefer: 'respond-async' },
  );
}

async function newConversation(p: Platform, key: string, agent: string): Promise<string> {
  return (await post(`${p.url}/v1/conversations`, key, { agent_id: agent })).id;
}

/** Posts a message with `Accept: text/event-stream` and reads until the final event: ms to the end of a completed run. */
async function streamedRun(p: Platform, key: string, conversationId: string): Promise<number> {
  const start = performance.now();
  const res = await fetch(`${p.url}/v1/conversations/${conversationId}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ content: 'Hello' }),
    signal: AbortSignal.timeout(120_000),
  });
  if (res.status !== 200) throw new Error(`message POST → ${res.status} ${await res.text()}`);
  const text = await res.text();
  const end = performance.now() - start;
  const final = text.split('\n').find((line) => line.startsWith('data: ') && line.includes('"final":true'));
  const status = final ? (JSON.parse(final.slice(6)) as { status?: string }).status : undefined;
  if (status !== 'completed') throw new Error(`tenant B's run ended ${status}: ${final ?? text.slice(-200)}`);
  return end;
}

interface Window {
  /** % of one core over the window, per process group and in all. */
  api: number;
  worker: number;
  postgres: number;
  redis: number;
  total: number;
  /** Busy % of the whole machine (all cores) over the window, from /proc/stat. */
  machineBusy: number;
}

/** CPU of API, worker, the bench database's Postgres processes and redis-server over `seconds`. */
async function cpuWindow(p: Platform, seconds: number): Promise<Window> {
  const meters = {
    api: cpuMeter(() => [p.api]),
    worker: cpuMeter(() => [p.worker]),
    postgres: cpuMeter(() => postgresPids(p.database)),
    redis: cpuMeter(() => pidsByComm('redis-server')),
  };
  const machine0 = machineCpuMs();
  const t0 = performance.now();
  for (const m of Object.values(meters)) m.start();
  for (let s = 0; s < seconds; s++) {
    await sleep(1000);
    for (const m of Object.values(meters)) m.poll();
  }
  const used = Object.fromEntries(Object.entries(meters).map(([k, m]) => [k, m.stop()])) as Record<
    keyof typeof meters,
    number
  >;
  const ms = performance.now() - t0;
  const machine1 = machineCpuMs();
  const pct = (cpu: number) => (cpu / ms) * 100;
  return {
    api: pct(used.api),
    worker: pct(used.worker),
    postgres: pct(used.postgres),
    redis: pct(used.redis),
    total: pct(used.api + used.worker + used.postgres + used.redis),
    machineBusy: ((machine1.busy - machine0.busy) / (machine1.total - machine0.total)) * 100,
  };
}

function windowNote(w: Window): string {
  const f = (n: number) => n.toFixed(1);
  return `api ${f(w.api)}, worker ${f(w.worker)}, postgres ${f(w.postgres)}, redis ${f(w.redis)}; machine busy ${f(w.machineBusy)}% of all cores`;
}

/** Keys under the platform's queue prefix and their `MEMORY USAGE` (bytes) in Redis. */
async function redisFootprint(p: Platform): Promise<{ keys: number; bytes: number }> {
  const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true });
  await redis.connect();
  try {
    let keys = 0;
    let bytes = 0;
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', `${p.queuePrefix}:*`, 'COUNT', 1000);
      cursor = next;
      keys += batch.length;
      const pipeline = redis.pipeline();
      for (const key of batch) pipeline.memory('USAGE', key);
      for (const [, size] of (await pipeline.exec()) ?? []) bytes += Number(size ?? 0);
    } while (cursor !== '0');
    return { keys, bytes };
  } finally {
    redis.disconnect();
  }
}

async function runCounts(sql: postgres.Sql): Promise<Record<string, number>> {
  const rows = await sql<
    Array<{ status: string; n: number }>
  >`select status, count(*)::int as n from runs group by status`;
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

interface Backlog {
  n: number;
  window: Window;
  postSeconds: number;
  latencies: number[];
  completedInWindow: number;
  footprint: { keys: number; bytes: number };
}

/** Tenant A posts `n` messages, then the CPU window while A drains and tenant B sends one message at a time. */
async function backlog(code: Code, services: Services, n: number): Promise<Backlog> {
  const p = await startPlatform(code, services);
  const sql = postgres(p.databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const a = await tenant(p, 'Tenant A', 'fake-slow');
    const b = await tenant(p, 'Tenant B', 'fake-slow');
    const t0 = performance.now();
    await mapLimit(
      Array.from({ length: n }, (_, i) => i),
      POST_CONCURRENCY,
      async (i) => {
        await postAsync(p, a.key, await newConversation(p, a.key, a.agent));
        if ((i + 1) % 1000 === 0)
          log(`${code.label}: posted ${i + 1} in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
      },
    );
    const postSeconds = (performance.now() - t0) / 1000;
    log(`${code.label}: posted ${n} in ${postSeconds.toFixed(1)} s; window ${WINDOW_SECONDS} s`);
    const before = (await runCounts(sql)).completed ?? 0;
    const footprint = await redisFootprint(p);
    const conversations = await Promise.all(
      Array.from({ length: B_MESSAGES }, () => newConversation(p, b.key, b.agent)),
    );
    const latencies: number[] = [];
    const tenantB = (async () => {
      for (const id of conversations) latencies.push(await streamedRun(p, b.key, id));
    })();
    const window = await cpuWindow(p, WINDOW_SECONDS);
    const completedInWindow = ((await runCounts(sql)).completed ?? 0) - before;
    await tenantB;
    log(
      `${code.label}: N=${n}: ${window.total.toFixed(1)}% (${windowNote(window)}); B ${latencies.map((l) => l.toFixed(0)).join(', ')} ms`,
    );
    return { n, window, postSeconds, latencies, completedInWindow, footprint };
  } finally {
    await sql.end({ timeout: 5 });
    await p.stop();
  }
}

interface Waiting {
  idle: Window;
  waiting: Window;
  setupSeconds: number;
  footprint: { keys: number; bytes: number };
  counts: Record<string, number>;
}

/** The idle platform's CPU, then with `WAITING` conversations each holding a `waiting` run and a queued one behind it. */
async function waitingRuns(code: Code, services: Services): Promise<Waiting> {
  const p = await startPlatform(code, services);
  const sql = postgres(p.databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const w = await tenant(p, 'Tenant W', 'fake-instant', true);
    await sleep(3000);
    log(`${code.label}: idle window ${WINDOW_SECONDS} s`);
    const idle = await cpuWindow(p, WINDOW_SECONDS);
    const t0 = performance.now();
    await mapLimit(
      Array.from({ length: WAITING }, (_, i) => i),
      POST_CONCURRENCY,
      async () => {
        const id = await newConversation(p, w.key, w.agent);
        await postAsync(p, w.key, id);
        await postAsync(p, w.key, id);
      },
    );
    // Every first run has asked for the client tool (waiting) and every second one waits behind it.
    let counts: Record<string, number> = {};
    for (const deadline = Date.now() + 180_000; Date.now() < deadline; await sleep(1000)) {
      counts = await runCounts(sql);
      if ((counts.waiting ?? 0) >= WAITING && (counts.queued ?? 0) >= WAITING) break;
    }
    const setupSeconds = (performance.now() - t0) / 1000;
    log(`${code.label}: ${JSON.stringify(counts)} after ${setupSeconds.toFixed(1)} s; window ${WINDOW_SECONDS} s`);
    await sleep(3000);
    const waiting = await cpuWindow(p, WINDOW_SECONDS);
    log(
      `${code.label}: idle ${idle.total.toFixed(1)}% (${windowNote(idle)}); waiting ${waiting.total.toFixed(1)}% (${windowNote(waiting)})`,
    );
    const footprint = await redisFootprint(p);
    return { idle, waiting, setupSeconds, footprint, counts: await runCounts(sql) };
  } finally {
    await sql.end({ timeout: 5 });
    await p.stop();
  }
}

function codeResults(code: Code, backlogs: Backlog[], waiting: Waiting | undefined): BenchResult[] {
  const results: BenchResult[] = [];
  const zero = backlogs.find((b) => b.n === 0);
  for (const b of backlogs) {
    const added = zero ? ` (${(b.window.total - zero.window.total).toFixed(1)} points over the 0-backlog figure)` : '';
    results.push({
      name: `${code.label}: CPU of API + worker + Postgres + Redis while tenant A drains ${b.n} queued runs${added}`,
      unit: '% of a core',
      median: b.window.total,
      p99: b.window.total,
      note: `${WINDOW_SECONDS}-s window; ${windowNote(b.window)}; posting took ${b.postSeconds.toFixed(1)} s (${b.n > 0 ? (b.n / b.postSeconds).toFixed(0) : 0}/s); ${b.completedInWindow} runs completed in the window; Redis under the prefix: ${b.footprint.keys} keys, ${(b.footprint.bytes / 1024).toFixed(0)} KiB`,
    });
    const lat = summarize(b.latencies);
    results.push({
      name: `${code.label}: tenant B's message → run completed while A drains ${b.n}`,
      unit: 'ms',
      ...lat,
      ratio: lat.median / MODEL_MS,
      note: `${b.latencies.length} messages one after another; ratio to the model's ${MODEL_MS} ms; max ${Math.max(...b.latencies).toFixed(0)} ms`,
    });
  }
  if (!waiting) return results;
  results.push(
    {
      name: `${code.label}: CPU of the idle platform`,
      unit: '% of a core',
      median: waiting.idle.total,
      p99: waiting.idle.total,
      note: `${WINDOW_SECONDS}-s window; ${windowNote(waiting.idle)}`,
    },
    {
      name: `${code.label}: CPU with ${WAITING} conversations each holding a waiting run and a queued message (${(waiting.waiting.total - waiting.idle.total).toFixed(1)} points over idle)`,
      unit: '% of a core',
      median: waiting.waiting.total,
      p99: waiting.waiting.total,
      note: `${WINDOW_SECONDS}-s window; ${windowNote(waiting.waiting)}; set up in ${waiting.setupSeconds.toFixed(1)} s; runs ${JSON.stringify(waiting.counts)}; Redis under the prefix: ${waiting.footprint.keys} keys, ${(waiting.footprint.bytes / 1024).toFixed(0)} KiB`,
    },
  );
  return results;
}

export async function run(): Promise<BenchResult[]> {
  const codes: Array<Code & { backlogs: number[] }> = [
    { label: 'event-driven (this code)', root: repoRoot, backlogs: BACKLOGS },
  ];
  if (COMPARE_DIR) codes.push({ label: `polling (${COMPARE_DIR})`, root: COMPARE_DIR, backlogs: COMPARE_BACKLOGS });
  const services = await startServices();
  const results: BenchResult[] = [];
  try {
    for (const code of codes) {
      const backlogs: Backlog[] = [];
      for (const n of code.backlogs) backlogs.push(await backlog(code, services, n));
      log(`${code.label}: ${WAITING} waiting conversations`);
      const waiting = WAITING > 0 ? await waitingRuns(code, services) : undefined;
      results.push(...codeResults(code, backlogs, waiting));
    }
  } finally {
    await services.stop();
  }
  return results;
}

// `node bench/scheduling.bench.ts` prints the figures on its own.
if (import.meta.main) {
  for (const r of await run()) {
    console.log(
      `${r.name}: median ${r.median.toFixed(2)} ${r.unit}, p99 ${r.p99.toFixed(2)}${r.ratio ? `, ratio ${r.ratio.toFixed(2)}` : ''}${r.note ? ` (${r.note})` : ''}`,
    );
  }
}
