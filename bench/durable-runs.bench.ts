// One benchmark script (over 400 lines): its three set-ups must run side by side in one process run so
// their ratios compare; each scenario is a function below.
/**
 * Durable runs end to end (issue 5's benchmark), side by side in one run on this machine:
 *   (a) the embedded mode: one process, PGlite, in-process jobs and event bus;
 *   (b) one API process + one worker process on a fresh Postgres database and Redis (BullMQ);
 *   (c) the baseline: a bare `openai` SDK for-loop doing the same two model calls + the HTTP tool call.
 * Every run is a two-step conversation against the instant fake model (tool call, then the answer)
 * with one HTTP tool call to a local recording server. Clients talk to the API over HTTP with
 * fetch, create a conversation per run and stream the run on the message POST (SSE).
 * Then, on (b): N conversations streaming at once with the model taking 2 s per call (memory per
 * conversation), CPU time per run over every process, and a soak with the RSS slope.
 * See bench/README.md for the method. Environment: THROUGHPUT_SECONDS (15), CLIENTS (32),
 * STREAMS (1000), SOAK_SECONDS (60), SOAK_CLIENTS (16), BENCH_CPU_PROF (a directory: profile API
 * and worker with --cpu-prof).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import postgres from 'postgres';
import { startLocalTopology } from '../infra/local-topology.ts';
import OpenAI from '../packages/provider-openai/node_modules/openai/index.mjs';
import type { BenchResult } from './run.ts';
import { summarize } from './stats.ts';
import { cpuMeter, machineCpuMs, pidsByComm, postgresPids, rssBytes, slope, writeCallMeter } from './support/proc.ts';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const setting = (name: string): string | undefined => process.env[name];
const envNumber = (name: string, fallback: number) => Number(setting(name) ?? fallback);
const THROUGHPUT_SECONDS = envNumber('THROUGHPUT_SECONDS', 15);
const CLIENTS = envNumber('CLIENTS', 32);
const SEQUENTIAL_RUNS = envNumber('SEQUENTIAL_RUNS', 150);
const STREAMS = envNumber('STREAMS', 1000);
const SOAK_SECONDS = envNumber('SOAK_SECONDS', 60);
const SOAK_CLIENTS = envNumber('SOAK_CLIENTS', 16);
const CPU_PROF = setting('BENCH_CPU_PROF');
/** Which modes to run (default all: `abc`); `b` alone, e.g. for profiling, skips the baseline and its ratios. */
const MODES = setting('BENCH_MODES') ?? 'abc';
const QUESTION = 'How many of item 42 are in stock? Tell ann@example.com.';
const ADMIN_TOKEN = `bench-admin-${randomBytes(12).toString('hex')}`;
/**
 * The platform settings used in every mode: the defaults (8 and 4) cap one tenant at 4 runs at
 * once, and 1,200 requests a minute would throttle the load itself (this measures throughput, not
 * the limits).
 */
const PLATFORM_ENV = {
  WORKER_CONCURRENCY: '1000',
  TENANT_CONCURRENCY: '10000',
  RATE_LIMIT_PER_MINUTE: '10000000',
  EGRESS_ALLOWLIST: '127.0.0.1',
  LOG_LEVEL: 'info',
  OPENAI_API_KEY: 'bench',
};

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const MB = 2 ** 20;

export interface Services {
  llm: string;
  tool: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts bench/support/fake-services.ts as its own process (`env`: e.g. `SLOW_MS` for `fake-slow`). */
export async function startServices(env: Record<string, string> = {}): Promise<Services> {
  const child = spawn(process.execPath, [join(repoRoot, 'bench/support/fake-services.ts')], {
    cwd: repoRoot,
    ...(Object.keys(env).length > 0 ? { env: { ...process.env, ...env } } : {}),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`fake services exited with ${code}`)));
  });
  const { llm, tool } = JSON.parse(line) as { llm: string; tool: string };
  return { llm, tool, pid: child.pid!, stop: () => stopChild(child, 5000) };
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

