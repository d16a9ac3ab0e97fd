/**
 * The chaos suite: a private Postgres and Redis, 1 API and 2 worker processes, the fake model and
 * a recording tool server; steady load with tool calls, waited, streamed and resumed messages and
 * second messages; the faults of issue #16 injected one after another; then the invariants.
 *
 * @example
 * const skip = chaosPrerequisitesMissing();
 * if (!skip) {
 *   const { results, report } = await runChaos(SHORT_FORM);
 *   console.log(report);
 * }
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  canStartPrivatePostgres,
  freePort,
  startFakeLlm,
  startPrivatePostgres,
  startPrivateRedis,
  startRecordingServer,
} from '@agentry/testkit';
import { chaosAgentConfig, chaosModel, POST_TOOL_PATH } from './agent.ts';
import { commandExists } from './commands.ts';
import { createErrorLog } from './error-log.ts';
import { FAULTS, type Fault, type FaultRecord, injectFaults, redisHandle } from './faults.ts';
import { createApiClient, newHttpStats, sleep } from './http-client.ts';
import { busLosses, checkInvariants, type InvariantResult } from './invariants.ts';
import { startLoad } from './load.ts';
import { observe } from './observe.ts';
import { createSupervisor } from './processes.ts';
import { formatReport } from './report.ts';

export interface ChaosOptions {
  /** How long the load runs (at least until every fault was injected once, plus a cool-down). */
  loadSeconds: number;
  /** How long the outage faults keep Redis or Postgres down. */
  outageMs: number;
  /** Pause between two faults. */
  gapMs: number;
  /** Concurrent clients, each one conversation at a time. */
  clients: number;
  /** How long to wait after the load for every run to reach a final status. */
  drainMs: number;
  faults?: Fault[];
  /** Progress lines (default: none). */
  log?: (line: string) => void;
}

/**
 * CI: every fault once with 5-s outages, 2 s apart, 6 clients. Sized for about 3 minutes on an idle
 * 2-core machine; on one at load average 14-26 a run took 5-16 minutes (process starts of 20-90 s).
 */
export const SHORT_FORM: ChaosOptions = { loadSeconds: 60, outageMs: 5000, gapMs: 2000, clients: 6, drainMs: 45_000 };

/** `pnpm test:chaos`: the faults cycle for `seconds` with 10-s outages, 20 s apart, 6 clients. */
export function longForm(seconds: number): ChaosOptions {
  return { loadSeconds: seconds, outageMs: 10_000, gapMs: 20_000, clients: 6, drainMs: 120_000 };
}

export interface ChaosResult {
  results: InvariantResult[];
  faults: FaultRecord[];
  report: string;
  /** Every process's log, kept for the evidence. */
  logFile: string;
}

/** Why the suite cannot run here (initdb or redis-server missing), or undefined. */
export function chaosPrerequisitesMissing(): string | undefined {
  if (!canStartPrivatePostgres()) return 'initdb/pg_ctl not found (install postgresql)';
  if (!commandExists('redis-server')) return 'redis-server not found (install redis)';
  return undefined;
}

const COOL_DOWN_MS = 5000;
const LOAD_GRACE_MS = 60_000;
const WARM_UP_MS = 4000;
const ADMIN_TOKEN = randomBytes(16).toString('hex');

