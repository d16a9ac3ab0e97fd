import { fillWebhookHeaders, webhookHeaderSecrets } from '@agentry/config';
import {
  claimDueDeliveries,
  type Db,
  type DeliveryAttemptResult,
  getTenant,
  recordDeliveryAttempt,
  type WebhookDelivery,
} from '@agentry/db';
import {
  createEgressPolicy,
  type EgressPolicy,
  egressFetch,
  mergeAllowlists,
  readBoundedText,
  strictEgressPolicy,
} from '@agentry/http-tools';
import { type AgentryMetrics, webhookMetrics } from '@agentry/telemetry';
import { ERROR_BODY_BYTES, errorOutcome, responseOutcome } from './attempt-outcome.ts';
import { defaultWebhookSettings, type WebhookSettings } from './settings.ts';
import { signatureHeaders } from './signature.ts';

export interface WebhookDispatcherOptions {
  db: Db;
  /**
   * Opens a tenant's named secrets (the signing secret and those its headers name): the runner's
   * `openSecrets` over the process's secret box. It throws `missing_secret` or
   * `secrets_not_configured` (no box), and the delivery records that error. Passed in, so that this
   * package knows nothing of where tenant secrets are kept.
   */
  openSecrets: (tenantId: string, names: string[]) => Promise<Record<string, string>>;
  /** The platform's egress rules (its allowlist is merged with each tenant's). Default: public only. */
  egress?: EgressPolicy;
  settings?: Partial<WebhookSettings>;
  /** How long a claim holds a delivery; default twice the attempt timeout plus 30 s. */
  leaseMs?: number;
  metrics?: AgentryMetrics;
  log?: (level: 'info' | 'warn' | 'error', message: string, fields: Record<string, unknown>) => void;
}

export interface WebhookDispatcher {
  /** One round: claims the due deliveries and sends them; resolves with how many it claimed. */
  runOnce(): Promise<number>;
  /** Polls every `pollMs` (at once again after a full batch) until {@link WebhookDispatcher.stop}. */
  start(): void;
  /** Stops claiming and waits up to `deadlineMs` for attempts in flight (the rest is retried after its lease). */
  stop(deadlineMs?: number): Promise<void>;
}

/** A refusing receiver's answer is read this far; the rest is dropped unread. */
const RESPONSE_CAP_BYTES = 64 * 1024;
const USER_AGENT = 'Agentry-Webhooks/1.0';

/**
 * The webhook dispatcher: sends the outbox rows that run status changes wrote
 * (`recordRunWebhooks`), at least once, signed per Standard Webhooks, through the egress guard (the
 * platform's and the tenant's allowlists, no redirects, capped time and size). Retries network
 * errors, timeouts, 408, 429 and 5xx with exponential backoff and jitter (honouring `Retry-After`)
 * up to `maxAttempts`; other answers fail at once. Several dispatchers (one per worker) share the
 * work through `FOR UPDATE SKIP LOCKED` claims with a lease: a dispatcher that dies mid-attempt
 * leaves its delivery to another once the lease ends.
 *
 * @example
 * const dispatcher = createWebhookDispatcher({
 *   db,
 *   openSecrets: (tenantId, names) => openSecrets(db, secretBox, tenantId, names),
 *   egress,
 *   settings: webhookSettingsFromEnv(env),
 * });
 * dispatcher.start();
 * await dispatcher.stop(5000);
 */
