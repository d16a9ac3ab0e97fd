import { createDeadlineSignal, type ToolExecutionResult, type ToolExecutor } from '@agentry/agent';
import {
  type CompiledAgent,
  type CompiledTool,
  maskedValues,
  maskSecrets,
  type RenderedRequest,
  type ToolContext,
} from '@agentry/config';
import { isAppError } from '@agentry/errors';
import type { ToolCallPart, ToolDefinition } from '@agentry/llm';
import { type EgressPolicy, egressFetch, isEgressError, strictEgressPolicy } from './egress.ts';
import { readBoundedText } from './read-body.ts';
import { shapeResponse } from './shape-response.ts';
import { requestDigest, storableSeconds, type ToolCacheKey, type ToolResultCache } from './tool-result-cache.ts';
import { errorResult } from './tool-results.ts';

/** Facts about one outbound request, for traces and metrics (secrets already masked). */
export interface RequestInfo {
  tool: string;
  method: string;
  url: string;
  attempt: number;
  status?: number;
  durationMs: number;
  errorCode?: string;
}

export interface HttpToolExecutorOptions {
  agent: CompiledAgent;
  context: ToolContext;
  /**
   * Where tools may send requests (default {@link strictEgressPolicy}: public addresses only). Build
   * it with `createEgressPolicy({ allowlist: mergeAllowlists(EGRESS_ALLOWLIST, tenant allowlist) })`.
   */
  egress?: EgressPolicy;
  /** @deprecated test seam only: replaces undici's fetch inside the egress guard (every check still runs). */
  fetch?: typeof fetch;
  /** Most bytes read from one response before the download is stopped (default 1 MiB; never above `egress.maxResponseBytes`). */
  maxResponseBytes?: number;
  onRequest?: (info: RequestInfo) => void;
  /** Sent as `Idempotency-Key` (unless the tool's config sets that header) so endpoints can dedupe retries. */
  idempotencyKey?: (call: ToolCallPart) => string;
  /**
   * Stored responses for tools with `cache: { ttl }`, kept per tenant. A cache error is a miss
   * (reported to `onError`): the endpoint is called as without a cache.
   */
  cache?: { store: ToolResultCache; tenantId: string; onError?: (error: unknown) => void };
}

const defaultMaxResponseBytes = 1024 * 1024;
const errorExcerptChars = 500;
const retryableStatus = (status: number) => status === 429 || status >= 500;

/**
 * Runs an agent's configured HTTP tools. Never throws: unknown tools, bad arguments, HTTP errors,
 * time-outs and network failures all become error results the model can read and correct.
 *
 * @example
 * const executor = createHttpToolExecutor({ agent, context: { context: { conversationId: 'c1' }, secrets: {} } });
 * const result = await executor.execute({ type: 'tool_call', id: '1', name: 'lookup_order', arguments: { id: 'A1' } });
 */
export function createHttpToolExecutor(options: HttpToolExecutorOptions): ToolExecutor {
  const byName = new Map(options.agent.tools.map((t) => [t.name, t]));
  return {
    definitions: (): ToolDefinition[] => options.agent.toolDefinitions,
    execute: async (call, callOptions) => {
      try {
        return await execute(call, byName, options, callOptions?.signal);
      } catch (error) {
        // Last line of defence: the interface promises results, never exceptions.
        const message = error instanceof Error ? error.message : String(error);
        return errorResult(
          'tool_failed',
          `The tool failed unexpectedly: ${maskSecrets(message, maskedValues(options.context))}`,
        );
      }
    },
  };
}

