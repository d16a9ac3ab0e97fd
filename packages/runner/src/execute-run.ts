import { type AgentRunResult, runAgent } from '@agentry/agent';
import { type CompiledAgent, compileAgent, loadAgentConfig, modelVisibleContext } from '@agentry/config';
import {
  appendRunMessages,
  type Db,
  getAgentVersion,
  getConversation,
  getRunForWorker,
  listMessages,
  type Run,
  type RunStatus,
  updateRun,
} from '@agentry/db';
import { AppError, toAppError } from '@agentry/errors';
import { createHttpToolExecutor } from '@agentry/http-tools';
import type { Message } from '@agentry/llm';
import type { Job } from '@agentry/queue';
import type { RunEventBus } from '@agentry/run-events';
import { createModel, type ModelProviderSettings, resolveModel } from './model-settings.ts';
import { systemContext } from './system-context.ts';

export interface RunExecutorDeps {
  db: Db;
  models: ModelProviderSettings;
  /** Attempts the queue makes per job; the last one records a failure instead of rethrowing. */
  maxAttempts: number;
  fetch?: typeof fetch;
  /** Where run events go (SSE relays read them); omitted = events are dropped. */
  events?: RunEventBus;
  log?: (level: 'info' | 'warn' | 'error', message: string, fields: Record<string, unknown>) => void;
}

const FINAL_STATUSES = new Set(['completed', 'failed', 'cancelled']);

/**
 * Runs one queued run to its end: loads the pinned agent version and the conversation, runs the
 * agent loop, and commits messages after every step. Safe to call again for the same run (a
 * finished run is left alone). Retryable failures are rethrown while attempts remain.
 *
 * @example
 * queue.startWorker((job) => executeRun(deps, job));
 */
export async function executeRun(deps: RunExecutorDeps, job: Job): Promise<void> {
  const run = await getRunForWorker(deps.db, job.data.runId);
  if (!run || FINAL_STATUSES.has(run.status)) return;
  const log = deps.log ?? (() => {});
  const fields = { runId: run.id, tenantId: run.tenantId, traceId: run.traceId, attempt: job.attempt };
  try {
    await updateRun(deps.db, run.tenantId, run.id, { status: 'running', startedAt: run.startedAt ?? new Date() });
    await deps.events?.publish(run.id, { type: 'run-status', status: 'running', attempt: job.attempt });
    const result = await runLoaded(deps, run);
    const status = await finishRun(deps.db, run, result);
    await deps.events?.publish(run.id, { type: 'run-status', status, final: true });
    log('info', 'run finished', { ...fields, status: result.status, steps: result.steps.length });
  } catch (error) {
    const appError = toAppError(error);
    if (appError.isRetryable && job.attempt < deps.maxAttempts) {
      log('warn', 'run attempt failed, will retry', { ...fields, code: appError.code });
      throw appError;
    }
    log('error', 'run failed', { ...fields, code: appError.code, cause: String(appError.cause ?? '') });
    await updateRun(deps.db, run.tenantId, run.id, {
      status: 'failed',
      error: appError.toJSON(),
      finishedAt: new Date(),
    });
    await deps.events?.publish(run.id, {
      type: 'run-status',
      status: 'failed',
      error: { code: appError.code, message: appError.message },
      final: true,
    });
    if (!appError.isRetryable) throw appError;
  }
}

async function runLoaded(deps: RunExecutorDeps, run: Run): Promise<AgentRunResult> {
  const version = await getAgentVersion(deps.db, run.tenantId, run.agentId, run.agentVersion);
  const conversation = await getConversation(deps.db, run.tenantId, run.conversationId);
  if (!version || !conversation) {
    throw new AppError({
      code: 'run_target_missing',
      message: 'The run’s agent version or conversation no longer exists',
      category: 'system',
      retryable: false,
    });
  }
  const { config, hash } = loadAgentConfig(version.config);
  const agent = compileAgent(config, hash);
  const model = createModel(resolveModel(agent.model, deps.models), deps.models);
  const tools = createHttpToolExecutor({
    agent,
    context: { context: systemContext(conversation, config.basic_settings.chatbot_id), secrets: {} },
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
  });
  const history: Message[] = (await listMessages(deps.db, run.tenantId, run.conversationId)).map((m) => ({
    role: m.role,
    content: m.content,
  }));
  const scope = { tenantId: run.tenantId, conversationId: run.conversationId, runId: run.id };
  let steps = run.steps;
  let toolCallCount = run.toolCallCount;
  let usage = run.usage;
  return runAgent({
    model,
    tools,
    system: systemPromptFor(agent, conversation.context),
    history,
    maxSteps: agent.limits.maxSteps,
    ...(agent.model.temperature !== undefined ? { temperature: agent.model.temperature } : {}),
    ...(agent.model.maxOutputTokens !== undefined ? { maxOutputTokens: agent.model.maxOutputTokens } : {}),
    onEvent: deps.events ? (event) => deps.events?.publish(run.id, event).then(() => {}) : undefined,
    onStep: async (messages, step) => {
      steps = [...steps, step];
      toolCallCount += step.toolCalls.length;
      usage = {
        inputTokens: usage.inputTokens + step.usage.inputTokens,
        outputTokens: usage.outputTokens + step.usage.outputTokens,
        cacheReadTokens: usage.cacheReadTokens + step.usage.cacheReadTokens,
        cacheWriteTokens: usage.cacheWriteTokens + step.usage.cacheWriteTokens,
      };
      await appendRunMessages(deps.db, scope, messages, { steps, toolCallCount, usage });
    },
  });
}

/** Records how the run ended and returns the stored status. */
async function finishRun(db: Db, run: Run, result: AgentRunResult): Promise<RunStatus> {
  if (result.status === 'failed' && result.error) {
    // Let the caller decide between retrying and recording the failure.
    throw AppError.fromJSON(result.error);
  }
  const status: RunStatus =
    result.status === 'cancelled' ? 'cancelled' : result.status === 'completed' ? 'completed' : 'failed';
  await updateRun(db, run.tenantId, run.id, {
    status,
    finishedAt: new Date(),
    ...(result.status === 'max_steps'
      ? {
          error: {
            code: 'max_steps_reached',
            message: result.reason ?? 'Step limit reached',
            category: 'user',
            retryable: false,
          },
        }
      : {}),
  });
  return status;
}

/** The agent's prompt plus the conversation's context variables the config lets the model see. */
function systemPromptFor(agent: CompiledAgent, context: Record<string, unknown>): string {
  const visible = modelVisibleContext(agent.contextVariables, context);
  return visible ? `${agent.systemPrompt}\n\n${visible}` : agent.systemPrompt;
}
