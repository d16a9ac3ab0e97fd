import { Gauge, type Registry } from 'prom-client';
import type { AgentryMetrics } from './metrics.ts';

/** What a run event bus reports (the Redis bus's `stats()` has this shape). */
export interface RunEventStats {
  /** Open subscriptions. */
  subscriptions: number;
  /** Of these, the ones fed by the shared blocking read (the others replay or catch up). */
  following: number;
  /** Run streams in the shared blocking reads. */
  streams: number;
  /** Blocking reader connections open. */
  readerConnections: number;
}

export interface RunEventStatsSource {
  stats(): RunEventStats;
}

interface Tracked {
  sources: Set<RunEventStatsSource>;
}

const created = new WeakMap<Registry, Tracked>();

/**
 * Samples a bus's figures on every scrape, as `agentry_run_event_subscriptions{state}` (`following`
 * the shared read, or `catching_up`: replaying history or lagging), `agentry_run_event_streams` and
 * `agentry_run_event_reader_connections`. Returns the function that stops it.
 *
 * @example
 * const untrack = trackRunEvents(processMetrics(), bus);
 */
export function trackRunEvents(metrics: AgentryMetrics, source: RunEventStatsSource): () => void {
  const tracked = created.get(metrics.registry) ?? register(metrics.registry);
  tracked.sources.add(source);
  return () => {
    tracked.sources.delete(source);
  };
}

function register(registry: Registry): Tracked {
  const tracked: Tracked = { sources: new Set() };
  created.set(registry, tracked);
  const total = () => {
    const sum: RunEventStats = { subscriptions: 0, following: 0, streams: 0, readerConnections: 0 };
    for (const source of tracked.sources) {
      const stats = source.stats();
      sum.subscriptions += stats.subscriptions;
      sum.following += stats.following;
      sum.streams += stats.streams;
      sum.readerConnections += stats.readerConnections;
    }
    return sum;
  };
  const registers = [registry];
  new Gauge({
    name: 'agentry_run_event_subscriptions',
    help: 'Open run event subscriptions (SSE relays), by state: following the shared read, or catching_up',
    labelNames: ['state'] as const,
    registers,
    collect() {
      const sum = total();
      this.set({ state: 'following' }, sum.following);
      this.set({ state: 'catching_up' }, Math.max(0, sum.subscriptions - sum.following));
    },
  });
  new Gauge({
    name: 'agentry_run_event_streams',
    help: 'Run event streams in the shared blocking reads',
    registers,
    collect() {
      this.set(total().streams);
    },
  });
  new Gauge({
    name: 'agentry_run_event_reader_connections',
    help: 'Blocking Redis connections reading run events for every subscriber of the process',
    registers,
    collect() {
      this.set(total().readerConnections);
    },
  });
  return tracked;
}
