import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** Job counts of a queue, sampled when `/metrics` is scraped. */
export interface QueueCounts {
  waiting: number;
  active: number;
  delayed: number;
}

/** Anything that can report its job counts (both `JobQueue` implementations can). */
export interface QueueCountSource {
  counts(): Promise<QueueCounts>;
}

/**
 * Every Prometheus instrument of a process, in one registry (with the default Node.js metrics).
 * Labels are bounded sets only: provider, status, kind, error code, route pattern. Never a tenant
 * id, run id or raw path.
 */
export interface AgentryMetrics {
  readonly registry: Registry;
  /** `waiting` / `active` / `delayed` jobs, sampled from the tracked queues on each scrape. */
  readonly queueJobs: Gauge<'state'>;
  /** Run created (enqueued) → its first attempt started. */
  readonly queueWait: Histogram<never>;
  /** Run started → finished, by provider and final status. */
  readonly runDuration: Histogram<'provider' | 'status'>;
  /** One loop step (model call, its tools, checkpoint), by provider and finish reason. */
  readonly stepDuration: Histogram<'provider' | 'finish_reason'>;
  readonly modelCallDuration: Histogram<'provider'>;
  /** Tool call latency, `outcome` is `ok` or `error`. */
  readonly toolCallDuration: Histogram<'outcome'>;
  readonly toolErrors: Counter<'error_code'>;
  /** Flow turns' steps by `action` (started, step, slot, reask, ended, exited, failed, handoff). */
  readonly flowEvents: Counter<'action'>;
  /** Tokens by `kind`: input, output, cache_read, cache_write. */
  readonly tokens: Counter<'kind' | 'provider'>;
  readonly runsFinished: Counter<'status'>;
  readonly sseActiveStreams: Gauge<never>;
  readonly httpRequestDuration: Histogram<'method' | 'route' | 'status'>;
  /** Samples this queue's depth on every scrape; returns the function that stops it. */
  trackQueue(source: QueueCountSource): () => void;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const LONG_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];

/**
 * Creates the instruments in a fresh registry. Processes use `processMetrics()`; tests may create
 * their own.
 *
 * @example
 * const metrics = createMetrics();
 * metrics.runsFinished.inc({ status: 'completed' });
 * const text = await metrics.registry.metrics();
 */
export function createMetrics(options: { defaultMetrics?: boolean } = {}): AgentryMetrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const sources = new Set<QueueCountSource>();

  const queueJobs = new Gauge({
    name: 'agentry_queue_jobs',
    help: 'Run jobs in the queue by state (sampled on scrape)',
    labelNames: ['state'] as const,
    registers,
    async collect() {
      const totals: QueueCounts = { waiting: 0, active: 0, delayed: 0 };
      const all = await Promise.allSettled([...sources].map((s) => s.counts()));
      this.reset();
      if (sources.size === 0) return;
      for (const result of all) {
        if (result.status !== 'fulfilled') return; // a queue that cannot answer reports nothing
        totals.waiting += result.value.waiting;
        totals.active += result.value.active;
        totals.delayed += result.value.delayed;
      }
      for (const [state, value] of Object.entries(totals)) this.set({ state }, value);
    },
  });

  return {
    registry,
    queueJobs,
    queueWait: new Histogram({
      name: 'agentry_queue_wait_seconds',
      help: 'Time from a run being enqueued to its first attempt starting',
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    runDuration: new Histogram({
      name: 'agentry_run_duration_seconds',
      help: 'Run duration from its start to its final status',
      labelNames: ['provider', 'status'] as const,
      buckets: LONG_BUCKETS,
      registers,
    }),
    stepDuration: new Histogram({
      name: 'agentry_step_duration_seconds',
      help: 'One agent loop step: model call, its tool calls and the checkpoint',
      labelNames: ['provider', 'finish_reason'] as const,
      buckets: LONG_BUCKETS,
      registers,
    }),
    modelCallDuration: new Histogram({
      name: 'agentry_model_call_duration_seconds',
      help: 'Model call latency, from the request to the finish event',
      labelNames: ['provider'] as const,
      buckets: LONG_BUCKETS,
      registers,
    }),
    toolCallDuration: new Histogram({
      name: 'agentry_tool_call_duration_seconds',
      help: 'Tool call latency by outcome (ok or error)',
      labelNames: ['outcome'] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    toolErrors: new Counter({
      name: 'agentry_tool_errors_total',
      help: 'Tool calls that ended in an error, by error code',
      labelNames: ['error_code'] as const,
      registers,
    }),
    flowEvents: new Counter({
      name: 'agentry_flow_events_total',
      help: 'What flows did, by action: started, step, slot, reask, ended, exited, failed, handoff',
      labelNames: ['action'] as const,
      registers,
    }),
    tokens: new Counter({
      name: 'agentry_tokens_total',
      help: 'Model tokens by kind (input, output, cache_read, cache_write) and provider',
      labelNames: ['kind', 'provider'] as const,
      registers,
    }),
    runsFinished: new Counter({
      name: 'agentry_runs_finished_total',
      help: 'Runs that reached a final status',
      labelNames: ['status'] as const,
      registers,
    }),
    sseActiveStreams: new Gauge({
      name: 'agentry_sse_active_streams',
      help: 'Server-Sent Event streams currently open',
      registers,
    }),
    httpRequestDuration: new Histogram({
      name: 'agentry_http_request_duration_seconds',
      help: 'HTTP request duration by method, matched route pattern and status',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    trackQueue(source) {
      sources.add(source);
      return () => {
        sources.delete(source);
      };
    },
  };
}

let shared: AgentryMetrics | undefined;

/**
 * The process's one set of metrics (created on first use), served by its `/metrics`.
 *
 * @example
 * processMetrics().sseActiveStreams.inc();
 */
export function processMetrics(): AgentryMetrics {
  shared ??= createMetrics();
  return shared;
}