interface Platform {
  label: string;
  url: string;
  key: string;
  agents: { instant: string; slow: string };
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

async function provision(url: string, services: Services) {
  const key = (await api(url, '/v1/tenants', ADMIN_TOKEN, { name: 'Bench' })).api_key.key;
  const instant = (await api(url, '/v1/agents', key, { config: agentConfig(services.tool, 'fake-instant') })).id;
  const slow = (await api(url, '/v1/agents', key, { config: agentConfig(services.tool, 'fake-slow') })).id;
  return { key, agents: { instant, slow } };
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

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = net.createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => done(port));
    });
  });
}

function profileEnv(): Record<string, string> {
  return CPU_PROF ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${CPU_PROF}` } : {};
}

/** (a) `node apps/api/src/main.ts --embedded` on a fresh data directory, logging to a file there. */
async function startEmbedded(services: Services): Promise<Platform> {
  const dataDir = mkdtempSync(join(tmpdir(), 'agentry-bench-'));
  const port = await freePort();
  const log = createWriteStream(join(dataDir, 'platform.log'));
  await new Promise((done) => log.once('open', done));
  const child = spawn(process.execPath, [join(repoRoot, 'apps/api/src/main.ts'), '--embedded'], {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH ?? '',
      ...PLATFORM_ENV,
      ...profileEnv(),
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
    const { key, agents } = await provision(url, services);
    return { label: '(a) embedded', url, key, agents, api: child.pid!, worker: child.pid!, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** (b) one API + one worker process (infra/local-topology.ts) on a fresh database and a random queue prefix. */
async function startSeparate(services: Services): Promise<Platform> {
  const topology = await startLocalTopology({
    apis: 1,
    workers: 1,
    platformAdminToken: ADMIN_TOKEN,
    env: { ...PLATFORM_ENV, ...profileEnv(), OPENAI_BASE_URL: services.llm },
    onLog: () => {},
    stopDeadlineMs: 20_000,
  });
  try {
    const url = topology.apiUrls[0]!;
    const { key, agents } = await provision(url, services);
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

interface Timing {
  /** ms from sending the message to the first text token, and to the end of the run. */
  first: number;
  done: number;
  /** performance.now() at the end. */
  end: number;
}

async function createConversation(p: Platform, agentId: string): Promise<string> {
  return (await api(p.url, '/v1/conversations', p.key, { agent_id: agentId })).id;
}

/**
 * Posts the message asking for a stream and reads the SSE until the final event: the first
 * `text-delta` is the first token; the final `run-status` must say completed after a successful tool result.
 */
async function streamRun(p: Platform, conversationId: string): Promise<Timing> {
  const start = performance.now();
  const res = await fetch(`${p.url}/v1/conversations/${conversationId}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${p.key}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ content: QUESTION }),
    // A run that never ends fails after 2 minutes instead of hanging the bench.
    signal: AbortSignal.timeout(120_000),
  });
  if (res.status !== 200) throw new Error(`message POST → ${res.status} ${await res.text()}`);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let first: number | undefined;
  let toolOk = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error('the stream ended before the final event');
    buffer += decoder.decode(value, { stream: true });
    for (let at = buffer.indexOf('\n\n'); at >= 0; at = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? '';
      if (event === 'text-delta') first ??= performance.now() - start;
      if (event === 'tool-result') toolOk = !data.includes('"isError":true');
      if (data.includes('"final":true')) {
        const end = performance.now();
        await reader.cancel().catch(() => {});
        const status = (JSON.parse(data) as { status?: string }).status;
        if (status !== 'completed' || !toolOk || first === undefined)
          throw new Error(`run ended ${status} (tool ok: ${toolOk}, text: ${first !== undefined}): ${data}`);
        return { first, done: end - start, end };
      }
    }
  }
}

