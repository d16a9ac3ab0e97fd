import { z } from 'zod';
import { component, list, timestamp } from './common.ts';

/** Webhook deliveries (`/v1/webhook-deliveries`): one run event sent to the agent's webhook, and how it went. */

export const WebhookDeliverySchema = component(
  'WebhookDelivery',
  z.object({
    id: z.uuid().describe('Also the `webhook-id` header and the payload’s `id`, the same on every attempt'),
    object: z.literal('webhook_delivery'),
    run_id: z.uuid().nullable().describe('The run of a `run.*` event; null for `conversation.*` events'),
    conversation_id: z.uuid().nullable().describe('The conversation of a `conversation.*` event (issue 21)'),
    agent_id: z.uuid(),
    event: z.enum([
      'run.completed',
      'run.failed',
      'run.cancelled',
      'run.timed_out',
      'run.waiting',
      'conversation.handoff_requested',
      'conversation.human_message',
      'conversation.resolved',
    ]),
    url: z.string(),
    status: z
      .enum(['pending', 'sending', 'delivered', 'failed'])
      .describe('pending: waiting for its next attempt; sending: an attempt is under way; delivered / failed: final'),
    attempts: z.int().describe('Attempts made so far (a manual retry starts again from 0)'),
    next_attempt_at: timestamp.nullable().describe('When a pending delivery is sent next'),
    last_status_code: z.int().nullable().describe('The receiver’s HTTP status on the last attempt'),
    last_error: z
      .object({ code: z.string(), message: z.string() })
      .nullable()
      .describe('Why the last attempt did not deliver: `http_<status>`, an egress code, `webhook_timeout`, …'),
    created_at: timestamp,
    updated_at: timestamp,
    finished_at: timestamp.nullable(),
  }),
  'One webhook event for one run, and how sending it went',
);

export const WebhookDeliveryListSchema = component('WebhookDeliveryList', list(WebhookDeliverySchema));

export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;
export type WebhookDeliveryList = z.infer<typeof WebhookDeliveryListSchema>;
