export { createRunProcessor, type RunExecutorDeps, type RunProcessor } from './execute-run.ts';
export { inputKind, unansweredInput } from './pending-input.ts';
export { createRecordingExecutor, idempotencyKeyFor } from './recording-executor.ts';
export {
  type RunWorker,
  type RunWorkerConfig,
  runWorkerTimings,
  startRunWorker,
} from './start-run-worker.ts';
export {
  DEFAULT_WAITING_TIMEOUT_SECONDS,
  MAX_WAITING_TIMEOUT_SECONDS,
  type SweeperOptions,
  type SweeperSettings,
  startSweeper,
  sweeperSettingsFromEnv,
  sweepStuckRuns,
} from './sweeper.ts';
export { systemContext } from './system-context.ts';
export { type ToolCacheSettings, toolCacheSettingsFromEnv } from './tool-cache.ts';
