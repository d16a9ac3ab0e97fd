/**
 * The compose topology (infra/compose.yaml) with local processes: 2 API processes on two ports
 * and 2 worker processes sharing one Postgres database and one Redis queue prefix.
 *
 *   node infra/local-topology.ts          # Ctrl-C stops everything and cleans up
 *
 * Without DATABASE_URL it creates a fresh database on the machine's Postgres and drops it at the
 * end; it always uses a random QUEUE_PREFIX (unless given) and deletes that prefix's Redis keys.
 * The processes run the commands behind `pnpm start:api` / `pnpm start:worker`, read from
 * package.json, with node directly (as the containers do).
 *
 * @example
 * const topology = await startLocalTopology({ env: { OPENAI_BASE_URL: llm.openaiBaseUrl } });
 * await fetch(`${topology.apiUrls[1]}/readyz`);
 * await topology.stop();
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import postgres from 'postgres';

export const repoRoot = fileURLToPath(new URL('..', import.meta.url));

export interface LocalTopologyOptions {
  /** Postgres to use as is. Default: a fresh database on `postgresAdminUrl`, dropped by `stop()`. */
  databaseUrl?: string;
  /** Where the fresh database is created. Default `postgres://postgres@127.0.0.1:5432/postgres`. */
  postgresAdminUrl?: string;
  /** Default `redis://127.0.0.1:6379`. */
  redisUrl?: string;
  /** Default a random `agentry_topo_…`, whose keys `stop()` deletes. */
  queuePrefix?: string;
  /** Default a random 32-character token (returned as `platformAdminToken`). */
  platformAdminToken?: string;
  /** Number of API / worker processes (default 2 each, as in compose). */
  apis?: number;
  workers?: number;
  /** Fixed API ports (default: free ports picked by the OS). */
  apiPorts?: number[];
  /** More environment for every process (model settings, LOG_LEVEL, WORKER_CONCURRENCY…). */
  env?: Record<string, string>;
  /** How long to wait for every API's /readyz and every worker's start (default 30 s). */
  readyTimeoutMs?: number;
  /** SIGTERM first; SIGKILL whatever still runs after this long (default 30 s: the worker's 25 s deadline + 5 s, like compose). */
  stopDeadlineMs?: number;
  /** Every output line of every process (default: kept in memory, shown when a start fails). */
  onLog?: (process: string, line: string) => void;
}

export interface TopologyProcess {
  name: string;
  role: 'api' | 'worker';
  pid: number;
}

export interface LocalTopology {
  apiUrls: string[];
  databaseUrl: string;
  redisUrl: string;
  queuePrefix: string;
  platformAdminToken: string;
  processes: TopologyProcess[];
  /** Stops every process (SIGTERM, then SIGKILL after the deadline) and removes what it created. Idempotent. */
  stop(): Promise<void>;
}

interface Managed extends TopologyProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
  log: string[];
}

/** The entry file of a `node <file>` script in package.json (`start:api`, `start:worker`). */
export function scriptEntry(script: string): string {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const match = /^node (\S+\.ts)$/.exec(pkg.scripts[script] ?? '');
  if (!match) throw new Error(`package.json script "${script}" is not "node <file>.ts": ${pkg.scripts[script]}`);
  return match[1]!;
}

export async function startLocalTopology(options: LocalTopologyOptions = {}): Promise<LocalTopology> {
  const redisUrl = options.redisUrl ?? 'redis://127.0.0.1:6379';
  const queuePrefix = options.queuePrefix ?? `agentry_topo_${randomBytes(5).toString('hex')}`;
  const platformAdminToken = options.platformAdminToken ?? randomBytes(16).toString('hex');
  const stopDeadlineMs = options.stopDeadlineMs ?? 30_000;
  const readyTimeoutMs = options.readyTimeoutMs ?? 30_000;
  const adminUrl = options.postgresAdminUrl ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const ownedDatabase = options.databaseUrl ? undefined : `agentry_topo_${randomBytes(5).toString('hex')}`;
  const databaseUrl = options.databaseUrl ?? withDatabase(adminUrl, ownedDatabase!);
  const managed: Managed[] = [];

  const killAll = () => {
    for (const p of managed) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  };
  process.once('exit', killAll);

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      await Promise.all(managed.map((p) => terminate(p, stopDeadlineMs)));
      process.removeListener('exit', killAll);
      const errors: unknown[] = [];
      if (!options.queuePrefix) await deletePrefix(redisUrl, queuePrefix).catch((e) => errors.push(e));
      if (ownedDatabase)
        await adminQuery(adminUrl, `drop database if exists "${ownedDatabase}" with (force)`).catch((e) =>
          errors.push(e),
        );
      if (errors.length > 0) throw new AggregateError(errors, 'local topology cleanup failed');
    })();
    return stopping;
  };

  try {
    if (ownedDatabase) await adminQuery(adminUrl, `create database "${ownedDatabase}"`);
    const baseEnv: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      LOG_LEVEL: 'info',
      ...options.env,
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      QUEUE_PREFIX: queuePrefix,
      PLATFORM_ADMIN_TOKEN: platformAdminToken,
    };
    const apiCount = options.apis ?? 2;
    const ports = options.apiPorts ?? (await Promise.all(Array.from({ length: apiCount }, freePort)));
    if (ports.length !== apiCount) throw new Error(`apiPorts has ${ports.length} ports for ${apiCount} APIs`);
    const apiEntry = scriptEntry('start:api');
    const workerEntry = scriptEntry('start:worker');
    const apiUrls = ports.map((port) => `http://127.0.0.1:${port}`);
    ports.forEach((port, i) => {
      managed.push(
        launch(`api-${i + 1}`, 'api', apiEntry, { ...baseEnv, HOST: '127.0.0.1', PORT: String(port) }, options.onLog),
      );
    });
    for (let i = 0; i < (options.workers ?? 2); i++) {
      // One host, so each worker's /metrics + /healthz gets its own port (in containers: 9464 each).
      const metricsPort = String(await freePort());
      const env = { ...baseEnv, HOST: '127.0.0.1', METRICS_PORT: metricsPort };
      managed.push(launch(`worker-${i + 1}`, 'worker', workerEntry, env, options.onLog));
    }
    const deadline = Date.now() + readyTimeoutMs;
    const logsWorkerStart = ['info', 'debug', 'trace'].includes(baseEnv.LOG_LEVEL!);
    await Promise.all(
      managed.map((p, i) =>
        p.role === 'api'
          ? waitReady(p, `${apiUrls[i]}/readyz`, deadline)
          : logsWorkerStart
            ? waitLog(p, 'worker started', deadline)
            : undefined,
      ),
    );
    return {
      apiUrls,
      databaseUrl,
      redisUrl,
      queuePrefix,
      platformAdminToken,
      processes: managed.map(({ name, role, pid }) => ({ name, role, pid })),
      stop,
    };
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }
}