export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const settings: WebhookSettings = { ...defaultWebhookSettings, ...options.settings };
  const leaseMs = options.leaseMs ?? settings.timeoutMs * 2 + 30_000;
  const base = options.egress ?? strictEgressPolicy;
  const metrics = options.metrics ? webhookMetrics(options.metrics) : undefined;
  const log = options.log ?? (() => {});
  const inFlight = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let stopped = false;

  async function runOnce(): Promise<number> {
    const claimed = await claimDueDeliveries(options.db, { limit: settings.batchSize, leaseMs });
    await Promise.all(claimed.map((delivery) => deliver(delivery)));
    return claimed.length;
  }

  /** Rounds started by the poller, so `stop` can wait for their attempts. */
  function tracked<T>(work: Promise<T>): Promise<T> {
    const settled = work.then(
      () => {},
      () => {},
    );
    inFlight.add(settled);
    void settled.finally(() => inFlight.delete(settled));
    return work;
  }

  async function deliver(delivery: WebhookDelivery): Promise<void> {
    const fields = {
      deliveryId: delivery.id,
      tenantId: delivery.tenantId,
      runId: delivery.runId,
      attempt: delivery.attempts,
    };
    const started = performance.now();
    let result: DeliveryAttemptResult;
    if (delivery.attempts > settings.maxAttempts) {
      // Claimed again after its lease ended on the last allowed attempt: that attempt's outcome is unknown.
      result = {
        outcome: 'failed',
        error: {
          code: 'webhook_attempts_exhausted',
          message: `No answer was recorded after ${settings.maxAttempts} attempts`,
        },
      };
    } else {
      try {
        result = await attempt(delivery);
      } catch (error) {
        result = errorOutcome(error, delivery.attempts, settings);
      }
    }
    const seconds = (performance.now() - started) / 1000;
    let written = false;
    try {
      written = await recordDeliveryAttempt(options.db, delivery, result);
    } catch (error) {
      log('error', 'webhook attempt result not recorded; retried after its lease', { ...fields, error: String(error) });
    }
    if (!written) return; // another dispatcher took over after our lease ended: its result counts
    metrics?.attempts.inc({ outcome: result.outcome });
    metrics?.attemptDuration.observe({ outcome: result.outcome }, seconds);
    if (result.outcome === 'delivered') {
      metrics?.deliveryLatency.observe((Date.now() - delivery.createdAt.getTime()) / 1000);
    } else {
      log(
        result.outcome === 'failed' ? 'warn' : 'info',
        `webhook attempt ${result.outcome === 'failed' ? 'failed' : 'will be retried'}`,
        {
          ...fields,
          code: result.error.code,
          ...(result.statusCode ? { statusCode: result.statusCode } : {}),
        },
      );
    }
  }

  async function attempt(delivery: WebhookDelivery): Promise<DeliveryAttemptResult> {
    const tenant = await getTenant(options.db, delivery.tenantId);
    const names = [...new Set([delivery.signingSecret, ...webhookHeaderSecrets(delivery.headers)])];
    const secrets = await options.openSecrets(delivery.tenantId, names);
    const body = JSON.stringify(delivery.payload);
    const headers = {
      ...fillWebhookHeaders(delivery.headers, secrets),
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      ...signatureHeaders(secrets[delivery.signingSecret]!, delivery.id, new Date(), body),
    };
    const policy = createEgressPolicy({
      allowlist: mergeAllowlists(base.allowlist, tenant?.egressAllowlist),
      maxRedirects: 0,
      maxResponseBytes: RESPONSE_CAP_BYTES,
      timeoutMs: settings.timeoutMs,
      lookup: base.lookup,
    });
    const response = await egressFetch({ method: 'POST', url: delivery.url, headers, body }, { policy });
    const ok = response.status >= 200 && response.status < 300;
    const snippet = ok ? '' : (await readBoundedText(response, ERROR_BODY_BYTES).catch(() => ({ text: '' }))).text;
    if (ok) await response.body?.cancel().catch(() => {});
    return responseOutcome(response.status, response.headers.get('retry-after'), snippet, delivery.attempts, settings);
  }

  function schedule(delayMs: number): void {
    if (stopped) return;
    timer = setTimeout(tick, delayMs);
    timer.unref();
  }

  function tick(): void {
    if (running || stopped) return;
    running = true;
    tracked(runOnce())
      .then((claimed) => schedule(claimed >= settings.batchSize ? 0 : settings.pollMs))
      .catch((error: unknown) => {
        log('warn', 'webhook dispatch round failed', { error: String(error) });
        schedule(settings.pollMs);
      })
      .finally(() => {
        running = false;
      });
  }

  return {
    runOnce,
    start() {
      stopped = false;
      schedule(0);
    },
    async stop(deadlineMs = 5000) {
      stopped = true;
      clearTimeout(timer);
      const deadline = new Promise<void>((resolve) => setTimeout(resolve, deadlineMs).unref());
      await Promise.race([Promise.all([...inFlight]).then(() => {}), deadline]);
    },
  };
}