export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
  const log = options.log ?? (() => {});
  const cleanup: Array<() => Promise<unknown>> = [];
  const dir = mkdtempSync(join(tmpdir(), 'agentry-chaos-'));
  const logFile = join(dir, 'processes.log');
  const out = createWriteStream(logFile);
  const errorLog = createErrorLog();
  const startedAt = Date.now();
  try {
    const pg = await startPrivatePostgres(await freePort());
    cleanup.push(() => pg.destroy());
    const redisPort = await freePort();
    const redis = redisHandle(redisPort, await startPrivateRedis(redisPort));
    cleanup.push(() => redis.kill());
    // If the suite dies before `finally` (an uncaught error, Ctrl-C in run.ts), the servers go too:
    // pg_ctl runs synchronously inside stop(), which is all an exit handler can wait for.
    const emergency = () => {
      redis.killNow();
      void pg.stop('immediate').catch(() => {});
      rmSync(pg.dataDir, { recursive: true, force: true });
    };
    process.once('exit', emergency);
    cleanup.push(async () => process.removeListener('exit', emergency));
    const llm = await startFakeLlm({ responder: chaosModel({ delayMs: 400, chunkDelayMs: 60 }) });
    cleanup.push(() => llm.close());
    const tools = await startRecordingServer();
    cleanup.push(() => tools.close());
    tools.respondWith((req) => ({
      status: req.path === POST_TOOL_PATH ? 201 : 200,
      body: { ok: true, ref: (req.json as { ref?: string } | undefined)?.ref ?? req.query.ref },
      delayMs: req.path === POST_TOOL_PATH ? 300 : 100,
    }));
    const sup = createSupervisor({
      onLog: (name, line) => {
        out.write(`${name} ${line}\n`);
        errorLog.add(name, line);
      },
    });
    cleanup.push(() => sup.stopAll());
    const apiPort = await freePort();
    const env = processEnv({
      databaseUrl: pg.url,
      redisUrl: `redis://127.0.0.1:${redisPort}`,
      llmUrl: llm.openaiBaseUrl,
    });
    // The API first (it migrates), then the workers together.
    await sup.start('api', 'api', { ...env, PORT: String(apiPort) });
    await Promise.all([sup.start('worker-1', 'worker', env), sup.start('worker-2', 'worker', env)]);
    log(`chaos: platform up in ${((Date.now() - startedAt) / 1000).toFixed(1)} s (logs: ${logFile})`);

    const baseUrl = `http://127.0.0.1:${apiPort}`;
    const http = newHttpStats();
    const { key, agentId } = await setUpTenant(baseUrl, tools.url);
    const api = createApiClient({ baseUrl, key, stats: http });
    const loadUntil = Date.now() + options.loadSeconds * 1000;
    // The load runs until the faults are over (each is injected at least once), however long they take.
    const loadOptions = { api, agentId, clients: options.clients, untilMs: Number.MAX_SAFE_INTEGER };
    const loadStartedAt = Date.now();
    const load = startLoad(loadOptions);
    await sleep(WARM_UP_MS);
    const faults = await injectFaults(
      options.faults ?? FAULTS,
      { sup, pg, redis, outageMs: options.outageMs },
      {
        gapMs: options.gapMs,
        untilMs: loadUntil - COOL_DOWN_MS,
        onFault: (f) => log(`chaos: ${f.name} in ${((f.endedAt - f.startedAt) / 1000).toFixed(1)} s ${f.error ?? ''}`),
      },
    );
    // Load goes on a little after the last fault, so its after-effects meet traffic.
    loadOptions.untilMs = Math.max(loadUntil, Date.now() + COOL_DOWN_MS);
    // A client stuck on a run that never ends (that is a finding, counted below) must not hold the
    // suite: after a grace period the checks run on what the clients recorded so far.
    const records = await Promise.race([load.done, sleep(LOAD_GRACE_MS).then(() => load.records)]);
    log(`chaos: load done, ${records.conversations.length} conversations; draining`);
    const observations = await observe({ api, records, tools, http, exits: sup.exits, drainMs: options.drainMs });
    const results = checkInvariants(observations);
    const losses = busLosses(observations);
    const lossNote = `Runs whose events the bus lost (Redis restarts; not an invariant): ${losses.length}${losses
      .slice(0, 5)
      .map((l) => `\n  ${l}`)
      .join('')}`;
    const report = `${formatReport(results, faults, {
      startedAt: loadStartedAt,
      sentAt: records.conversations.flatMap((c) => c.messages.map((m) => m.sentAt)),
    })}\n${lossNote}\n${errorLog.format()}\nprocess logs: ${logFile}`;
    return { results, faults, report, logFile };
  } finally {
    for (const fn of cleanup.reverse()) await fn().catch((error: unknown) => log(`chaos: cleanup: ${String(error)}`));
    out.end();
  }
}

/** The environment of every platform process: short job locks and sweeps so crashes recover within a short run. */
function processEnv(urls: { databaseUrl: string; redisUrl: string; llmUrl: string }): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    DATABASE_URL: urls.databaseUrl,
    REDIS_URL: urls.redisUrl,
    QUEUE_PREFIX: 'chaos',
    PLATFORM_ADMIN_TOKEN: ADMIN_TOKEN,
    OPENAI_BASE_URL: urls.llmUrl,
    OPENAI_API_KEY: 'test-key',
    EGRESS_ALLOWLIST: '127.0.0.1',
    RATE_LIMIT_PER_MINUTE: '10000000',
    TENANT_CONCURRENCY: '100',
    WORKER_CONCURRENCY: '8',
    JOB_LOCK_MS: '3000',
    SWEEP_INTERVAL_MS: '2000',
    RUN_WAIT_MS: '10000',
    METRICS_PORT: '0',
    SHUTDOWN_DEADLINE_MS: '10000',
  };
}

async function setUpTenant(baseUrl: string, toolUrl: string): Promise<{ key: string; agentId: string }> {
  const admin = createApiClient({ baseUrl, key: ADMIN_TOKEN, stats: newHttpStats() });
  const tenant = await admin.request('POST', '/v1/tenants', { body: { name: 'Chaos' } });
  if (tenant.status !== 201) throw new Error(`tenant: ${tenant.status} ${JSON.stringify(tenant.json)}`);
  const key: string = tenant.json.api_key.key;
  const client = createApiClient({ baseUrl, key, stats: newHttpStats() });
  const agent = await client.request('POST', '/v1/agents', { body: { config: chaosAgentConfig(toolUrl) } });
  if (agent.status !== 201) throw new Error(`agent: ${agent.status} ${JSON.stringify(agent.json)}`);
  return { key, agentId: agent.json.id };
}
