import { Counter, Histogram, type Registry } from 'prom-client';
import type { AgentryMetrics } from './metrics.ts';

/** Webhook delivery instruments; labels are bounded (`outcome`), never a tenant, URL or id. */
export interface WebhookMetrics {
  /** Attempts by outcome: `delivered`, `retry` (will be sent again), `failed` (given up). */
  readonly attempts: Counter<'outcome'>;
  /** One attempt: request sent → answer (or error), by outcome. */
  readonly attemptDuration: Histogram<'outcome'>;
  /** Event recorded (run status committed) → delivered, retries included. */
  readonly deliveryLatency: Histogram<never>;
}

const created = new WeakMap<Registry, WebhookMetrics>();

/**
 * The webhook instruments in a process's registry (created once per registry, so the embedded
 * process and tests can ask again).
 *
 * @example
 * webhookMetrics(processMetrics()).attempts.inc({ outcome: 'delivered' });
 */
export function webhookMetrics(metrics: AgentryMetrics): WebhookMetrics {
  const existing = created.get(metrics.registry);
  if (existing) return existing;
  const registers = [metrics.registry];
  const instruments: WebhookMetrics = {
    attempts: new Counter({
      name: 'agentry_webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome (delivered, retry, failed)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    attemptDuration: new Histogram({
      name: 'agentry_webhook_attempt_duration_seconds',
      help: 'One webhook delivery attempt, from sending to the answer or error, by outcome',
      labelNames: ['outcome'] as const,
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    deliveryLatency: new Histogram({
      name: 'agentry_webhook_delivery_latency_seconds',
      help: 'From the run event being recorded to its webhook being delivered (retries included)',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 14_400],
      registers,
    }),
  };
  created.set(metrics.registry, instruments);
  return instruments;
}
