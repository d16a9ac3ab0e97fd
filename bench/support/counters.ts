/**
 * What one API + worker platform costs over a measured window: CPU time and write system calls of
 * its processes (API, worker, the bench database's Postgres processes, the whole redis-server),
 * Postgres transactions and rows (pg_stat_database), Redis commands (INFO commandstats), and the
 * machine's busy time for context.
 */
import { Redis } from 'ioredis';
import postgres from 'postgres';
import type { Platform } from './platform.ts';
import { postgresAdminUrl, sleep } from './platform.ts';
import { cpuMeter, machineCpuMs, pidsByComm, postgresPids, writeCallMeter } from './proc.ts';

/** Committed transactions and rows written in `database` so far (pg_stat_database). */
async function databaseStats(database: string) {
  const sql = postgres(postgresAdminUrl, { max: 1, onnotice: () => {} });
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

export type Role = 'api' | 'worker' | 'postgres' | 'redis';

/** Totals over one window (not yet per run). */
export interface WindowCounters {
  /** CPU ms per role, and `client`: the processes named as the bench's own (client, fake services). */
  cpu: Record<Role | 'client', number>;
  /** Write system calls per role. */
  writes: Record<Role, number>;
  /** The whole machine's busy and total CPU ms over the window (/proc/stat, all cores). */
  machine: { busy: number; total: number };
  /** pg_stat_database of the bench database. */
  db: { xacts: number; writes: number; reads: number };
  /** Calls per Redis command, largest first (the server is shared: other users' commands count too). */
  redis: Array<[string, number]>;
}

/**
 * Runs `work` (given a `tick` to call every second or so, which keeps the meters' process sets
 * fresh) and counts what API + worker + Postgres + Redis did meanwhile.
 *
 * @example
 * const { result, counters } = await countWindow(platform, [process.pid, services.pid], (tick) => load(one, 32, 15, tick));
 */
export async function countWindow<T>(
  p: Platform,
  clientPids: number[],
  work: (tick: () => void) => Promise<T>,
): Promise<{ result: T; counters: WindowCounters }> {
  const database = p.database!;
  const redis = pidsByComm('redis-server');
  const pids: Record<Role, () => number[]> = {
    api: () => [p.api],
    worker: () => [p.worker],
    postgres: () => postgresPids(database),
    redis: () => redis,
  };
  const roles = Object.keys(pids) as Role[];
  const cpu = Object.fromEntries([
    ...roles.map((r) => [r, cpuMeter(pids[r])]),
    ['client', cpuMeter(() => clientPids)],
  ]) as Record<Role | 'client', ReturnType<typeof cpuMeter>>;
  const writes = Object.fromEntries(roles.map((r) => [r, writeCallMeter(pids[r])])) as Record<
    Role,
    ReturnType<typeof writeCallMeter>
  >;
  const meters = [...Object.values(cpu), ...Object.values(writes)];
  const dbBefore = await databaseStats(database);
  const redisBefore = await redisCommands();
  const machineBefore = machineCpuMs();
  for (const m of meters) m.start();
  const result = await work(() => {
    for (const m of meters) m.poll();
  });
  const used = Object.fromEntries(Object.entries(cpu).map(([k, m]) => [k, m.stop()])) as WindowCounters['cpu'];
  const written = Object.fromEntries(Object.entries(writes).map(([k, m]) => [k, m.stop()])) as WindowCounters['writes'];
  const machineAfter = machineCpuMs();
  const redisAfter = await redisCommands();
  await sleep(1500); // Postgres publishes its statistics about once a second
  const dbAfter = await databaseStats(database);
  const commands = [...redisAfter]
    .map(([name, calls]) => [name, calls - (redisBefore.get(name) ?? 0)] as [string, number])
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1]);
  return {
    result,
    counters: {
      cpu: used,
      writes: written,
      machine: { busy: machineAfter.busy - machineBefore.busy, total: machineAfter.total - machineBefore.total },
      db: {
        xacts: dbAfter.xacts - dbBefore.xacts,
        writes: dbAfter.writes - dbBefore.writes,
        reads: dbAfter.reads - dbBefore.reads,
      },
      redis: commands,
    },
  };
}

/** "name n.n, …" of the `top` most called Redis commands, per run. */
export function topCommands(counters: WindowCounters, runs: number, top = 8): string {
  return counters.redis
    .slice(0, top)
    .map(([name, n]) => `${name} ${(n / runs).toFixed(1)}`)
    .join(', ');
}