async function execute(
  call: ToolCallPart,
  tools: Map<string, CompiledTool>,
  options: HttpToolExecutorOptions,
  signal: AbortSignal | undefined,
): Promise<ToolExecutionResult> {
  const tool = tools.get(call.name);
  if (!tool) {
    const available = [...tools.keys()];
    return errorResult(
      'unknown_tool',
      `There is no tool named "${call.name}". Available tools: ${available.join(', ') || 'none'}.`,
      {
        available,
      },
    );
  }
  if (call.rawArguments !== undefined) {
    return errorResult(
      'invalid_arguments',
      'The arguments were not valid JSON. Send a JSON object matching the tool parameters.',
      {
        issues: [{ path: '', code: 'invalid_json', message: 'the arguments are not valid JSON' }],
      },
    );
  }
  const checked = tool.validateArguments(call.arguments);
  if (!checked.ok) {
    return errorResult(
      'invalid_arguments',
      'The arguments do not match the tool parameters. Fix them and call the tool again.',
      {
        issues: checked.issues,
      },
    );
  }
  if (tool.kind === 'client') {
    return errorResult('client_tool', `"${tool.name}" is run by the embedding application, not by the server.`);
  }
  let request: RenderedRequest;
  try {
    request = tool.render(checked.value, options.context);
  } catch (error) {
    if (!isAppError(error)) throw error;
    return errorResult(error.code, error.message, error.issues ? { issues: error.issues } : {});
  }
  // Keyed on the request as rendered, before the per-call Idempotency-Key is added.
  const cacheKey =
    tool.cache && options.cache
      ? { tenantId: options.cache.tenantId, digest: requestDigest(tool, request) }
      : undefined;
  if (cacheKey) {
    const hit = await cachedResult(request, cacheKey, options);
    if (hit) return hit;
  }
  const key = options.idempotencyKey?.(call);
  if (key && !Object.keys(request.headers).some((h) => h.toLowerCase() === 'idempotency-key')) {
    request = { ...request, headers: { ...request.headers, 'Idempotency-Key': key } };
  }
  return send(tool, request, options, signal, cacheKey);
}

/** A stored response for the request, marked `cached: true` in its meta; undefined on a miss or a cache error. */
async function cachedResult(
  request: RenderedRequest,
  key: ToolCacheKey,
  options: HttpToolExecutorOptions,
): Promise<ToolExecutionResult | undefined> {
  const started = performance.now();
  let stored: Awaited<ReturnType<ToolResultCache['get']>>;
  try {
    stored = await options.cache?.store.get(key);
  } catch (error) {
    options.cache?.onError?.(error);
    return undefined;
  }
  if (!stored) return undefined;
  const url = maskSecrets(request.url, maskedValues(options.context));
  const durationMs = Math.round(performance.now() - started);
  return {
    output: stored.output,
    isError: false,
    meta: { status: stored.status, durationMs, method: request.method, url, attempts: 0, cached: true },
  };
}

/** Stores a successful result when the tool caches and the endpoint allows it; a cache error is only reported. */
async function store(
  tool: CompiledTool,
  outcome: AttemptOutcome,
  result: ToolExecutionResult,
  key: ToolCacheKey,
  options: HttpToolExecutorOptions,
): Promise<void> {
  if (result.isError || outcome.status === undefined || outcome.status < 200 || outcome.status > 299) return;
  const ttl = storableSeconds(tool.cache?.ttlSeconds ?? 0, outcome.cacheControl);
  if (ttl <= 0) return;
  try {
    await options.cache?.store.set(key, { status: outcome.status, output: result.output }, ttl);
  } catch (error) {
    options.cache?.onError?.(error);
  }
}

async function send(
  tool: CompiledTool,
  request: RenderedRequest,
  options: HttpToolExecutorOptions,
  signal: AbortSignal | undefined,
  cacheKey: ToolCacheKey | undefined,
): Promise<ToolExecutionResult> {
  // Secrets and the end user's values (token, claims) are masked alike in traces and outputs.
  const secrets = maskedValues(options.context);
  const maskedUrl = maskSecrets(request.url, secrets);
  const started = performance.now();
  let attempt = 0;
  for (;;) {
    attempt += 1;
    const outcome = await attemptOnce(tool, request, options, signal);
    const durationMs = Math.round(performance.now() - started);
    const meta = { status: outcome.status, durationMs, method: request.method, url: maskedUrl, attempts: attempt };
    options.onRequest?.({
      tool: tool.name,
      method: request.method,
      url: maskedUrl,
      attempt,
      durationMs,
      ...(outcome.status !== undefined ? { status: outcome.status } : {}),
      ...(outcome.errorCode ? { errorCode: outcome.errorCode } : {}),
      ...(outcome.refusal ? { errorCode: outcome.refusal.code } : {}),
    });
    if (outcome.retryable && attempt <= tool.retries && !signal?.aborted) {
      await delay(Math.min(2000, 200 * 2 ** (attempt - 1)), signal);
      continue;
    }
    const result = toResult(tool, outcome, meta, secrets);
    // The stored output is the masked one the model reads: no secret or token is kept in clear.
    if (cacheKey) await store(tool, outcome, result, cacheKey, options);
    return result;
  }
}

