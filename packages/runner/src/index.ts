export {
  type Env,
  EnvError,
  egressAllowlistFromEnv,
  envBoolean,
  envEnum,
  envInt,
  envList,
  envString,
  envUrl,
  LOG_LEVELS,
  modelSettingsFromEnv,
  secretKeysFromEnv,
} from './env.ts';
export { createRunProcessor, type RunExecutorDeps, type RunProcessor } from './execute-run.ts';
export { mcpStdioServersFromEnv, type StdioServerDefinitions } from './mcp-stdio-env.ts';
export { inputKind, unansweredInput } from './pending-input.ts';
export { createRecordingExecutor, idempotencyKeyFor } from './recording-executor.ts';
export {
  DEFAULT_WAITING_TIMEOUT_SECONDS,
  MAX_WAITING_TIMEOUT_SECONDS,
  type SweeperOptions,
  type SweeperSettings,
  startSweeper,
  sweepStuckRuns,
} from './sweeper.ts';
export { systemContext } from './system-context.ts';
export { parseRetryAfter, retryDelayMs } from './webhooks/backoff.ts';
export {
  createWebhookDispatcher,
  type WebhookDispatcher,
  type WebhookDispatcherOptions,
} from './webhooks/dispatcher.ts';
export { defaultWebhookSettings, type WebhookSettings, webhookSettingsFromEnv } from './webhooks/settings.ts';
export { signatureHeaders } from './webhooks/signature.ts';