/** One two-step conversation on the platform: a new conversation, then the streamed run (timed). */
function platformRun(p: Platform, agentId: string): () => Promise<Timing> {
  return async () => streamRun(p, await createConversation(p, agentId));
}

const LOOKUP = {
  type: 'function' as const,
  function: {
    name: 'lookup_stock',
    description: 'Stock of an item',
    parameters: {
      type: 'object',
      properties: { item: { type: 'string' }, email: { type: 'string' } },
      required: ['item'],
    },
  },
};

/** (c) The same conversation as a bare for-loop over the openai SDK + fetch for the tool. */
function bareRun(services: Services): () => Promise<Timing> {
  const client = new OpenAI({ apiKey: 'bench', baseURL: services.llm, maxRetries: 0 });
  return async () => {
    const start = performance.now();
    let first: number | undefined;
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'system', content: 'You answer stock questions.' },
      { role: 'user', content: QUESTION },
    ];
    for (let step = 0; step < 4; step++) {
      const stream = await client.chat.completions.create({
        model: 'fake-instant',
        messages,
        tools: [LOOKUP],
        stream: true,
        stream_options: { include_usage: true },
      });
      const text: string[] = [];
      const calls: Array<{ id: string; name: string; args: string[] }> = [];
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta;
        if (delta?.content) {
          first ??= performance.now() - start;
          text.push(delta.content);
        }
        for (const tc of delta?.tool_calls ?? []) {
          calls[tc.index] ??= { id: tc.id ?? '', name: tc.function?.name ?? '', args: [] };
          if (tc.function?.arguments) calls[tc.index]!.args.push(tc.function.arguments);
        }
      }
      if (calls.length === 0) {
        const end = performance.now();
        if (first === undefined) throw new Error('no text');
        return { first, done: end - start, end };
      }
      messages.push({
        role: 'assistant',
        content: text.join('') || null,
        tool_calls: calls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: c.args.join('') },
        })),
      });
      for (const c of calls) {
        const res = await fetch(`${services.tool}/stock`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: c.args.join(''),
        });
        messages.push({ role: 'tool', tool_call_id: c.id, content: await res.text() });
      }
    }
    throw new Error('too many steps');
  };
}

interface Load {
  timings: Timing[];
  seconds: number;
  /** Runs completed in each whole second of the window. */
  perSecond: number[];
  errors: number;
  firstError?: unknown;
}

/** `clients` closed-loop clients run `one` back to back for `seconds`; `tick` is called every second. */
async function load(one: () => Promise<Timing>, clients: number, seconds: number, tick?: () => void): Promise<Load> {
  const start = performance.now();
  const end = start + seconds * 1000;
  const timings: Timing[] = [];
  let errors = 0;
  let firstError: unknown;
  const ticker = tick ? setInterval(tick, 1000) : undefined;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        try {
          const t = await one();
          if (t.end <= end) timings.push(t);
        } catch (error) {
          errors++;
          firstError ??= error;
        }
      }
    }),
  );
  if (ticker) clearInterval(ticker);
  const perSecond = Array.from({ length: Math.floor(seconds) }, () => 0);
  for (const t of timings) {
    const second = Math.floor((t.end - start) / 1000);
    if (second < perSecond.length) perSecond[second]!++;
  }
  return { timings, seconds, perSecond, errors, ...(firstError ? { firstError } : {}) };
}

/** `count` runs one after the other (after a warm-up), for the unloaded latency. */
async function sequential(one: () => Promise<Timing>, count: number): Promise<Timing[]> {
  for (let i = 0; i < Math.ceil(count / 5); i++) await one();
  const timings: Timing[] = [];
  for (let i = 0; i < count; i++) timings.push(await one());
  return timings;
}

function errorNote(l: Load): string {
  return l.errors > 0 ? `; ${l.errors} failed runs, first: ${String(l.firstError).slice(0, 160)}` : '';
}

interface ModeFigures {
  label: string;
  seq: Timing[];
  loaded: Load;
}

