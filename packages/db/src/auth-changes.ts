/**
 * Committed changes to API keys and tenants, as they happen. Migration `0011_auth_change_notify`
 * puts triggers on `api_keys` and `tenants` that `pg_notify` {@link AUTH_CHANGES_CHANNEL} with the
 * tenant's id on every insert, delete and update (except an update of `last_used_at` alone), and an
 * empty payload on a truncate. Whoever writes (API, CLI, plain SQL) is covered; a rollback notifies
 * nobody. Processes that cache key lookups listen here to drop what a change made stale.
 */
import { randomUUID } from 'node:crypto';
import { errors } from '@agentry/errors';
import { sql } from 'drizzle-orm';
import type { Database } from './database.ts';
import { isId } from './ids.ts';

export const AUTH_CHANGES_CHANNEL = 'agentry_auth_changed';

/** Payloads of start-up probes (every listener hears every probe; each waits for its own). */
const PROBE_PREFIX = 'probe:';

export interface AuthChangeHandlers {
  /** A key of this tenant, or the tenant itself, changed (committed). */
  changed(tenantId: string): void;
  /** Anything may have changed: listening resumed after a drop, or a table was truncated. */
  reset(): void;
  /** Changes may go unnoticed from now until `reset` (the listening connection dropped). */
  lost?(): void;
}

/**
 * Listens for auth changes on either driver until the returned function is called. Resolves once
 * listening and once a probe it sent itself came back, so notifications are known to reach this
 * process (they do not through PgBouncer in transaction mode: it rejects then, with
 * `auth_notifications_unavailable`). Nothing committed after that is missed, short of a `lost`.
 *
 * @example
 * const stop = await listenForAuthChanges(database, {
 *   changed: (tenantId) => cache.invalidateTenant(tenantId),
 *   reset: () => cache.resume(),
 *   lost: () => cache.suspend(),
 * });
 * await stop();
 */
export async function listenForAuthChanges(
  database: Database,
  handlers: AuthChangeHandlers,
  options: { probeTimeoutMs?: number } = {},
): Promise<() => Promise<void>> {
  const probe = `${PROBE_PREFIX}${randomUUID()}`;
  let probeCameBack = () => {};
  const probed = new Promise<void>((resolve) => {
    probeCameBack = resolve;
  });
  const stop = await database.listen(AUTH_CHANGES_CHANNEL, {
    notify: (payload) => {
      if (payload.startsWith(PROBE_PREFIX)) {
        if (payload === probe) probeCameBack();
      } else if (isId(payload)) handlers.changed(payload);
      else handlers.reset();
    },
    resumed: () => handlers.reset(),
    ...(handlers.lost ? { lost: () => handlers.lost?.() } : {}),
  });
  try {
    await database.db.execute(sql`select pg_notify(${AUTH_CHANGES_CHANNEL}, ${probe})`);
    await withinTime(probed, options.probeTimeoutMs ?? 5_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return stop;
}

async function withinTime(heard: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          errors.system(
            'auth_notifications_unavailable',
            `A notification on ${AUTH_CHANGES_CHANNEL} did not come back within ${ms} ms: LISTEN does not work over this database connection (PgBouncer in transaction mode?)`,
          ),
        ),
      ms,
    );
  });
  try {
    await Promise.race([heard, late]);
  } finally {
    clearTimeout(timer);
  }
}
