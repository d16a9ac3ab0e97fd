/**
 * The embedded mode under a burst (issue 16, item 9): `node apps/api/src/main.ts --embedded` (PGlite
 * and the in-process jobs in one process) gets `BURST` (200) message POSTs at once, each on its own
 * conversation (a run: two calls of a model answering after MODEL_MS, 1 s, and one HTTP tool call), with the admission limiter off (ADMISSION_MAX_IN_FLIGHT=0, the baseline) and with
 * its embedded defaults, one after the other in the same run. Measured for each: `/healthz` latency
 * while the burst is served (a probe every 25 ms from its own connection), the share of POSTs
 * refused (503/429, each must carry Retry-After), the time until every accepted run has ended, and
 * the process's CPU in the `IDLE_SECONDS` (10) after that. See bench/README.md.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@agentry/testkit';
import type { BenchResult } from './run.ts';
import { summarize } from './stats.ts';
import { embeddedCommand } from './support/embedded-command.ts';
import { api, startServices, stopChild } from './support/platform.ts';
import { cpuMs } from './support/proc.ts';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const envNumber = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const BURST = envNumber('BURST', 200);
const IDLE_SECONDS = envNumber('IDLE_SECONDS', 10);
const PROBE_EVERY_MS = 25;
/** How long the fake model takes per call (a run makes two): real models take seconds, so runs pile up. */
const MODEL_MS = envNumber('MODEL_MS', 1000);
const ADMIN_TOKEN = `bench-admin-${randomBytes(12).toString('hex')}`;
const FINAL = new Set(['completed', 'failed', 'cancelled', 'timed_out']);
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** The embedded defaults (worker 8, tenant 4 at once), but no per-minute cap on the one bench tenant. */
const PLATFORM_ENV = { RATE_LIMIT_PER_MINUTE: '10000000', EGRESS_ALLOWLIST: '127.0.0.1', OPENAI_API_KEY: 'bench' };

interface Child {
  child: ChildProcess;
  stop(): Promise<void>;
}

async function startEmbedded(llm: string, env: Record<string, string>): Promise<Child & { url: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'agentry-burst-'));
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
      ...env,
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      PLATFORM_ADMIN_TOKEN: ADMIN_TOKEN,
      OPENAI_BASE_URL: llm,
    },
    stdio: ['ignore', log, log],
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await stopChild(child, 15_000);
    log.end();
    // The platform's log outlives its data directory, for a look at what went wrong.
    await new Promise<void>((done) => log.once('close', () => done()));
    copyFileSync(join(dataDir, 'platform.log'), join(tmpdir(), `agentry-burst-${port}.log`));
    rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 240_000; // PGlite initialises and migrates first: slow on a busy machine
  while (
    (await fetch(`${url}/readyz`).then(
      (r) => r.status,
      () => 0,
    )) !== 200
  ) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error('the embedded platform did not start');
    }
    await sleep(200);
  }
  return { child, url, stop };
}

/** The durable-runs bench's agent (one HTTP tool call, then the answer) on the model taking SLOW_MS per call. */
function agentConfig(toolUrl: string): Record<string, unknown> {
  return {
    basic_settings: { name: 'Stock desk', description: 'Answers stock questions', language: 'English', tone: 'Brief' },
    action_books: [
      { condition: 'When asked about stock', action: 'Look it up with lookup_stock', tools: ['lookup_stock'] },
    ],
    tools: [
      {
        name: 'lookup_stock',
        description: 'Stock of an item',
        parameters: { type: 'object', properties: { item: { type: 'string' } }, required: ['item'] },
        endpoint: { url: `${toolUrl}/stock`, method: 'POST', body: { item: '{item}' } },
      },
    ],
    model: { provider: 'openai', name: 'fake-slow' },
  };
}

/** `/healthz` once every PROBE_EVERY_MS over a connection of its own; latencies in ms with their start. */
function startProbe(url: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const samples: Array<{ at: number; ms: number }> = [];
  let running = true;
  const once = () =>
    new Promise<void>((done) => {
      const at = performance.now();
      const req = http.get(`${url}/healthz`, { agent }, (res) => {
        res.resume();
        res.on('end', () => {
          samples.push({ at, ms: performance.now() - at });
          done();
        });
      });
      req.on('error', () => {
        samples.push({ at, ms: Number.POSITIVE_INFINITY });
        done();
      });
    });
  const loop = (async () => {
    while (running) {
      await once();
      await sleep(PROBE_EVERY_MS);
    }
  })();
  return {
    samples,
    async stop() {
      running = false;
      await loop;
      agent.destroy();
    },
  };
}

interface Outcome {
  status: number;
  retryAfter: boolean;
  runId?: string;
  runStatus?: string;
}

