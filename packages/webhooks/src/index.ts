export { parseRetryAfter, retryDelayMs } from './backoff.ts';
export {
  createWebhookDispatcher,
  type WebhookDispatcher,
  type WebhookDispatcherOptions,
} from './dispatcher.ts';
export { defaultWebhookSettings, type WebhookSettings, webhookSettingsFromEnv } from './settings.ts';
export { signatureHeaders } from './signature.ts';