/** The figures every mode has: runs/s, and first-token / completion latency alone and under load. */
function modeResults(m: ModeFigures, baseline?: ModeFigures): BenchResult[] {
  const pick = (ts: Timing[], k: 'first' | 'done') => summarize(ts.map((t) => t[k]));
  const ratio = (ts: Timing[], k: 'first' | 'done', base?: Timing[]) =>
    base ? { ratio: pick(ts, k).median / pick(base, k).median } : {};
  const rate = summarize(m.loaded.perSecond);
  const total = m.loaded.timings.length / m.loaded.seconds;
  const results: BenchResult[] = [
    {
      name: `${m.label}: runs per second`,
      unit: 'runs/s',
      median: rate.median,
      p99: Math.min(...m.loaded.perSecond),
      ...(baseline ? { ratio: total / (baseline.loaded.timings.length / baseline.loaded.seconds) } : {}),
      note: `${CLIENTS} clients, ${m.loaded.seconds} s; median and slowest 1-s bucket; mean ${total.toFixed(0)}/s${errorNote(m.loaded)}`,
    },
  ];
  for (const [k, what] of [
    ['first', 'message sent → first token'],
    ['done', 'message sent → run completed'],
  ] as const) {
    results.push({
      name: `${m.label}: ${what}, 1 client`,
      unit: 'ms',
      ...pick(m.seq, k),
      ...ratio(m.seq, k, baseline?.seq),
      note: `${m.seq.length} sequential runs`,
    });
    results.push({
      name: `${m.label}: ${what}, ${CLIENTS} clients`,
      unit: 'ms',
      ...pick(m.loaded.timings, k),
      ...ratio(m.loaded.timings, k, baseline?.loaded.timings),
      note: 'during the runs/s window',
    });
  }
  if (baseline) {
    const a = pick(m.seq, 'first');
    const b = pick(baseline.seq, 'first');
    results.push({
      name: `${m.label}: added latency to first token (vs bare loop), 1 client`,
      unit: 'ms',
      median: a.median - b.median,
      p99: a.p99 - b.p99,
      note: 'difference of the medians (p99s)',
    });
  }
  return results;
}

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
async function settledRss(pid: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    samples.push(rssBytes(pid));
    await sleep(200);
  }
  return summarize(samples).median;
}

/** N conversations streaming at once against the 2-s model: completion times and RSS per conversation. */
async function manyStreams(p: Platform, n: number): Promise<BenchResult[]> {
  const ids = await mapLimit(
    Array.from({ length: n }, (_, i) => i),
    32,
    () => createConversation(p, p.agents.slow),
  );
  const before = { api: await settledRss(p.api), worker: await settledRss(p.worker) };
  const peak = { ...before };
  const sampler = setInterval(() => {
    peak.api = Math.max(peak.api, rssBytes(p.api));
    peak.worker = Math.max(peak.worker, rssBytes(p.worker));
  }, 100);
  const started = performance.now();
  const outcomes = await Promise.allSettled(ids.map((id) => streamRun(p, id)));
  clearInterval(sampler);
  const wall = (performance.now() - started) / 1000;
  const ok = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
  const failed = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult | undefined;
  const note = `N=${n}, ${ok.length} completed, all sent at once, wall ${wall.toFixed(1)} s; model 2 s per call${
    failed ? `; ${n - ok.length} failed, first: ${String(failed.reason).slice(0, 160)}` : ''
  }`;
  const perConversation = (pid: 'api' | 'worker') => (peak[pid] - before[pid]) / n / 1024;
  const results: BenchResult[] = [
    {
      name: `${p.label}: ${n} concurrent streaming conversations, message sent → run completed`,
      unit: 'ms',
      ...summarize(ok.map((t) => t.done)),
      note: `${note}; ideal ≈ 4000 ms`,
    },
  ];
  if (p.api === p.worker) {
    results.push({
      name: `${p.label}: memory per streaming conversation (peak RSS − idle RSS) / N`,
      unit: 'KiB',
      median: perConversation('api'),
      p99: perConversation('api'),
      note: `N=${n}; one process; ${(before.api / MB).toFixed(0)} → ${(peak.api / MB).toFixed(0)} MiB`,
    });
  } else {
    for (const role of ['api', 'worker'] as const) {
      results.push({
        name: `${p.label}: memory per streaming conversation in the ${role} (peak RSS − idle RSS) / N`,
        unit: 'KiB',
        median: perConversation(role),
        p99: perConversation(role),
        note: `N=${n}; ${(before[role] / MB).toFixed(0)} → ${(peak[role] / MB).toFixed(0)} MiB`,
      });
    }
  }
  return results;
}

