/**
 * The faults the chaos suite injects, one after another while the load runs, and the injector
 * that spaces them. Killed processes are started again after a second, as a supervisor would.
 *
 * @example
 * const log = await injectFaults(FAULTS, ctx, { gapMs: 4000, untilMs });
 */
import type { ChildProcess } from 'node:child_process';
import { type PrivatePostgres, startPrivateRedis, stopPrivateRedis } from '@agentry/testkit';
import type { Supervisor } from './processes.ts';

export interface FaultContext {
  sup: Supervisor;
  pg: PrivatePostgres;
  redis: PrivateRedisHandle;
  /** How long the outage faults keep a server down. */
  outageMs: number;
}

/** A private redis-server that can be killed and started again on its port. */
export interface PrivateRedisHandle {
  readonly port: number;
  kill(): Promise<void>;
  start(): Promise<void>;
  /** SIGKILL now, synchronously (for an exit handler). */
  killNow(): void;
}

export function redisHandle(port: number, first: ChildProcess): PrivateRedisHandle {
  let child: ChildProcess | undefined = first;
  return {
    port,
    async kill() {
      if (child) await stopPrivateRedis(child);
      child = undefined;
    },
    async start() {
      child ??= await startPrivateRedis(port);
    },
    killNow() {
      child?.kill('SIGKILL');
    },
  };
}

export interface Fault {
  name: string;
  inject(ctx: FaultContext): Promise<void>;
}

/** What happened when a fault was injected (its window, for attributing violations). */
export interface FaultRecord {
  name: string;
  startedAt: number;
  endedAt: number;
  error?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How long a supervisor waits before starting a killed process again. */
const RESTART_DELAY_MS = 1000;

async function killAndRestart(sup: Supervisor, names: string[], signal: NodeJS.Signals): Promise<void> {
  await Promise.all(names.map((name) => sup.kill(name, signal)));
  await sleep(RESTART_DELAY_MS);
  await Promise.all(names.map((name) => sup.restart(name)));
}

/** The list, in its order. */
export const FAULTS: Fault[] = [
  { name: 'kill -9 worker', inject: ({ sup }) => killAndRestart(sup, ['worker-1'], 'SIGKILL') },
  { name: 'kill -9 both workers', inject: ({ sup }) => killAndRestart(sup, ['worker-1', 'worker-2'], 'SIGKILL') },
  { name: 'kill -9 api', inject: ({ sup }) => killAndRestart(sup, ['api'], 'SIGKILL') },
  { name: 'SIGTERM worker', inject: ({ sup }) => killAndRestart(sup, ['worker-2'], 'SIGTERM') },
  {
    name: 'redis restart',
    inject: async ({ redis }) => {
      await redis.kill();
      await redis.start();
    },
  },
  {
    name: 'redis outage',
    inject: async ({ redis, outageMs }) => {
      await redis.kill();
      await sleep(outageMs);
      await redis.start();
    },
  },
  { name: 'postgres restart -m fast', inject: ({ pg }) => pg.restart('fast') },
  { name: 'postgres restart -m immediate', inject: ({ pg }) => pg.restart('immediate') },
  {
    name: 'postgres outage',
    inject: async ({ pg, outageMs }) => {
      await pg.stop('fast');
      await sleep(outageMs);
      await pg.start();
    },
  },
];

/**
 * Injects every fault once, in order, `gapMs` apart, then keeps cycling through the list while
 * time is left before `untilMs` (the long form). A fault that fails to inject is recorded, and
 * the servers are brought back so the next one starts from a running platform.
 */
export async function injectFaults(
  faults: Fault[],
  ctx: FaultContext,
  options: { gapMs: number; untilMs: number; onFault?: (record: FaultRecord) => void },
): Promise<FaultRecord[]> {
  const done: FaultRecord[] = [];
  for (let i = 0; i < faults.length * 1000; i++) {
    if (i >= faults.length && Date.now() > options.untilMs) break;
    const fault = faults[i % faults.length]!;
    const record: FaultRecord = { name: fault.name, startedAt: Date.now(), endedAt: 0 };
    try {
      await fault.inject(ctx);
    } catch (error) {
      record.error = String(error).slice(0, 300);
      await ctx.redis.start().catch(() => {});
      await ctx.pg.start().catch(() => {});
    }
    record.endedAt = Date.now();
    done.push(record);
    options.onFault?.(record);
    await sleep(options.gapMs);
  }
  return done;
}