function launch(
  name: string,
  role: 'api' | 'worker',
  entry: string,
  env: Record<string, string>,
  onLog: LocalTopologyOptions['onLog'],
): Managed {
  // detached: its own process group, so a terminal's Ctrl-C reaches only this script, which then
  // stops the children in order (they would otherwise get SIGINT and SIGTERM both).
  const child = spawn(process.execPath, [entry], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  if (child.pid === undefined) throw new Error(`${name} did not start`);
  const log: string[] = [];
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  for (const stream of [child.stdout, child.stderr]) {
    let partial = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        log.push(line);
        if (log.length > 200) log.shift();
        onLog?.(name, line);
      }
    });
  }
  return { name, role, pid: child.pid, child, exited, log };
}

function failure(p: Managed, problem: string): Error {
  return new Error(`${p.name} (pid ${p.pid}) ${problem}; its last output:\n${p.log.slice(-30).join('\n')}`);
}

async function waitReady(p: Managed, url: string, deadline: number): Promise<void> {
  for (;;) {
    if (p.child.exitCode !== null) throw failure(p, `exited with code ${p.child.exitCode}`);
    const status = await fetch(url, { signal: AbortSignal.timeout(2000) }).then(
      (res) => res.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline) throw failure(p, `did not answer 200 on ${url} in time (last status ${status})`);
    await sleep(200);
  }
}

async function waitLog(p: Managed, text: string, deadline: number): Promise<void> {
  while (!p.log.some((line) => line.includes(text))) {
    if (p.child.exitCode !== null) throw failure(p, `exited with code ${p.child.exitCode}`);
    if (Date.now() > deadline) throw failure(p, `did not log "${text}" in time`);
    await sleep(100);
  }
}

async function terminate(p: Managed, deadlineMs: number): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill('SIGTERM');
  const timer = setTimeout(() => p.child.kill('SIGKILL'), deadlineMs);
  await p.exited;
  clearTimeout(timer);
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function adminQuery(url: string, statement: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(statement);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

async function deletePrefix(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
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

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Variables the CLI passes on from its own environment (the rest of the compose `x-env`). */
export const FORWARDED_ENV = [
  'LOG_LEVEL',
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'OPENAI_MODEL',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
  'ANTHROPIC_MODEL',
  'EMBEDDING_MODEL',
  'EGRESS_ALLOWLIST',
  'RUN_WAIT_MS',
  'WORKER_CONCURRENCY',
  'SHUTDOWN_DEADLINE_MS',
];

/** The CLI's options: DATABASE_URL, REDIS_URL, PLATFORM_ADMIN_TOKEN and FORWARDED_ENV from `env`. */
export function optionsFromEnv(env: Record<string, string | undefined>): LocalTopologyOptions {
  return {
    ...(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL } : {}),
    ...(env.REDIS_URL ? { redisUrl: env.REDIS_URL } : {}),
    ...(env.PLATFORM_ADMIN_TOKEN ? { platformAdminToken: env.PLATFORM_ADMIN_TOKEN } : {}),
    env: Object.fromEntries(FORWARDED_ENV.flatMap((k) => (env[k] ? [[k, env[k]]] : []))),
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const topology = await startLocalTopology({
    ...optionsFromEnv(process.env),
    onLog: (name, line) => process.stdout.write(`[${name}] ${line}\n`),
  });
  process.stdout.write(
    `\nlocal topology ready (queue prefix ${topology.queuePrefix}, database ${topology.databaseUrl})\n` +
      `${topology.apiUrls.map((url, i) => `  api-${i + 1}: ${url}`).join('\n')}\n` +
      `  PLATFORM_ADMIN_TOKEN=${topology.platformAdminToken}\nCtrl-C stops everything and cleans up.\n`,
  );
  const shutdown = () =>
    topology.stop().then(
      () => process.exit(0),
      (error) => {
        console.error(error);
        process.exit(1);
      },
    );
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}
