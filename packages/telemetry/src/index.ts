export { createLogger, type LoggerOptions } from './logger.ts';
export {
  type AgentryMetrics,
  createMetrics,
  processMetrics,
  type QueueCountSource,
  type QueueCounts,
} from './metrics.ts';
export { type RunEventStats, type RunEventStatsSource, trackRunEvents } from './run-event-metrics.ts';
export { createRunTelemetry, type RunRef, type RunTelemetry } from './run-telemetry.ts';
export { startTelemetry, type TelemetryHandle, type TelemetryOptions } from './start-telemetry.ts';
export { runTraceContext, traceModel, traceTools, withSpan } from './tracing.ts';
export { type WebhookMetrics, webhookMetrics } from './webhook-metrics.ts';
