/**
 * There is no Docker engine or Kubernetes cluster here, so this checks what can be checked: the
 * recipes parse, name the commands, environment variables and health paths the code really has,
 * give the processes the time their shutdown deadlines need, and the compose topology runs as
 * local processes (integration test against the machine's Postgres and Redis).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, matchesGlob } from 'node:path';
import { canConnect, testServices } from '@agentry/testkit';
import { Redis } from 'ioredis';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { FORWARDED_ENV, repoRoot, scriptEntry, startLocalTopology } from './local-topology.ts';

type Json = Record<string, any>;

const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8');
const k8sDir = 'infra/k8s';
const k8sFiles = readdirSync(join(repoRoot, k8sDir)).filter((f) => f.endsWith('.yaml'));

// ---- what the code says ------------------------------------------------------------------------

/** Every variable the apps read: `envString(env, 'X')`, `envUrl(env, 'X', …)`, … */
function appEnvVars(): Set<string> {
  const sources = [
    ...readdirSync(join(repoRoot, 'apps'))
      .map((app) => `apps/${app}/src/config.ts`)
      .filter((f) => existsSync(join(repoRoot, f))),
    'packages/env/src/env.ts',
    'packages/models/src/model-settings-env.ts',
  ];
  const names = new Set<string>();
  for (const file of sources) {
    for (const m of read(file).matchAll(/env(?:String|Url|Int|Enum|List)\(\s*env,\s*'([A-Z][A-Z0-9_]*)'/g))
      names.add(m[1]!);
  }
  return names;
}
const APP_ENV = appEnvVars();
/** Read by Node libraries, not by Agentry's config: allowed in the recipes. */
const PLATFORM_ENV = new Set(['NODE_ENV']);

const HEALTH_PATHS = [...read('apps/api/src/routes/health.ts').matchAll(/app\.get\('([^']+)'/g)].map((m) => m[1]!);

function defaultMs(file: string, pattern: RegExp): number {
  const m = pattern.exec(read(file));
  if (!m) throw new Error(`no default found in ${file} for ${pattern}`);
  return Number(m[1]!.replaceAll('_', ''));
}
const WORKER_DEADLINE_MS = defaultMs('apps/worker/src/config.ts', /envInt\(env, 'SHUTDOWN_DEADLINE_MS', ([\d_]+)/);
const API_DEADLINE_MS = defaultMs('apps/api/src/main.ts', /const SHUTDOWN_DEADLINE_MS = ([\d_]+)/);
const QUEUE_NAME = /const DEFAULT_QUEUE = '([^']+)'/.exec(read('packages/queue/src/bullmq-queue.ts'))?.[1];

const packageJson = JSON.parse(read('package.json')) as { scripts: Record<string, string>; packageManager: string };
const API_COMMAND = ['node', scriptEntry('start:api')];
const WORKER_COMMAND = ['node', scriptEntry('start:worker')];
const MIGRATE_COMMAND = ['node', 'infra/migrate.ts'];

// ---- what the recipes say ----------------------------------------------------------------------

const dockerfile = read('infra/Dockerfile');
const compose = parse(read('infra/compose.yaml'), { merge: true }) as Json;
const k8s: Json[] = k8sFiles.flatMap((file) =>
  parseAllDocuments(read(`${k8sDir}/${file}`)).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
    return { ...(doc.toJS() as Json), __file: file };
  }),
);
const k8sOf = (kind: string, name?: string) =>
  k8s.filter((d) => d.kind === kind && (name === undefined || d.metadata?.name === name));
const one = (kind: string, name: string): Json => {
  const found = k8sOf(kind, name);
  expect(found, `${kind}/${name}`).toHaveLength(1);
  return found[0]!;
};
const podSpec = (workload: Json): Json => workload.spec.template.spec;
const containersOf = (workload: Json): Json[] => podSpec(workload).containers;

const appServices = Object.entries(compose.services as Record<string, Json>).filter(
  ([, s]) => s.image === 'agentry:local',
);

/** Dockerfile `CMD [...]` / `HEALTHCHECK … CMD [...]` exec forms. */
function dockerExec(instruction: 'CMD' | 'HEALTHCHECK'): string[] {
  const text = dockerfile.replaceAll(/\\\n/g, ' ');
  const line = text.split('\n').find((l) => l.startsWith(`${instruction} `));
  if (!line) throw new Error(`no ${instruction} in the Dockerfile`);
  return JSON.parse(line.slice(line.indexOf('['))) as string[];
}

