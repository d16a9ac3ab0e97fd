import { type Env, envInt } from '@agentry/env';

/** How the webhook dispatcher sends and retries (one set per process). */
export interface WebhookSettings {
  /** Attempts per delivery before it is `failed` (the first send included). */
  maxAttempts: number;
  /** Delay before the 2nd attempt; it doubles per attempt (± jitter) up to `backoffMaxMs`. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** One attempt, connection to the end of the (capped) response. */
  timeoutMs: number;
  /** How often an idle dispatcher looks for due deliveries. */
  pollMs: number;
  /** Deliveries claimed (and sent concurrently) per round. */
  batchSize: number;
}

export const defaultWebhookSettings: WebhookSettings = {
  maxAttempts: 8,
  backoffBaseMs: 30_000,
  backoffMaxMs: 3_600_000,
  timeoutMs: 15_000,
  pollMs: 1000,
  batchSize: 20,
};

/**
 * `WEBHOOK_MAX_ATTEMPTS`, `WEBHOOK_BACKOFF_BASE_MS`, `WEBHOOK_BACKOFF_MAX_MS`, `WEBHOOK_TIMEOUT_MS`,
 * `WEBHOOK_POLL_MS`, `WEBHOOK_BATCH_SIZE`; throws `EnvError` naming a bad one.
 *
 * @example
 * const settings = webhookSettingsFromEnv(process.env);
 */
export function webhookSettingsFromEnv(env: Env): WebhookSettings {
  const d = defaultWebhookSettings;
  const backoffBaseMs = envInt(env, 'WEBHOOK_BACKOFF_BASE_MS', d.backoffBaseMs, [1, 86_400_000]);
  return {
    maxAttempts: envInt(env, 'WEBHOOK_MAX_ATTEMPTS', d.maxAttempts, [1, 100]),
    backoffBaseMs,
    backoffMaxMs: Math.max(backoffBaseMs, envInt(env, 'WEBHOOK_BACKOFF_MAX_MS', d.backoffMaxMs, [1, 604_800_000])),
    timeoutMs: envInt(env, 'WEBHOOK_TIMEOUT_MS', d.timeoutMs, [100, 120_000]),
    pollMs: envInt(env, 'WEBHOOK_POLL_MS', d.pollMs, [10, 60_000]),
    batchSize: envInt(env, 'WEBHOOK_BATCH_SIZE', d.batchSize, [1, 500]),
  };
}
