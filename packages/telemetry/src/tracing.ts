import { createHash } from 'node:crypto';
import type { ToolExecutor } from '@agentry/agent';
import { type LanguageModel, type ModelResponse, observeStream } from '@agentry/llm';
import {
  type Attributes,
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
} from '@opentelemetry/api';

const TRACER = 'agentry';
const W3C_TRACE_ID = /^(?!0{32})[0-9a-f]{32}$/;

/**
 * The parent context of a run's spans: its `traceId` (the `trace_id` of the API's run view and of
 * the worker's logs) as a remote parent, so every span of a run, on any worker and any attempt,
 * lands in one trace, under one parent span id derived from the run id. A trace id that is not
 * W3C-shaped starts fresh traces instead.
 *
 * @example
 * const parent = runTraceContext(run.traceId, run.id);
 */
export function runTraceContext(traceId: string | undefined, runId: string): Context {
  if (!traceId || !W3C_TRACE_ID.test(traceId)) return ROOT_CONTEXT;
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId,
    spanId: createHash('sha256').update(runId).digest('hex').slice(0, 16),
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
  });
}

/**
 * Runs `fn` inside a span: ended when `fn` settles, status ERROR (with the exception) when it
 * throws. A no-op span unless an OpenTelemetry SDK is registered.
 *
 * @example
 * await withSpan('db.checkpoint', { 'agentry.run.id': run.id }, parent, () => checkpointRun(...));
 */
export async function withSpan<T>(
  name: string,
  attributes: Attributes,
  parent: Context,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const span = trace.getTracer(TRACER).startSpan(name, { attributes, kind: SpanKind.INTERNAL }, parent);
  try {
    return await fn(span);
  } catch (error) {
    failSpan(span, error);
    throw error;
  } finally {
    span.end();
  }
}

function failSpan(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

function recordResponse(span: Span, response: ModelResponse): void {
  span.setAttributes({
    'gen_ai.response.model': response.modelId,
    'gen_ai.response.finish_reasons': [response.finishReason],
    'gen_ai.usage.input_tokens': response.usage.inputTokens,
    'gen_ai.usage.output_tokens': response.usage.outputTokens,
  });
  span.setStatus({ code: SpanStatusCode.OK });
}

/**
 * The model with a `model.call` span around each call (streamed calls: until the stream ends,
 * fails or is abandoned).
 *
 * @example
 * const model = traceModel(setup.model, runTraceContext(run.traceId, run.id), { 'agentry.run.id': run.id });
 */
export function traceModel(model: LanguageModel, parent: Context, attributes: Attributes = {}): LanguageModel {
  const spanAttributes = { ...attributes, 'gen_ai.system': model.provider, 'gen_ai.request.model': model.modelId };
  return {
    provider: model.provider,
    modelId: model.modelId,
    generate: (request, options) =>
      withSpan('model.call', spanAttributes, parent, async (span) => {
        const response = await model.generate(request, options);
        recordResponse(span, response);
        return response;
      }),
    stream(request, options) {
      let span: Span | undefined;
      return observeStream(model.stream(request, options), {
        start: () => {
          span = trace.getTracer(TRACER).startSpan('model.call', { attributes: spanAttributes }, parent);
          span.setAttribute('agentry.stream', true);
        },
        item: (event) => {
          if (event.type === 'finish') recordResponse(span!, event.response);
        },
        error: (error) => failSpan(span!, error),
        end: () => span!.end(),
      });
    },
    // A pass-through stops when the model does.
    ...(model.honoursAbort ? { honoursAbort: true } : {}),
  };
}

/**
 * The tool executor with a `tool.call` span around each call; a result with `isError` sets the
 * span's status to ERROR with its error code.
 *
 * @example
 * const tools = traceTools(executor, runTraceContext(run.traceId, run.id));
 */
export function traceTools(tools: ToolExecutor, parent: Context, attributes: Attributes = {}): ToolExecutor {
  return {
    definitions: () => tools.definitions(),
    execute: (call, options) =>
      withSpan(
        'tool.call',
        { ...attributes, 'gen_ai.tool.name': call.name, 'gen_ai.tool.call.id': call.id },
        parent,
        async (span) => {
          const result = await tools.execute(call, options);
          if (result.meta?.cached === true) span.setAttribute('agentry.tool.cached', true);
          if (result.isError) {
            span.setAttribute('agentry.tool.error_code', result.errorCode ?? 'tool_error');
            span.setStatus({ code: SpanStatusCode.ERROR, message: result.errorCode ?? 'tool_error' });
          } else {
            span.setStatus({ code: SpanStatusCode.OK });
          }
          return result;
        },
      ),
  };
}