/** Committed transactions and rows written in `database` so far (pg_stat_database). */
async function databaseStats(database: string) {
  const sql = postgres('postgres://postgres@127.0.0.1:5432/postgres', { max: 1, onnotice: () => {} });
  try {
    const [row] =
      await sql`select xact_commit + xact_rollback as xacts, tup_inserted + tup_updated + tup_deleted as writes,
      tup_returned + tup_fetched as reads from pg_stat_database where datname = ${database}`;
    return { xacts: Number(row!.xacts), writes: Number(row!.writes), reads: Number(row!.reads) };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Calls per Redis command so far (INFO commandstats). */
async function redisCommands(): Promise<Map<string, number>> {
  const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true });
  await redis.connect();
  try {
    const info = await redis.info('commandstats');
    return new Map([...info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)].map((m) => [m[1]!, Number(m[2])]));
  } finally {
    redis.disconnect();
  }
}

/** The throughput phase of (b) with CPU time of every process involved. */
async function separateThroughput(p: Platform, services: Services) {
  const redis = pidsByComm('redis-server');
  const meters = {
    api: cpuMeter(() => [p.api]),
    worker: cpuMeter(() => [p.worker]),
    postgres: cpuMeter(() => postgresPids(p.database!)),
    redis: cpuMeter(() => redis),
    client: cpuMeter(() => [process.pid, services.pid]),
  };
  const writes = {
    api: writeCallMeter(() => [p.api]),
    worker: writeCallMeter(() => [p.worker]),
    postgres: writeCallMeter(() => postgresPids(p.database!)),
    redis: writeCallMeter(() => redis),
  };
  const all = [...Object.values(meters), ...Object.values(writes)];
  const dbBefore = await databaseStats(p.database!);
  const redisBefore = await redisCommands();
  const machine = machineCpuMs();
  for (const m of all) m.start();
  const loaded = await load(platformRun(p, p.agents.instant), CLIENTS, THROUGHPUT_SECONDS, () => {
    for (const m of all) m.poll();
  });
  const used = Object.fromEntries(Object.entries(meters).map(([k, m]) => [k, m.stop()])) as Record<
    keyof typeof meters,
    number
  >;
  const written = Object.fromEntries(Object.entries(writes).map(([k, m]) => [k, m.stop()])) as Record<
    keyof typeof writes,
    number
  >;
  const after = machineCpuMs();
  const runs = loaded.timings.length;
  const redisAfter = await redisCommands();
  await sleep(1500); // Postgres publishes its statistics about once a second
  const dbAfter = await databaseStats(p.database!);
  const commands = [...redisAfter]
    .map(([name, calls]) => [name, (calls - (redisBefore.get(name) ?? 0)) / runs] as const)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1]);
  const redisPerRun = commands.reduce((sum, [, n]) => sum + n, 0);
  const platform = used.api + used.worker + used.postgres + used.redis;
  const others = after.busy - machine.busy - platform - used.client;
  const idle = after.total - machine.total - (after.busy - machine.busy);
  const perRun = (ms: number) => ({ median: ms / runs, p99: ms / runs });
  const cpu: BenchResult[] = [
    {
      name: '(b) API + worker: CPU time per run, API + worker + Postgres + Redis',
      unit: 'ms CPU/run',
      ...perRun(platform),
      note: `over the runs/s window, ${runs} runs; one value; the bench client + fake services used ${(used.client / runs).toFixed(2)} ms/run more, other processes on the machine ${(others / 1000).toFixed(1)} s CPU, idle ${(idle / 1000).toFixed(1)} s`,
    },
    ...(['api', 'worker', 'postgres', 'redis'] as const).map((k) => ({
      name: `(b) API + worker: CPU time per run, ${k}`,
      unit: 'ms CPU/run',
      ...perRun(used[k]),
      note:
        k === 'postgres'
          ? 'backends of the bench database + the shared WAL writer, checkpointer, background writer, autovacuum'
          : k === 'redis'
            ? 'the whole redis-server (shared with other users of this machine)'
            : 'one value',
    })),
    {
      name: '(b) API + worker: write system calls per run, API + worker + Postgres + Redis',
      unit: 'writes/run',
      ...perRun(written.api + written.worker + written.postgres + written.redis),
      note: `/proc/<pid>/io syscw over the runs/s window: api ${(written.api / runs).toFixed(1)}, worker ${(written.worker / runs).toFixed(1)}, postgres ${(written.postgres / runs).toFixed(1)}, redis ${(written.redis / runs).toFixed(1)} (shared Redis)`,
    },
    {
      name: '(b) API + worker: Postgres transactions per run',
      unit: 'xacts/run',
      median: (dbAfter.xacts - dbBefore.xacts) / runs,
      p99: (dbAfter.xacts - dbBefore.xacts) / runs,
      note: `pg_stat_database of the bench database over the runs/s window (includes conversation creation); rows written ${((dbAfter.writes - dbBefore.writes) / runs).toFixed(1)}/run, rows read ${((dbAfter.reads - dbBefore.reads) / runs).toFixed(0)}/run`,
    },
    {
      name: '(b) API + worker: Redis commands per run',
      unit: 'commands/run',
      median: redisPerRun,
      p99: redisPerRun,
      note: `INFO commandstats delta (shared Redis: includes other users); top: ${commands
        .slice(0, 8)
        .map(([name, n]) => `${name} ${n.toFixed(1)}`)
        .join(', ')}`,
    },
  ];
  return { loaded, cpu };
}

