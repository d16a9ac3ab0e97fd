import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  canStartPrivatePostgres,
  freePort,
  type PrivatePostgres,
  postgresBinDir,
  startPrivatePostgres,
  startPrivateRedis,
  stopPrivateRedis,
} from '@agentry/testkit';
import { sql as raw } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import { Redis } from 'ioredis';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toAppError } from './app-error.ts';
import { classifyInfrastructureError } from './infrastructure-errors.ts';

// The errors real drivers throw while a private server is down or restarting (the shared servers
// are never touched), each as it arrives and through drizzle's wrapper.

const canPostgres = canStartPrivatePostgres();
if (!canPostgres) console.warn('[infrastructure-errors] NOTICE: initdb not installed: Postgres driver tests SKIPPED.');
const canRedis = hasProgram('redis-server');
if (!canRedis) console.warn('[infrastructure-errors] NOTICE: redis-server not installed: Redis driver tests SKIPPED.');

function hasProgram(name: string): boolean {
  try {
    execFileSync('which', [name], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The rejection of `promise` (fails the test when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

function expectDatabaseFault(error: unknown): void {
  expect(classifyInfrastructureError(error), String(error)).toBe('database');
  expect(toAppError(error)).toMatchObject({ code: 'database_unavailable', status: 503, isRetryable: true });
}

describe.skipIf(!canPostgres)('real postgres-js errors of a private Postgres', () => {
  let pg: PrivatePostgres;
  beforeAll(async () => {
    pg = await startPrivatePostgres(await freePort());
  });
  afterAll(() => pg?.destroy());

  for (const mode of ['fast', 'immediate'] as const) {
    it(`a stop -m ${mode}: the query in flight, later queries and drizzle's wrapped ones are database faults`, async () => {
      const client = postgres(pg.url, { max: 2, connect_timeout: 2, onnotice: () => {} });
      const db = drizzle(client);
      await client`select 1`;
      const inFlight = rejection(client`select pg_sleep(30)`);
      await new Promise((r) => setTimeout(r, 200)); // the sleep has reached the server
      await pg.stop(mode);
      expectDatabaseFault(await inFlight);
      expectDatabaseFault(await rejection(client`select 1`));
      expectDatabaseFault(await rejection(db.execute(raw`select 1`)));
      await client.end({ timeout: 1 });
      await pg.start();
    }, 60_000);
  }

  it('a reserved connection whose server went away fails its next statements (no hang, no crash)', async () => {
    const client = postgres(pg.url, { max: 1, connect_timeout: 2, onnotice: () => {} });
    await client`select 1`;
    // pg_ctl runs synchronously: the pool learns of the close only after the reserve below.
    await pg.stop('fast');
    const reserved = await client.reserve();
    expectDatabaseFault(await rejection(reserved`select 1`));
    // On a socket already closed: upstream postgres-js threw from setImmediate (the process
    // ended) and our first patch left it waiting forever; patches/postgres@3.4.9.patch rejects it.
    expectDatabaseFault(await rejection(reserved`select 2`));
    reserved.release();
    await pg.start();
    // The released connection is still the dead one: its first use fails (CONNECTION_CLOSED) and
    // sends it back to be reconnected; the retry then connects afresh, without the old server's
    // 57P01 (which the patch no longer carries over to the next connection).
    const rows = await client`select 3 as v`.catch(() => client`select 3 as v`);
    expect(rows[0]?.v).toBe(3);
    await client.end({ timeout: 1 });
  }, 60_000);

  it('a server not yet accepting connections (57P03) is a database fault, before and through drizzle', async () => {
    // A standby without hot standby answers 57P03 to every connection until promoted: the
    // "starting up" refusal held open, instead of a window too short to hit reliably.
    await pg.stop('fast');
    writeFileSync(join(pg.dataDir, 'standby.signal'), '');
    await pgCtl(pg, [
      '-o',
      `${serverOptions(pg)} -c hot_standby=off`,
      '-l',
      join(pg.dataDir, 'server.log'),
      '-W',
      'start',
    ]);
    const seen = new Set<string>();
    const until = Date.now() + 30_000;
    while (!seen.has('57P03') && Date.now() < until) {
      const client = postgres(pg.url, { max: 1, connect_timeout: 2, onnotice: () => {} });
      const error = await rejection(drizzle(client).execute(raw`select 1`));
      expectDatabaseFault(error);
      seen.add(codeOf(error));
      await client.end({ timeout: 1 });
      if (!seen.has('57P03')) await new Promise((r) => setTimeout(r, 100));
    }
    expect([...seen]).toContain('57P03');
    await pgCtl(pg, ['-W', 'promote']);
  }, 60_000);
});

function serverOptions(pg: PrivatePostgres): string {
  return `-p ${pg.port} -c listen_addresses='127.0.0.1' -c unix_socket_directories='${pg.dataDir}' -c fsync=off`;
}

/** `pg_ctl` on the private server, as the postgres user when we are root (Postgres refuses root). */
function pgCtl(pg: PrivatePostgres, args: string[]): Promise<void> {
  const all = [join(postgresBinDir() ?? '', 'pg_ctl'), '-D', pg.dataDir, ...args];
  const root = process.getuid?.() === 0;
  const child = root ? spawn('runuser', ['-u', 'postgres', '--', ...all]) : spawn(all[0] ?? '', all.slice(1));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`pg_ctl ${args.at(-1)} exited ${code}`))));
  });
}

/** The first code along the cause chain (drizzle's wrapper has none). */
function codeOf(error: unknown): string {
  let value: unknown = error;
  for (let i = 0; i < 5 && value instanceof Error; i++) {
    if ('code' in value && typeof value.code === 'string') return value.code;
    value = value.cause;
  }
  return String(error);
}

describe.skipIf(!canRedis)('real ioredis errors of a private Redis', () => {
  let server: ChildProcess;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    server = await startPrivateRedis(port);
  });
  afterAll(() => stopPrivateRedis(server));

  it('a killed Redis: commands of clients set up as ours (and as BullMQ producers) are queue faults', async () => {
    // As BullMQ's producer connection in packages/queue, and as a default client with a small retry budget.
    const offline = new Redis({ port, enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
    const retrying = new Redis({ port, maxRetriesPerRequest: 1, retryStrategy: () => 50, lazyConnect: true });
    const failing = new Redis({ port, maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true });
    for (const client of [offline, retrying, failing]) {
      client.on('error', () => {});
      await client.connect();
      await client.ping();
    }
    await stopPrivateRedis(server);
    const errors = await Promise.all([
      rejection(offline.ping()),
      rejection(retrying.ping()),
      rejection(failing.ping()),
    ]);
    for (const error of errors) {
      expect(classifyInfrastructureError(error), String(error)).toBe('queue');
      expect(toAppError(error)).toMatchObject({ code: 'queue_unavailable', status: 503, isRetryable: true });
    }
    // A client that connects to a Redis that is not there gets the socket's own error.
    const refused = new Redis({ port, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    refused.on('error', () => {});
    const error = await rejection(refused.connect());
    expect(toAppError(error)).toMatchObject({ status: 503, isRetryable: true });
    for (const client of [offline, retrying, failing, refused]) client.disconnect();
    server = await startPrivateRedis(port);
  }, 30_000);
});
