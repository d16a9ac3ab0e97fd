import {
  getWebhookDelivery,
  isId,
  listWebhookDeliveries,
  retryWebhookDelivery,
  type WebhookDelivery,
  type WebhookDeliveryStatus,
} from '@agentry/db';
import { errors } from '@agentry/errors';
import { Hono } from 'hono';
import type { ApiDeps } from '../deps.ts';
import { audit } from '../http/audit.ts';
import type { AuthVariables } from '../http/auth.ts';
import { doc, PAGE_QUERY, type ParamDoc, ref } from '../http/openapi.ts';
import { pageOf, readPage } from '../http/pagination.ts';

const STATUSES: readonly WebhookDeliveryStatus[] = ['pending', 'sending', 'delivered', 'failed'];

/**
 * The public shape of a webhook delivery: where and what was sent and how it went (never the
 * signing secret's value or the filled-in headers).
 *
 * @example
 * webhookDeliveryView(row); // { id, object: 'webhook_delivery', event: 'run.completed', status: 'delivered', … }
 */
export function webhookDeliveryView(d: WebhookDelivery) {
  return {
    id: d.id,
    object: 'webhook_delivery',
    run_id: d.runId,
    conversation_id: d.conversationId,
    agent_id: d.agentId,
    event: d.event,
    url: d.url,
    status: d.status,
    attempts: d.attempts,
    next_attempt_at: d.status === 'pending' ? d.nextAttemptAt.toISOString() : null,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError ?? null,
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt.toISOString(),
    finished_at: d.finishedAt?.toISOString() ?? null,
  };
}

const deliveryId: Record<string, ParamDoc> = {
  id: { description: 'The webhook delivery id', resource: 'webhook_delivery' },
};

/** `GET /v1/webhook-deliveries` and `POST /v1/webhook-deliveries/{id}/retry`. */
export function webhookDeliveryRoutes(deps: ApiDeps) {
  const app = new Hono<{ Variables: AuthVariables }>();

  app.get(
    '/',
    doc({
      operationId: 'listWebhookDeliveries',
      tag: 'Webhooks',
      summary: 'The webhook deliveries of the tenant’s runs, newest first',
      description: 'Each run event an agent’s `webhooks` subscribe to, with its attempts and last error.',
      auth: 'tenant',
      query: {
        ...PAGE_QUERY,
        run_id: {
          description: 'Only this run’s deliveries',
          resource: 'run',
          schema: { type: 'string', format: 'uuid' },
        },
        status: { description: 'Only deliveries in this status', schema: { type: 'string', enum: [...STATUSES] } },
      },
      responses: { 200: { description: 'A page of deliveries', schema: ref('WebhookDeliveryList') } },
      errors: ['invalid_query'],
    }),
  );
  app.get('/', async (c) => {
    const page = readPage(c);
    const runId = c.req.query('run_id');
    if (runId !== undefined && !isId(runId)) {
      throw errors.badRequest('invalid_query', '`run_id` must be a run id', { parameter: 'run_id' });
    }
    const status = c.req.query('status');
    if (status !== undefined && !STATUSES.includes(status as WebhookDeliveryStatus)) {
      throw errors.badRequest('invalid_query', `\`status\` must be one of ${STATUSES.join(', ')}`, {
        parameter: 'status',
      });
    }
    const rows = await listWebhookDeliveries(deps.db, c.var.tenant.id, {
      ...page,
      limit: page.limit + 1,
      ...(runId ? { runId } : {}),
      ...(status ? { status: status as WebhookDeliveryStatus } : {}),
    });
    return c.json(pageOf(rows, page, webhookDeliveryView));
  });

  app.get(
    '/:id',
    doc({
      operationId: 'getWebhookDelivery',
      tag: 'Webhooks',
      summary: 'A webhook delivery',
      auth: 'tenant',
      path: deliveryId,
      responses: { 200: { description: 'The delivery', schema: ref('WebhookDelivery') } },
      errors: ['webhook_delivery_not_found'],
    }),
  );
  app.get('/:id', async (c) => {
    const id = c.req.param('id');
    const delivery = isId(id) ? await getWebhookDelivery(deps.db, c.var.tenant.id, id) : undefined;
    if (!delivery) throw errors.notFound('webhook_delivery', id);
    return c.json(webhookDeliveryView(delivery));
  });

  app.post(
    '/:id/retry',
    doc({
      operationId: 'retryWebhookDelivery',
      tag: 'Webhooks',
      summary: 'Send a failed delivery again',
      description:
        'The delivery becomes pending with a fresh set of attempts and the same id (receivers de-duplicate on `webhook-id`).',
      auth: 'tenant',
      path: deliveryId,
      responses: { 202: { description: 'Queued to be sent again', schema: ref('WebhookDelivery') } },
      errors: ['webhook_delivery_not_found', 'webhook_delivery_not_failed'],
    }),
  );
  app.post('/:id/retry', async (c) => {
    const id = c.req.param('id');
    const result = isId(id) ? await retryWebhookDelivery(deps.db, c.var.tenant.id, id) : undefined;
    if (!result) throw errors.notFound('webhook_delivery', id);
    if (result === 'not_failed') {
      throw errors.conflict('webhook_delivery_not_failed', 'Only a failed delivery can be retried');
    }
    await audit(deps.db, c, 'webhook_delivery.retried', { type: 'webhook_delivery', id }, { run_id: result.runId });
    return c.json(webhookDeliveryView(result), 202);
  });
  return app;
}