/** A message POST waiting for its run (the default); a connection the server dropped is status 0. */
async function sendMessage(url: string, key: string, conversationId: string): Promise<Outcome> {
  const res = await fetch(`${url}/v1/conversations/${conversationId}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ content: 'How many of item 42 are in stock?' }),
    signal: AbortSignal.timeout(180_000),
  }).catch(() => undefined);
  if (!res) return { status: 0, retryAfter: false };
  const json = (await res.json().catch(() => ({}))) as { id?: string; status?: string };
  return {
    status: res.status,
    retryAfter: res.headers.has('retry-after'),
    ...(res.status < 300 && json.id ? { runId: json.id, runStatus: json.status! } : {}),
  };
}

/** Polls a run until it is final; a dropped connection is retried, and after 5 minutes the run is `lost`. */
async function waitFinal(url: string, key: string, runId: string): Promise<string> {
  const until = Date.now() + 300_000;
  while (Date.now() < until) {
    const res = await fetch(`${url}/v1/runs/${runId}`, { headers: { authorization: `Bearer ${key}` } }).catch(
      () => undefined,
    );
    const status = res?.status === 200 ? ((await res.json()) as { status: string }).status : '';
    if (FINAL.has(status)) return status;
    await sleep(250);
  }
  return 'lost';
}

interface Measured {
  healthz: number[];
  refused: number;
  withoutRetryAfter: number;
  errors: number;
  dropped: number;
  drainMs: number;
  idleCpuPercent: number;
  endStatuses: Record<string, number>;
}

/** One burst on a fresh embedded process with `env`; every accepted run is followed until it ends. */
async function burst(services: { llm: string; tool: string }, env: Record<string, string>): Promise<Measured> {
  const platform = await startEmbedded(services.llm, env);
  try {
    const key = (await api(platform.url, '/v1/tenants', ADMIN_TOKEN, { name: 'Burst' })).api_key.key;
    const agentId = (await api(platform.url, '/v1/agents', key, { config: agentConfig(services.tool) })).id;
    const conversations: string[] = [];
    for (let i = 0; i < BURST; i++)
      conversations.push((await api(platform.url, '/v1/conversations', key, { agent_id: agentId })).id);
    await sleep(1000);
    const probe = startProbe(platform.url);
    await sleep(200);
    const start = performance.now();
    const outcomes = await Promise.all(conversations.map((id) => sendMessage(platform.url, key, id)));
    const ends = await Promise.all(
      outcomes.map((o) =>
        o.runId && !FINAL.has(o.runStatus!) ? waitFinal(platform.url, key, o.runId) : Promise.resolve(o.runStatus),
      ),
    );
    const drainMs = performance.now() - start;
    await probe.stop();
    const cpuBefore = cpuMs(platform.child.pid!);
    await sleep(IDLE_SECONDS * 1000);
    const idleCpuPercent = ((cpuMs(platform.child.pid!) - cpuBefore) / (IDLE_SECONDS * 1000)) * 100;
    const refused = outcomes.filter((o) => o.status === 503 || o.status === 429);
    const endStatuses: Record<string, number> = {};
    for (const s of ends) if (s) endStatuses[s] = (endStatuses[s] ?? 0) + 1;
    return {
      healthz: probe.samples.filter((s) => s.at >= start).map((s) => s.ms),
      refused: refused.length,
      withoutRetryAfter: refused.filter((o) => !o.retryAfter).length,
      errors: outcomes.filter((o) => o.status >= 500 && o.status !== 503).length,
      dropped: outcomes.filter((o) => o.status === 0).length,
      drainMs,
      idleCpuPercent,
      endStatuses,
    };
  } finally {
    await platform.stop();
  }
}

function figures(label: string, m: Measured, baseline?: Measured): BenchResult[] {
  const health = summarize(m.healthz);
  const baseHealth = baseline ? summarize(baseline.healthz) : undefined;
  const max = Math.max(...m.healthz);
  const ends = Object.entries(m.endStatuses)
    .map(([s, n]) => `${n} ${s}`)
    .join(', ');
  return [
    {
      name: `${label}: /healthz during a ${BURST}-message burst`,
      unit: 'ms',
      ...health,
      ...(baseHealth ? { ratio: health.p99 / baseHealth.p99 } : {}),
      note: `max ${max.toFixed(0)} ms over ${m.healthz.length} probes; ratio of p99s`,
    },
    {
      name: `${label}: message POSTs refused`,
      unit: '%',
      median: (m.refused / BURST) * 100,
      p99: (m.refused / BURST) * 100,
      note: `${m.refused} of ${BURST} (503/429), ${m.withoutRetryAfter} without Retry-After; ${m.errors} other 5xx, ${m.dropped} connections dropped; accepted runs ended: ${ends}`,
    },
    {
      name: `${label}: burst start → every accepted run ended`,
      unit: 'ms',
      median: m.drainMs,
      p99: m.drainMs,
      ...(baseline ? { ratio: m.drainMs / baseline.drainMs } : {}),
    },
    {
      name: `${label}: process CPU in the ${IDLE_SECONDS} s after`,
      unit: '% of a core',
      median: m.idleCpuPercent,
      p99: m.idleCpuPercent,
    },
  ];
}

export async function run(): Promise<BenchResult[]> {
  const services = await startServices({ SLOW_MS: String(MODEL_MS) });
  try {
    const log = (text: string) => process.stdout.write(`  ${text}\n`);
    log('limiter off (ADMISSION_MAX_IN_FLIGHT=0, ADMISSION_MAX_QUEUED_RUNS=0)');
    const off = await burst(services, { ADMISSION_MAX_IN_FLIGHT: '0', ADMISSION_MAX_QUEUED_RUNS: '0' });
    log('limiter on (embedded defaults)');
    const on = await burst(services, {});
    return [...figures('limiter off', off), ...figures('limiter on', on, off)];
  } finally {
    await services.stop();
  }
}