function durationMs(value: string): number {
  const m = /^(\d+)(ms|s|m)$/.exec(value);
  if (!m) throw new Error(`not a compose duration: ${value}`);
  return Number(m[1]) * { ms: 1, s: 1000, m: 60_000 }[m[2] as 'ms' | 's' | 'm'];
}

describe('infra recipes (static)', () => {
  it('reads the variables, health paths and deadlines out of the code', () => {
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'PLATFORM_ADMIN_TOKEN', 'SHUTDOWN_DEADLINE_MS', 'OPENAI_API_KEY'])
      expect(APP_ENV).toContain(name);
    expect(HEALTH_PATHS).toEqual(expect.arrayContaining(['/healthz', '/readyz']));
    expect(WORKER_DEADLINE_MS).toBeGreaterThan(0);
    expect(API_DEADLINE_MS).toBeGreaterThan(0);
    expect(QUEUE_NAME).toBeTruthy();
  });

  it('every YAML file parses; every manifest has a kind and a name; kustomization lists existing files', () => {
    expect(Object.keys(compose.services)).toEqual(
      expect.arrayContaining(['postgres', 'redis', 'migrate', 'api-1', 'api-2', 'worker']),
    );
    for (const doc of k8s) {
      if (doc.kind === 'Kustomization') continue;
      expect(doc.apiVersion, doc.__file).toBeTruthy();
      expect(doc.metadata?.name, doc.__file).toBeTruthy();
    }
    const kustomizations = k8sOf('Kustomization');
    expect(kustomizations).toHaveLength(1);
    for (const resource of kustomizations[0]!.resources as string[]) expect(k8sFiles).toContain(resource);
  });

  it('package.json start scripts are `node <file>` on files that exist', () => {
    for (const script of ['start:api', 'start:worker']) expect(packageJson.scripts[script]).toBeTruthy();
    for (const [, entry] of [API_COMMAND, WORKER_COMMAND, MIGRATE_COMMAND])
      expect(existsSync(join(repoRoot, entry!)), entry).toBe(true);
  });

  it('the Dockerfile: pnpm and Node versions of the repo, api command by default, /healthz check, non-root', () => {
    expect(packageJson.packageManager).toBe(`pnpm@${/ARG PNPM_VERSION=(\S+)/.exec(dockerfile)?.[1]}`);
    expect(dockerfile).toMatch(/ARG NODE_IMAGE=node:24[-\w.]*slim/);
    expect(dockerfile).toMatch(/--frozen-lockfile/);
    expect(dockerExec('CMD')).toEqual(API_COMMAND);
    const healthcheck = dockerExec('HEALTHCHECK').join(' ');
    expect(healthcheck).toContain('/healthz');
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/HOST=0\.0\.0\.0/);
    expect(dockerfile).toMatch(/NODE_ENV=production/);
  });

  it('infra/Dockerfile.dockerignore keeps what the image needs and drops node_modules and secrets', () => {
    const patterns = read('infra/Dockerfile.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#') && !l.startsWith('!'));
    const excluded = (path: string) => {
      const parts = path.split('/');
      return parts.some((_, i) => patterns.some((p) => matchesGlob(parts.slice(0, i + 1).join('/'), p)));
    };
    const needed = [
      'package.json',
      'pnpm-lock.yaml',
      'pnpm-workspace.yaml',
      'migrations/0000_init.sql',
      API_COMMAND[1]!,
      WORKER_COMMAND[1]!,
      MIGRATE_COMMAND[1]!,
      'packages/db/src/database.ts',
    ];
    for (const path of needed) expect(excluded(path), path).toBe(false);
    for (const path of ['node_modules/x', 'packages/db/node_modules/x', '.env', 'apps/api/.env.local', '.git/HEAD'])
      expect(excluded(path), path).toBe(true);
  });

  it('compose and Kubernetes run the package.json commands: API, worker, migrations', () => {
    const commands = new Map(appServices.map(([name, s]) => [name, s.command]));
    expect(commands.get('api-1')).toEqual(API_COMMAND);
    expect(commands.get('api-2')).toEqual(API_COMMAND);
    expect(commands.get('worker')).toEqual(WORKER_COMMAND);
    expect(commands.get('migrate')).toEqual(MIGRATE_COMMAND);
    expect(containersOf(one('Deployment', 'agentry-api'))[0]!.command).toEqual(API_COMMAND);
    expect(containersOf(one('Deployment', 'agentry-worker'))[0]!.command).toEqual(WORKER_COMMAND);
    expect(containersOf(one('Job', 'agentry-migrate'))[0]!.command).toEqual(MIGRATE_COMMAND);
    // Every command anywhere is one of the three.
    const all = [
      ...appServices.map(([, s]) => s.command),
      ...k8s.filter((d) => d.spec?.template?.spec?.containers).flatMap((d) => containersOf(d).map((c) => c.command)),
    ];
    for (const command of all) expect([API_COMMAND, WORKER_COMMAND, MIGRATE_COMMAND]).toContainEqual(command);
  });

  it('every environment variable in the recipes is one the apps read', () => {
    const named: Array<[string, string]> = [];
    const add = (where: string, keys: Iterable<string>) => {
      for (const key of keys) named.push([where, key]);
    };
    add('compose x-env', Object.keys(compose['x-env']));
    for (const [name, service] of appServices) add(`compose ${name}`, Object.keys(service.environment ?? {}));
    // The runtime stage's ENV (the deps stage's build-time variables never reach the processes).
    const runtimeStage = dockerfile.slice(dockerfile.indexOf(' AS runtime')).replaceAll(/\\\n/g, ' ');
    for (const m of runtimeStage.matchAll(/^ENV (.+)$/gm))
      add(
        'Dockerfile ENV',
        [...m[1]!.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=/g)].map((x) => x[1]!),
      );
    for (const doc of k8sOf('ConfigMap')) add(`ConfigMap ${doc.metadata.name}`, Object.keys(doc.data ?? {}));
    for (const doc of k8sOf('Secret'))
      add(`Secret ${doc.metadata.name}`, Object.keys(doc.stringData ?? doc.data ?? {}));
    for (const doc of k8s.filter((d) => d.spec?.template?.spec?.containers))
      for (const c of containersOf(doc))
        add(
          `${doc.kind} ${doc.metadata.name}`,
          (c.env ?? []).map((e: Json) => e.name),
        );
    add('local-topology', FORWARDED_ENV);
    const unknown = named.filter(([, key]) => !APP_ENV.has(key) && !PLATFORM_ENV.has(key));
    expect(unknown).toEqual([]);

    // And the ones a separate process needs are there.
    for (const key of ['DATABASE_URL', 'REDIS_URL', 'PLATFORM_ADMIN_TOKEN'])
      expect(compose['x-env']).toHaveProperty(key);
    const k8sKeys = [
      ...Object.keys(one('ConfigMap', 'agentry-config').data),
      ...Object.keys(one('Secret', 'agentry-secrets').stringData),
    ];
    for (const key of ['DATABASE_URL', 'REDIS_URL', 'PLATFORM_ADMIN_TOKEN', 'HOST']) expect(k8sKeys).toContain(key);
    expect(one('ConfigMap', 'agentry-config').data.HOST).toBe('0.0.0.0');
    for (const doc of k8s.filter((d) => d.spec?.template?.spec?.containers)) {
      for (const c of containersOf(doc)) {
        const refs = (c.envFrom ?? []).map((e: Json) => e.configMapRef?.name ?? e.secretRef?.name);
        expect(refs, `${doc.metadata.name}`).toEqual(['agentry-config', 'agentry-secrets']);
      }
    }
  });

  it('health checks use the paths the API serves: readiness /readyz, liveness /healthz', () => {
    const api = containersOf(one('Deployment', 'agentry-api'))[0]!;
    expect(api.readinessProbe.httpGet.path).toBe('/readyz');
    expect(api.livenessProbe.httpGet.path).toBe('/healthz');
    const probePaths = k8s
      .filter((d) => d.spec?.template?.spec?.containers)
      .flatMap((d) => containersOf(d))
      .flatMap((c) => ['readinessProbe', 'livenessProbe', 'startupProbe'].map((p) => c[p]?.httpGet?.path))
      .filter(Boolean);
    const namedPort = api.ports.find((p: Json) => p.name === api.readinessProbe.httpGet.port);
    expect(String(namedPort.containerPort)).toBe(one('ConfigMap', 'agentry-config').data.PORT);

    const urlPaths = (text: string) => [...text.matchAll(/https?:\/\/[^/'"\s]+(\/[\w-]*)/g)].map((m) => m[1]!);
    const composePaths: string[] = [];
    for (const name of ['api-1', 'api-2']) {
      const service = compose.services[name];
      const test = (service.healthcheck.test as string[]).join(' ');
      expect(urlPaths(test)).toEqual(['/readyz']);
      expect(test).toContain(`:${service.environment.PORT}/`);
      composePaths.push(...urlPaths(test));
    }
    for (const name of ['postgres', 'redis']) expect(compose.services[name].healthcheck.test).toBeTruthy();
    const dockerPaths = urlPaths(dockerExec('HEALTHCHECK').join(' '));
    for (const path of [...probePaths, ...composePaths, ...dockerPaths]) expect(HEALTH_PATHS).toContain(path);
  });

  it('grace periods cover the shutdown deadlines (worker default from apps/worker/src/config.ts)', () => {
    const configured = Number(one('ConfigMap', 'agentry-config').data.SHUTDOWN_DEADLINE_MS ?? 0);
    const workerDeadline = Math.max(WORKER_DEADLINE_MS, configured, Number(compose['x-env'].SHUTDOWN_DEADLINE_MS ?? 0));
    const margin = 5000;
    const worker = podSpec(one('Deployment', 'agentry-worker'));
    expect(worker.terminationGracePeriodSeconds * 1000).toBeGreaterThanOrEqual(workerDeadline + margin);
    expect(durationMs(compose.services.worker.stop_grace_period)).toBeGreaterThanOrEqual(workerDeadline + margin);

    const api = podSpec(one('Deployment', 'agentry-api'));
    const preStop = api.containers[0].lifecycle.preStop;
    const preStopMs = 1000 * Number(preStop.sleep?.seconds ?? preStop.exec?.command?.at(-1));
    expect(preStopMs).toBeGreaterThan(0);
    expect(api.terminationGracePeriodSeconds * 1000).toBeGreaterThanOrEqual(preStopMs + API_DEADLINE_MS + margin);
    for (const name of ['api-1', 'api-2'])
      expect(durationMs(compose.services[name].stop_grace_period)).toBeGreaterThanOrEqual(API_DEADLINE_MS + margin);
  });

  it('compose: Postgres 17 and Redis 7, migrations once before 2 APIs (two ports) and 2 workers', () => {
    const { services } = compose;
    expect(services.postgres.image).toMatch(/^postgres:17/);
    expect(services.redis.image).toMatch(/^redis:7/);
    expect(services.migrate.depends_on.postgres.condition).toBe('service_healthy');
    for (const [name, service] of appServices.filter(([n]) => n !== 'migrate')) {
      expect(service.depends_on.migrate.condition, name).toBe('service_completed_successfully');
      expect(service.depends_on.redis.condition, name).toBe('service_healthy');
      expect(service.environment, name).toMatchObject(compose['x-env']);
    }
    const hostPorts = ['api-1', 'api-2'].map((n) => services[n].ports[0].split(':')[0]);
    expect(new Set(hostPorts).size).toBe(2);
    expect(services.worker.deploy.replicas).toBe(2);
  });

  it('Kubernetes: Service, PDBs and the KEDA rule point at the Deployments; the rule watches the BullMQ wait list', () => {
    const api = one('Deployment', 'agentry-api');
    const worker = one('Deployment', 'agentry-worker');
    const labels = (d: Json) => d.spec.template.metadata.labels;
    const selects = (selector: Json, d: Json) =>
      Object.entries(selector).every(([k, v]) => labels(d)[k] === v) &&
      Object.entries(d.spec.selector.matchLabels).every(([k, v]) => labels(d)[k] === v);
    const service = one('Service', 'agentry-api');
    expect(selects(service.spec.selector, api)).toBe(true);
    expect(selects(service.spec.selector, worker)).toBe(false);
    expect(containersOf(api)[0]!.ports.map((p: Json) => p.name)).toContain(service.spec.ports[0].targetPort);
    expect(selects(one('PodDisruptionBudget', 'agentry-api').spec.selector.matchLabels, api)).toBe(true);
    expect(selects(one('PodDisruptionBudget', 'agentry-worker').spec.selector.matchLabels, worker)).toBe(true);

    const scaler = one('ScaledObject', 'agentry-worker');
    expect(scaler.spec.scaleTargetRef.name).toBe('agentry-worker');
    const trigger = scaler.spec.triggers[0];
    expect(trigger.type).toBe('redis');
    const prefix = one('ConfigMap', 'agentry-config').data.QUEUE_PREFIX;
    expect(trigger.metadata.listName).toBe(`${prefix}:${QUEUE_NAME}:wait`);
    expect(Number(trigger.metadata.listLength)).toBeGreaterThan(0);
    expect(scaler.spec.minReplicaCount).toBeGreaterThanOrEqual(1);
    // Prometheus scrape annotations on both (ports: API PORT, worker METRICS_PORT default 9464).
    expect(api.spec.template.metadata.annotations['prometheus.io/port']).toBe('3000');
    expect(worker.spec.template.metadata.annotations['prometheus.io/port']).toBe('9464');
  });
});

// ---- the compose topology with local processes -------------------------------------------------

const servicesUp = (await Promise.all([canConnect(testServices.postgresUrl), canConnect(testServices.redisUrl)])).every(
  Boolean,
);
if (!servicesUp)
  console.warn(
    `\n[infra tests] NOTICE: no Postgres at ${testServices.postgresUrl} or no Redis at ${testServices.redisUrl}: the local topology test is SKIPPED.\n`,
  );

async function databaseExists(name: string): Promise<boolean> {
  const sql = postgres(testServices.postgresUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql`select 1 from pg_database where datname = ${name}`;
    return rows.length > 0;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

async function redisKeys(prefix: string): Promise<number> {
  const redis = new Redis(testServices.redisUrl);
  try {
    return (await redis.keys(`${prefix}:*`)).length;
  } finally {
    redis.disconnect();
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(!servicesUp)('local topology (2 API + 2 worker processes, Postgres + Redis)', () => {
  it('both APIs are ready and share state; stop() leaves no process, database or Redis key behind', async () => {
    const token = 'infra-test-admin-token-0123456789';
    const topology = await startLocalTopology({
      postgresAdminUrl: testServices.postgresUrl,
      redisUrl: testServices.redisUrl,
      platformAdminToken: token,
    });
    try {
      expect(topology.apiUrls).toHaveLength(2);
      expect(topology.processes.map((p) => p.role).sort()).toEqual(['api', 'api', 'worker', 'worker']);
      for (const url of topology.apiUrls) {
        const res = await fetch(`${url}/readyz`);
        expect(res.status).toBe(200);
        expect(await res.json()).toMatchObject({ status: 'ready', checks: { database: 'ok', queue: 'ok' } });
      }
      const created = await fetch(`${topology.apiUrls[0]}/v1/tenants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Topology' }),
      });
      expect(created.status).toBe(201);
      const key = ((await created.json()) as Json).api_key.key as string;
      const listed = await fetch(`${topology.apiUrls[1]}/v1/agents`, { headers: { authorization: `Bearer ${key}` } });
      expect(listed.status).toBe(200);
      const refused = await fetch(`${topology.apiUrls[1]}/v1/agents`, { headers: { authorization: 'Bearer sk_nope' } });
      expect(refused.status).toBe(401);
      // The workers took their place on the queue (BullMQ wrote its keys under the prefix).
      expect(await redisKeys(topology.queuePrefix)).toBeGreaterThan(0);
      for (const p of topology.processes) expect(alive(p.pid), p.name).toBe(true);
    } finally {
      await topology.stop();
    }
    for (const p of topology.processes) expect(alive(p.pid), p.name).toBe(false);
    expect(await databaseExists(new URL(topology.databaseUrl).pathname.slice(1))).toBe(false);
    expect(await redisKeys(topology.queuePrefix)).toBe(0);
  }, 90_000);

  it('a process that refuses its environment fails the start with its message, and nothing is left behind', async () => {
    const sql = postgres(testServices.postgresUrl, { max: 1, onnotice: () => {} });
    const topologyDatabases = async () =>
      (await sql`select datname from pg_database where datname like 'agentry_topo_%'`).map((r) => r.datname as string);
    try {
      const before = await topologyDatabases();
      await expect(
        startLocalTopology({
          postgresAdminUrl: testServices.postgresUrl,
          redisUrl: testServices.redisUrl,
          env: { WORKER_CONCURRENCY: '0' },
        }),
      ).rejects.toThrow(/WORKER_CONCURRENCY/);
      expect(await topologyDatabases()).toEqual(before);
    } finally {
      await sql.end({ timeout: 5 });
    }
  }, 60_000);
});
