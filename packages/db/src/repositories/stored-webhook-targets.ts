import { and, eq, sql } from 'drizzle-orm';
import { agentVersions } from '../schema.ts';
import type { Tx } from '../tenant-scope.ts';
import type { Run } from './runs.ts';
import { runWebhookEvent, type WebhookTarget } from './webhook-deliveries.ts';

/**
 * The webhook targets of a run's agent version, read from its stored config: for the status writes
 * whose caller has no compiled agent (the sweeper, a cancellation); a caller that has one passes
 * its `config.webhooks` instead. Read only when the run's status has a webhook event; entries that
 * are not targets (never written by the loader) are left out.
 *
 * @example
 * if (updated) await recordRunWebhooks(tx, updated, await storedWebhookTargets(tx, updated));
 */
export async function storedWebhookTargets(tx: Tx, run: Run): Promise<WebhookTarget[]> {
  if (!runWebhookEvent(run.status)) return [];
  const [version] = await tx
    .select({ webhooks: sql<unknown>`${agentVersions.config} -> 'webhooks'` })
    .from(agentVersions)
    .where(
      and(
        eq(agentVersions.agentId, run.agentId),
        eq(agentVersions.version, run.agentVersion),
        eq(agentVersions.tenantId, run.tenantId),
      ),
    );
  return Array.isArray(version?.webhooks) ? version.webhooks.filter(isTarget) : [];
}

function isTarget(value: unknown): value is WebhookTarget {
  const v = value as Partial<WebhookTarget> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.url === 'string' &&
    Array.isArray(v.events) &&
    typeof v.signing_secret === 'string'
  );
}