/** Steady load for SOAK_SECONDS: RSS of API and worker every second, slope by least squares. */
async function soak(p: Platform): Promise<BenchResult[]> {
  const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true });
  await redis.connect();
  const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1]);
  const redisBefore = await usedMemory();
  const start = performance.now();
  const samples: Array<{ t: number; api: number; worker: number }> = [];
  const sampleRss = () =>
    samples.push({
      t: (performance.now() - start) / 60_000,
      api: rssBytes(p.api) / MB,
      worker: rssBytes(p.worker) / MB,
    });
  sampleRss();
  const loaded = await load(platformRun(p, p.agents.instant), SOAK_CLIENTS, SOAK_SECONDS, sampleRss);
  sampleRss();
  const redisAfter = await usedMemory();
  redis.disconnect();
  const runs = loaded.timings.length;
  const trend = (k: 'api' | 'worker', from = 0) => slope(samples.slice(from).map((s) => ({ x: s.t, y: s[k] })));
  const range = (k: 'api' | 'worker') =>
    `${samples[0]![k].toFixed(0)} → ${samples.at(-1)![k].toFixed(0)} MiB (max ${Math.max(...samples.map((s) => s[k])).toFixed(0)})`;
  const note = `soak ${SOAK_SECONDS} s, ${SOAK_CLIENTS} clients, ${runs} runs`;
  return [
    {
      name: `${p.label}: soak runs per second`,
      unit: 'runs/s',
      median: summarize(loaded.perSecond).median,
      p99: Math.min(...loaded.perSecond),
      note: `${note}; median and slowest 1-s bucket${errorNote(loaded)}`,
    },
    {
      name: `${p.label}: soak message sent → run completed`,
      unit: 'ms',
      ...summarize(loaded.timings.map((t) => t.done)),
      note,
    },
    ...(['api', 'worker'] as const).map((k) => ({
      name: `${p.label}: soak RSS slope, ${k}`,
      unit: 'MiB/min',
      median: trend(k),
      p99: trend(k),
      note: `${note}; least squares over ${samples.length} 1-s samples (second half alone: ${trend(k, samples.length >> 1).toFixed(2)}); ${range(k)}`,
    })),
    {
      name: `${p.label}: Redis memory kept per run`,
      unit: 'bytes/run',
      median: (redisAfter - redisBefore) / runs,
      p99: (redisAfter - redisBefore) / runs,
      note: `${note}; used_memory delta (the run's event stream lives 24 h); shared Redis`,
    },
  ];
}

