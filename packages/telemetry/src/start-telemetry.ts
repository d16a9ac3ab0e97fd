export interface TelemetryOptions {
  /** `service.name` of the spans: `agentry-api`, `agentry-worker`. */
  serviceName: string;
  /** OTLP/HTTP base URL (`OTEL_EXPORTER_OTLP_ENDPOINT`); traces go to `<endpoint>/v1/traces`. Omitted = no SDK. */
  otlpEndpoint?: string;
}

export interface TelemetryHandle {
  /** Whether an SDK was registered (an endpoint was configured). */
  readonly tracing: boolean;
  /** Flushes pending spans and unregisters the SDK. */
  shutdown(): Promise<void>;
}

/**
 * Registers the OpenTelemetry Node SDK with an OTLP/HTTP trace exporter, only when an endpoint is
 * configured; otherwise the spans of `@agentry/telemetry` stay no-ops and the SDK is not even
 * loaded (it is imported on demand). No automatic instrumentations: the spans are the ones Agentry
 * creates (`model.call`, `tool.call`, `db.checkpoint`).
 *
 * @example
 * const telemetry = await startTelemetry({ serviceName: 'agentry-worker', otlpEndpoint: config.otlpEndpoint });
 * // on shutdown
 * await telemetry.shutdown();
 */
export async function startTelemetry(options: TelemetryOptions): Promise<TelemetryHandle> {
  if (!options.otlpEndpoint) return { tracing: false, shutdown: async () => {} };
  const [{ NodeSDK }, { OTLPTraceExporter }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
  ]);
  const sdk = new NodeSDK({
    serviceName: options.serviceName,
    traceExporter: new OTLPTraceExporter({ url: `${options.otlpEndpoint.replace(/\/+$/, '')}/v1/traces` }),
    instrumentations: [],
  });
  sdk.start();
  return {
    tracing: true,
    shutdown: () => sdk.shutdown().catch(() => {}),
  };
}
