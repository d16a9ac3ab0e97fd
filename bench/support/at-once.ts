/**
 * N conversations started at the same moment on one platform (or any set of processes): how long
 * each took, and how much resident memory the processes grew by while they were open.
 */
import type { BenchResult } from '../run.ts';
import { settledRss } from './platform.ts';
import { rssBytes } from './proc.ts';

const MB = 2 ** 20;

export interface AtOnce<T> {
  ok: T[];
  failed: number;
  firstFailure?: unknown;
  /** Seconds from the first start to the last end. */
  wall: number;
  /** Idle RSS (median of a few readings) and the peak while the conversations ran, per named process, in bytes. */
  rss: Record<string, { idle: number; peak: number }>;
}

/**
 * Runs `one` on every item at once, reading the RSS of `pids` every 100 ms meanwhile.
 *
 * @example
 * const { ok, rss } = await atOnce(ids, (id) => streamRun(p, id, question), { api: p.api, worker: p.worker });
 */
export async function atOnce<I, T>(
  items: I[],
  one: (item: I) => Promise<T>,
  pids: Record<string, number>,
): Promise<AtOnce<T>> {
  const rss: AtOnce<T>['rss'] = {};
  for (const [name, pid] of Object.entries(pids)) {
    const idle = await settledRss(pid);
    rss[name] = { idle, peak: idle };
  }
  const sampler = setInterval(() => {
    for (const [name, pid] of Object.entries(pids)) rss[name]!.peak = Math.max(rss[name]!.peak, rssBytes(pid));
  }, 100);
  const started = performance.now();
  const outcomes = await Promise.allSettled(items.map(one));
  clearInterval(sampler);
  const wall = (performance.now() - started) / 1000;
  const ok = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
  const failed = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult | undefined;
  return { ok, failed: items.length - ok.length, ...(failed ? { firstFailure: failed.reason } : {}), wall, rss };
}

/** "N=…, k completed, all sent at once, wall … s" and the first failure, for a figure's note. */
export function atOnceNote(r: AtOnce<unknown>): string {
  const n = r.ok.length + r.failed;
  const retried = r.ok.filter((t) => ((t as { retried?: number }).retried ?? 0) > 0).length;
  return `N=${n}, ${r.ok.length} completed, all sent at once${retried ? ` (${retried} after a 503 + Retry-After)` : ''}, wall ${r.wall.toFixed(1)} s${
    r.failed ? `; ${r.failed} failed, first: ${String(r.firstFailure).slice(0, 160)}` : ''
  }`;
}

/**
 * Memory per open conversation, (peak RSS − idle RSS) / N, one figure per process read
 * (`label` names the mode; a single process, as in the embedded mode, gets no process name).
 *
 * @example
 * results.push(...memoryPerConversation('(b) API + worker', r));
 */
export function memoryPerConversation(label: string, r: AtOnce<unknown>): BenchResult[] {
  const n = r.ok.length + r.failed;
  const entries = Object.entries(r.rss);
  return entries.map(([name, { idle, peak }]) => ({
    name: `${label}: memory per streaming conversation${entries.length > 1 ? ` in the ${name}` : ''} (peak RSS − idle RSS) / N`,
    unit: 'KiB',
    median: (peak - idle) / n / 1024,
    p99: (peak - idle) / n / 1024,
    note: `N=${n}${entries.length > 1 ? '' : '; one process'}; ${(idle / MB).toFixed(0)} → ${(peak / MB).toFixed(0)} MiB`,
  }));
}
