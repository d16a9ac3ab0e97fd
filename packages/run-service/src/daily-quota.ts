import { type Db, type Tenant, tenantUsageSince } from '@agentry/db';
import { errors } from '@agentry/errors';

/**
 * Refuses a new run once the tenant has used its daily runs or tokens (UTC day): 429
 * `quota_exceeded` with Retry-After until midnight UTC. No limits set: no read.
 *
 * @example
 * await assertDailyQuota(tx, tenant);
 */
export async function assertDailyQuota(db: Db, tenant: Tenant, now = new Date()): Promise<void> {
  if (tenant.dailyRunLimit === null && tenant.dailyTokenLimit === null) return;
  const midnight = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const used = await tenantUsageSince(db, tenant.id, midnight);
  const over =
    tenant.dailyRunLimit !== null && used.runs >= tenant.dailyRunLimit
      ? `its ${tenant.dailyRunLimit} runs`
      : tenant.dailyTokenLimit !== null && used.tokens >= tenant.dailyTokenLimit
        ? `its ${tenant.dailyTokenLimit} tokens`
        : undefined;
  if (!over) return;
  throw errors.of({
    code: 'quota_exceeded',
    message: `The tenant has used ${over} for today (UTC); the quota resets at midnight UTC`,
    category: 'user',
    retryable: true,
    retryAfterMs: midnight.getTime() + 86_400_000 - now.getTime(),
    details: { runs_today: used.runs, tokens_today: used.tokens },
  });
}
