import { and, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { newId } from '../ids.ts';
import {
  agents,
  agentVersions,
  messages,
  type RunStatus,
  type WebhookDeliveryStatus,
  type WebhookEvent,
  webhookDeliveries,
} from '../schema.ts';
import { type Tx, withSystemScope, withTenantScope } from '../tenant-scope.ts';
import type { Run } from './runs.ts';

export type WebhookDelivery = typeof webhookDeliveries.$inferSelect;

/** The run statuses that have a webhook event, and its name. */
const EVENTS: Partial<Record<RunStatus, WebhookEvent>> = {
  completed: 'run.completed',
  failed: 'run.failed',
  cancelled: 'run.cancelled',
  timed_out: 'run.timed_out',
  waiting: 'run.waiting',
};

/**
 * One entry of an agent config's `webhooks`, as the loader accepted it: what a caller holding the
 * compiled agent passes (its `config.webhooks`), or what `storedWebhookTargets` reads.
 */
export interface WebhookTarget {
  url: string;
  events: readonly string[];
  signing_secret: string;
  headers?: Record<string, string>;
  enabled?: boolean;
}

/** The webhook event of a run reaching `status`; undefined for a status without one. */
export function runWebhookEvent(status: RunStatus): WebhookEvent | undefined {
  return EVENTS[status];
}

/** The enabled targets subscribed to a run reaching `status`. */
function subscribed(targets: readonly WebhookTarget[], status: RunStatus): WebhookTarget[] {
  const event = EVENTS[status];
  if (!event) return [];
  return targets.filter((w) => w.enabled !== false && w.events.includes(event));
}

/**
 * Whether a run of an agent whose webhook targets are these gets a delivery when it reaches
 * `status`: a caller that has the compiled agent can tell before writing the status.
 *
 * @example
 * if (!hasWebhookFor(compiled.config.webhooks ?? [], 'completed')) commitAhead();
 */
export function hasWebhookFor(targets: readonly WebhookTarget[], status: RunStatus): boolean {
  return subscribed(targets, status).length > 0;
}

/** The run's final (or waiting) text answer: the text of its last assistant message. */
async function outputText(tx: Tx, run: Run): Promise<string | null> {
  const [last] = await tx
    .select({ content: messages.content })
    .from(messages)
    .where(and(eq(messages.runId, run.id), eq(messages.tenantId, run.tenantId), eq(messages.role, 'assistant')))
    .orderBy(desc(messages.seq))
    .limit(1);
  if (!last) return null;
  return last.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
}

/**
 * The `data` of a run event: what the API's run view shows of the run's outcome (status, reason,
 * usage, the reply of a completed run, the calls a waiting run needs answered) and nothing more:
 * no tool arguments or outputs beyond the pending calls, no secrets, no context.
 */
async function runEventData(tx: Tx, run: Run, pending: readonly unknown[]): Promise<Record<string, unknown>> {
  return {
    run_id: run.id,
    conversation_id: run.conversationId,
    agent_id: run.agentId,
    agent_version: run.agentVersion,
    status: run.status,
    reason: run.error?.message ?? null,
    error_code: run.error?.code ?? null,
    usage: {
      input_tokens: run.usage.inputTokens,
      output_tokens: run.usage.outputTokens,
      cache_read_tokens: run.usage.cacheReadTokens,
      cache_write_tokens: run.usage.cacheWriteTokens,
      total_tokens: run.usage.inputTokens + run.usage.outputTokens,
      tool_call_count: run.toolCallCount,
    },
    output: run.status === 'completed' ? await outputText(tx, run) : null,
    pending: run.status === 'waiting' ? pending : null,
    created_at: run.createdAt.toISOString(),
    finished_at: run.finishedAt?.toISOString() ?? null,
  };
}

/**
 * The outbox write: inside the transaction that just gave `run` its status, adds one delivery per
 * enabled target (the run's agent version's webhooks, already parsed) subscribed to that status.
 * Committed with the status or not at all, so a process dying right after loses nothing. Returns
 * how many were added.
 *
 * @example
 * await withTenantScope(db, run.tenantId, async (tx) => {
 *   const [updated] = await tx.update(runs).set({ status: 'completed' }).where(…).returning();
 *   if (updated) await recordRunWebhooks(tx, updated, compiled.config.webhooks ?? []);
 * });
 */
export async function recordRunWebhooks(
  tx: Tx,
  run: Run,
  targets: readonly WebhookTarget[],
  options: { pending?: readonly unknown[] } = {},
): Promise<number> {
  const event = EVENTS[run.status];
  const chosen = subscribed(targets, run.status);
  if (!event || chosen.length === 0) return 0;
  const data = await runEventData(tx, run, options.pending ?? []);
  const createdAt = new Date();
  await tx.insert(webhookDeliveries).values(
    chosen.map((target) => {
      const id = newId();
      return {
        id,
        tenantId: run.tenantId,
        runId: run.id,
        agentId: run.agentId,
        event,
        url: target.url,
        signingSecret: target.signing_secret,
        headers: target.headers ?? {},
        payload: { type: event, id, created_at: createdAt.toISOString(), data },
        createdAt,
        nextAttemptAt: createdAt,
      };
    }),
  );
  return chosen.length;
}

/** A conversation's webhook events (issue 21): handoffs, people's replies, resolutions. */
export type ConversationWebhookEvent = Extract<WebhookEvent, `conversation.${string}`>;

/**
 * The outbox write of a conversation event: inside the transaction that made the change, one
 * delivery per enabled target of the conversation's agent version (pinned, else published)
 * subscribed to `event`. `data` is the payload's `data` (ids, modes, names; never secrets).
 * Returns how many were added.
 *
 * @example
 * await recordConversationWebhooks(tx, conversation, 'conversation.resolved', { conversation_id: conversation.id });
 */
export async function recordConversationWebhooks(
  tx: Tx,
  conversation: { id: string; tenantId: string; agentId: string; agentVersion: number | null },
  event: ConversationWebhookEvent,
  data: Record<string, unknown>,
): Promise<number> {
  const [row] = await tx
    .select({ webhooks: sql<unknown>`${agentVersions.config} -> 'webhooks'` })
    .from(agentVersions)
    .innerJoin(agents, and(eq(agents.id, agentVersions.agentId), eq(agents.tenantId, conversation.tenantId)))
    .where(
      and(
        eq(agentVersions.agentId, conversation.agentId),
        eq(agentVersions.tenantId, conversation.tenantId),
        eq(agentVersions.version, sql`coalesce(${conversation.agentVersion}::int, ${agents.publishedVersion})`),
      ),
    );
  const targets = Array.isArray(row?.webhooks) ? (row.webhooks as WebhookTarget[]) : [];
  const chosen = targets.filter(
    (w) =>
      typeof w?.url === 'string' &&
      typeof w.signing_secret === 'string' &&
      Array.isArray(w.events) &&
      w.enabled !== false &&
      w.events.includes(event),
  );
  if (chosen.length === 0) return 0;
  const createdAt = new Date();
  await tx.insert(webhookDeliveries).values(
    chosen.map((target) => {
      const id = newId();
      return {
        id,
        tenantId: conversation.tenantId,
        runId: null,
        conversationId: conversation.id,
        agentId: conversation.agentId,
        event,
        url: target.url,
        signingSecret: target.signing_secret,
        headers: target.headers ?? {},
        payload: { type: event, id, created_at: createdAt.toISOString(), data },
        createdAt,
        nextAttemptAt: createdAt,
      };
    }),
  );
  return chosen.length;
}

/**
 * Claims up to `limit` due deliveries for `leaseMs`: pending ones whose time has come and sending
 * ones whose lease ran out (their dispatcher died between claim and result). Each claim counts an
 * attempt, whose number fences the result ({@link recordDeliveryAttempt}). `FOR UPDATE SKIP LOCKED`
 * lets several dispatchers claim at once without waiting on, or taking, each other's rows.
 * System scope: the dispatcher serves every tenant (each result is then written in its tenant).
 *
 * @example
 * const due = await claimDueDeliveries(db, { limit: 20, leaseMs: 60_000 });
 */
export async function claimDueDeliveries(
  db: Db,
  options: { limit: number; leaseMs: number },
): Promise<WebhookDelivery[]> {
  return withSystemScope(db, 'webhook dispatcher: claims due deliveries of every tenant', async (tx) => {
    const due = tx
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(
        and(
          inArray(webhookDeliveries.status, ['pending', 'sending']),
          sql`${webhookDeliveries.nextAttemptAt} <= now()`,
        ),
      )
      .orderBy(webhookDeliveries.nextAttemptAt)
      .limit(options.limit)
      .for('update', { skipLocked: true });
    return tx
      .update(webhookDeliveries)
      .set({
        status: 'sending',
        attempts: sql`${webhookDeliveries.attempts} + 1`,
        nextAttemptAt: sql`now() + ${`${options.leaseMs} milliseconds`}::interval`,
        updatedAt: sql`now()`,
      })
      .where(inArray(webhookDeliveries.id, due))
      .returning();
  });
}

/** How one attempt ended, as the dispatcher decided. */
export type DeliveryAttemptResult =
  | { outcome: 'delivered'; statusCode: number }
  | { outcome: 'retry'; retryInMs: number; statusCode?: number; error: { code: string; message: string } }
  | { outcome: 'failed'; statusCode?: number; error: { code: string; message: string } };

/**
 * Records an attempt's result, only while the claim is still this attempt's (status `sending`,
 * same attempt number): a dispatcher whose lease ran out and was taken over writes nothing.
 * Returns whether it was written.
 *
 * @example
 * await recordDeliveryAttempt(db, claimed, { outcome: 'delivered', statusCode: 204 });
 */
export async function recordDeliveryAttempt(
  db: Db,
  claim: Pick<WebhookDelivery, 'id' | 'tenantId' | 'attempts'>,
  result: DeliveryAttemptResult,
): Promise<boolean> {
  const common = {
    lastStatusCode: result.statusCode ?? null,
    lastError: result.outcome === 'delivered' ? null : result.error,
    updatedAt: sql`now()`,
  };
  const update =
    result.outcome === 'retry'
      ? {
          ...common,
          status: 'pending' as const,
          nextAttemptAt: sql`now() + ${`${Math.max(0, Math.round(result.retryInMs))} milliseconds`}::interval`,
        }
      : { ...common, status: result.outcome, finishedAt: sql`now()` };
  const rows = await withTenantScope(db, claim.tenantId, (tx) =>
    tx
      .update(webhookDeliveries)
      .set(update)
      .where(
        and(
          eq(webhookDeliveries.id, claim.id),
          eq(webhookDeliveries.tenantId, claim.tenantId),
          eq(webhookDeliveries.status, 'sending'),
          eq(webhookDeliveries.attempts, claim.attempts),
        ),
      )
      .returning({ id: webhookDeliveries.id }),
  );
  return rows.length > 0;
}

/** A tenant's deliveries, newest first, optionally of one run and/or in one status. */
export async function listWebhookDeliveries(
  db: Db,
  tenantId: string,
  options: { limit: number; before?: string; runId?: string; status?: WebhookDeliveryStatus },
): Promise<WebhookDelivery[]> {
  return withTenantScope(db, tenantId, (tx) =>
    tx
      .select()
      .from(webhookDeliveries)
      .where(
        and(
          eq(webhookDeliveries.tenantId, tenantId),
          options.before ? lt(webhookDeliveries.id, options.before) : undefined,
          options.runId ? eq(webhookDeliveries.runId, options.runId) : undefined,
          options.status ? eq(webhookDeliveries.status, options.status) : undefined,
        ),
      )
      .orderBy(desc(webhookDeliveries.id))
      .limit(options.limit),
  );
}

export async function getWebhookDelivery(db: Db, tenantId: string, id: string): Promise<WebhookDelivery | undefined> {
  const [row] = await withTenantScope(db, tenantId, (tx) =>
    tx
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.tenantId, tenantId))),
  );
  return row;
}

/**
 * Sends a failed delivery again: it becomes pending, due now, with a fresh set of attempts and the
 * same id (receivers de-duplicate on `webhook-id`). Undefined when the tenant has no such
 * delivery; `not_failed` when it is not in `failed`.
 *
 * @example
 * const result = await retryWebhookDelivery(db, tenantId, id);
 */
export async function retryWebhookDelivery(
  db: Db,
  tenantId: string,
  id: string,
): Promise<WebhookDelivery | 'not_failed' | undefined> {
  return withTenantScope(db, tenantId, async (tx) => {
    const [row] = await tx
      .update(webhookDeliveries)
      .set({ status: 'pending', attempts: 0, nextAttemptAt: sql`now()`, finishedAt: null, updatedAt: sql`now()` })
      .where(
        and(
          eq(webhookDeliveries.id, id),
          eq(webhookDeliveries.tenantId, tenantId),
          eq(webhookDeliveries.status, 'failed'),
        ),
      )
      .returning();
    if (row) return row;
    const [existing] = await tx
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.tenantId, tenantId)));
    return existing ? 'not_failed' : undefined;
  });
}
