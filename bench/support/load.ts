/**
 * Closed-loop load for the end-to-end benches: N clients each running one conversation after
 * another for a fixed window, the runs finished inside it bucketed per second.
 */
import { summarize } from '../stats.ts';

/** What a load counts of a run: when it ended (performance.now()). */
export interface Ended {
  end: number;
}

export interface Load<T extends Ended> {
  timings: T[];
  seconds: number;
  /** Runs completed in each whole second of the window. */
  perSecond: number[];
  errors: number;
  firstError?: unknown;
}

/**
 * `clients` closed-loop clients run `one` back to back for `seconds`; `tick` is called every second.
 *
 * @example
 * const loaded = await load(() => streamRun(p, id, question), 32, 15);
 */
export async function load<T extends Ended>(
  one: () => Promise<T>,
  clients: number,
  seconds: number,
  tick?: () => void,
): Promise<Load<T>> {
  const start = performance.now();
  const end = start + seconds * 1000;
  const timings: T[] = [];
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

/** `count` runs one after the other (after a warm-up of a fifth as many), for the unloaded latency. */
export async function sequential<T>(one: () => Promise<T>, count: number): Promise<T[]> {
  for (let i = 0; i < Math.ceil(count / 5); i++) await one();
  const timings: T[] = [];
  for (let i = 0; i < count; i++) timings.push(await one());
  return timings;
}

/** "; N failed runs, first: …" when a load had failures, else "". */
export function errorNote(l: { errors: number; firstError?: unknown }): string {
  return l.errors > 0 ? `; ${l.errors} failed runs, first: ${String(l.firstError).slice(0, 160)}` : '';
}

/**
 * Runs per second of a load: the median and the slowest 1-s bucket, and the mean over the window.
 *
 * @example
 * const { median, slowest, mean } = rate(loaded);
 */
export function rate(l: Load<Ended>): { median: number; slowest: number; mean: number } {
  return {
    median: summarize(l.perSecond).median,
    slowest: Math.min(...l.perSecond),
    mean: l.timings.length / l.seconds,
  };
}
