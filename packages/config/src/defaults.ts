/** Defaults for everything the config leaves out; the JSON Schema documents the same numbers. */
export const defaults = {
  maxSteps: 10,
  maxToolCalls: 50,
  maxTokens: 200_000,
  runTimeoutSeconds: 300,
  toolTimeoutSeconds: 30,
  maxQueuedRuns: 10,
  responseMaxBytes: 16_000,
  /** Bounds on an uploaded document, checked before schema validation so huge input fails fast. */
  maxConfigBytes: 1_000_000,
  maxConfigDepth: 24,
} as const;