/** The embedded process's RSS before and after its runs/s window, per run (the in-memory bus keeps events 24 h). */
function rssPerRun(p: Platform, before: number, runs: number): BenchResult {
  const after = rssBytes(p.api);
  return {
    name: `${p.label}: RSS growth per run over the runs/s window`,
    unit: 'KiB/run',
    median: (after - before) / runs / 1024,
    p99: (after - before) / runs / 1024,
    note: `${(before / MB).toFixed(0)} → ${(after / MB).toFixed(0)} MiB over ${runs} runs`,
  };
}

export async function run(): Promise<BenchResult[]> {
  const services = await startServices();
  const results: BenchResult[] = [];
  const log = (message: string) => process.stdout.write(`  [durable-runs] ${message}\n`);
  try {
    let baseline: ModeFigures | undefined;
    if (MODES.includes('c')) {
      log('(c) bare openai SDK loop');
      const bare = bareRun(services);
      baseline = {
        label: '(c) bare openai SDK loop (baseline)',
        seq: await sequential(bare, SEQUENTIAL_RUNS),
        loaded: await load(bare, CLIENTS, THROUGHPUT_SECONDS),
      };
      results.push(...modeResults(baseline));
    }

    if (MODES.includes('a')) {
      log('(a) embedded');
      const embedded = await startEmbedded(services);
      try {
        const one = platformRun(embedded, embedded.agents.instant);
        const seq = await sequential(one, SEQUENTIAL_RUNS);
        const rssBefore = rssBytes(embedded.api);
        const loaded = await load(one, CLIENTS, THROUGHPUT_SECONDS);
        results.push(...modeResults({ label: embedded.label, seq, loaded }, baseline));
        results.push(rssPerRun(embedded, rssBefore, loaded.timings.length));
      } finally {
        await embedded.stop();
      }
    }

    if (!MODES.includes('b')) return results;
    log('(b) API + worker');
    const separate = await startSeparate(services);
    try {
      const seq = await sequential(platformRun(separate, separate.agents.instant), SEQUENTIAL_RUNS);
      const { loaded, cpu } = await separateThroughput(separate, services);
      results.push(...modeResults({ label: separate.label, seq, loaded }, baseline), ...cpu);
      // The soak follows the runs/s window (same kind of load), before the N-streams peak inflates the heaps.
      if (SOAK_SECONDS > 0) {
        log(`(b) soak ${SOAK_SECONDS} s`);
        results.push(...(await soak(separate)));
      }
      if (STREAMS > 0) {
        log(`(b) ${STREAMS} concurrent streams`);
        results.push(...(await manyStreams(separate, STREAMS)));
      }
    } finally {
      await separate.stop();
    }
  } finally {
    await services.stop();
  }
  return results;
}

// `node bench/durable-runs.bench.ts` prints the figures on its own.
if (import.meta.main) {
  for (const r of await run()) {
    console.log(
      `${r.name}: median ${r.median.toFixed(2)} ${r.unit}, p99 ${r.p99.toFixed(2)}${r.ratio ? `, ratio ${r.ratio.toFixed(2)}` : ''}${r.note ? ` (${r.note})` : ''}`,
    );
  }
}