interface AttemptOutcome {
  status?: number;
  text?: string;
  truncated?: boolean;
  contentType?: string | null;
  cacheControl?: string | null;
  errorCode?: 'tool_timeout' | 'tool_unreachable' | 'tool_cancelled';
  /** The egress guard refused the request (`egress_forbidden_address`, …); nothing was sent. */
  refusal?: { code: string; message: string; details: Record<string, unknown> };
  retryable: boolean;
}

async function attemptOnce(
  tool: CompiledTool,
  request: RenderedRequest,
  options: HttpToolExecutorOptions,
  callerSignal: AbortSignal | undefined,
): Promise<AttemptOutcome> {
  // Disposed when the attempt ends, so a finished call holds no timer or signal for the rest of its timeout.
  const deadline = createDeadlineSignal(callerSignal, tool.timeoutMs);
  const policy = options.egress ?? strictEgressPolicy;
  try {
    const response = await egressFetch(request, {
      policy,
      signal: deadline.signal,
      secrets: secretValues(tool, options.context),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    const maxBytes = Math.min(options.maxResponseBytes ?? defaultMaxResponseBytes, policy.maxResponseBytes);
    const body = await readBoundedText(response, maxBytes);
    return {
      status: response.status,
      text: body.text,
      truncated: body.truncated,
      contentType: response.headers.get('content-type'),
      cacheControl: response.headers.get('cache-control'),
      retryable: retryableStatus(response.status),
    };
  } catch (error) {
    if (deadline.stopStatus() === 'cancelled') return { errorCode: 'tool_cancelled', retryable: false };
    if (deadline.stopStatus() === 'timed_out' || (error instanceof Error && error.name === 'TimeoutError')) {
      return { errorCode: 'tool_timeout', retryable: true };
    }
    if (isEgressError(error)) {
      const rule = error.details?.rule;
      return {
        refusal: { code: error.code, message: error.message, details: typeof rule === 'string' ? { rule } : {} },
        retryable: error.isRetryable,
      };
    }
    // Network errors are not shown: their messages can name the resolved (internal) addresses.
    return { errorCode: 'tool_unreachable', retryable: true };
  } finally {
    deadline.dispose();
  }
}

/**
 * The values of the secrets this tool's templates read, and the end user's token when it sends it:
 * what must never follow a redirect to another origin.
 */
function secretValues(tool: CompiledTool, context: ToolContext): string[] {
  const values = tool.secretNames.map((name) => context.secrets[name]);
  if (tool.userValues.includes('token')) values.push(context.user?.token);
  return values.filter((v): v is string => typeof v === 'string');
}

function toResult(
  tool: CompiledTool,
  outcome: AttemptOutcome,
  meta: Record<string, unknown>,
  secrets: Record<string, string>,
): ToolExecutionResult {
  if (outcome.refusal) {
    const { code, message, details } = outcome.refusal;
    return errorResult(code, maskSecrets(message, secrets), details, meta);
  }
  if (outcome.errorCode === 'tool_timeout') {
    return errorResult('tool_timeout', `The tool did not answer within ${tool.timeoutMs / 1000} seconds.`, {}, meta);
  }
  if (outcome.errorCode === 'tool_cancelled')
    return errorResult('tool_cancelled', 'The tool call was cancelled.', {}, meta);
  if (outcome.errorCode === 'tool_unreachable' || outcome.status === undefined) {
    return errorResult('tool_unreachable', 'The tool could not be reached. Try again later.', {}, meta);
  }
  const text = maskSecrets(outcome.text ?? '', secrets);
  if (outcome.status < 200 || outcome.status > 299) {
    const excerpt = text.length > errorExcerptChars ? `${text.slice(0, errorExcerptChars)}…` : text;
    return errorResult(
      'http_error',
      `The tool answered with HTTP ${outcome.status}.`,
      { status: outcome.status, body: excerpt },
      meta,
    );
  }
  const output = shapeResponse(text, {
    maxBytes: tool.response.maxBytes,
    contentType: outcome.contentType ?? null,
    ...(tool.response.fields ? { fields: tool.response.fields } : {}),
    ...(outcome.truncated ? { truncated: true } : {}),
  });
  return { output, isError: false, meta };
}

function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
