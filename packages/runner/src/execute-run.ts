import { type AgentRunResult, type PendingInput, runAgent, type ToolExecutor } from '@agentry/agent';
import type { CompiledAgent, WebhookConfig } from '@agentry/config';
import {
  type ClaimRef,
  checkpointRun,
  claimRunInTurn,
  type Db,
  FINAL_RUN_STATUSES,
  finishAttempt,
  getRunWithTurn,
  heartbeatRun,
  markRunWaiting,
  type Run,
  readRunStart,
  withTenantScope,
  writePendingInput,
} from '@agentry/db';
import { type AppError, toAppError } from '@agentry/errors';
import { type EgressPolicy, withAllowlist } from '@agentry/http-tools';
import { addUsage, type Message, type ToolCallPart, type ToolResultPart, type Usage } from '@agentry/llm';
import type { StdioServerDefinitions } from '@agentry/mcp';
import type { ModelProviderSettings } from '@agentry/models';
import { type Job, Requeue, type RunScheduler, runJobData } from '@agentry/queue';
import type { RunControl, RunEventBus } from '@agentry/run-events';
import type { SecretBox } from '@agentry/secrets';
import type { RunTelemetry } from '@agentry/telemetry';
import { unansweredInput } from './pending-input.ts';
import { createRecordingExecutor } from './recording-executor.ts';
import { type RunOutcome, runOutcome } from './run-outcome.ts';
import { contextWindowFor, gatherRunStart, type RunStart, setUpRun } from './run-setup.ts';
import { createRunTools, type RunTools } from './run-tools.ts';
import { createWriteBehind, type WriteBehind } from './write-behind.ts';

export interface RunExecutorDeps {
  db: Db;
  models: ModelProviderSettings;
  /** Attempts the queue makes per job; the last one records a failure instead of rethrowing. */
  maxAttempts: number;
  fetch?: typeof fetch;
  /** Where run events go (SSE relays read them); omitted = events are dropped. */
  events?: RunEventBus;
  /** Cancellation requests from the API. */
  control?: RunControl;
  /** Where tools may send requests (SSRF guard); default: public addresses only. */
  egress?: EgressPolicy;
  /** Opens tenant secrets for tool templates and agents' own model keys. */
  secretBox?: SecretBox;
  /** The platform operator's stdio MCP servers (`MCP_STDIO_SERVERS`); none when unset. */
  mcpStdioServers?: StdioServerDefinitions;
  /**
   * Tenant slots and wake-ups (`@agentry/queue`'s RunScheduler): a job holds its tenant's slot
   * while it works, and the conversation's next queued run is submitted when a run ends. Omitted =
   * no cap and no wake-ups (tests that drive single runs).
   */
  scheduler?: RunScheduler;
  heartbeatMs?: number;
  log?: (level: 'info' | 'warn' | 'error', message: string, fields: Record<string, unknown>) => void;
  /** Metrics and spans (`@agentry/telemetry`); omitted = none. */
  telemetry?: RunTelemetry;
}

export interface RunProcessor {
  process(job: Job): Promise<void>;
  /** Stops running loops at their next checkpoint (hard stop after `deadlineMs`); their jobs go back to the queue. */
  shutdown(deadlineMs: number): Promise<void>;
  close(): void;
}

type StopReason = 'cancel' | 'shutdown' | 'stale';

/**
 * Backoff of a run whose attempt met an infrastructure fault (database or queue unavailable): it is
 * retried without spending one of the job's attempts, 1 s, 2 s, 4 s … up to 30 s apart, for as long
 * as the fault lasts. A run fails only for its own reasons (model, tools, limits, config).
 */
const INFRA_BACKOFF_MS = { first: 1000, max: 30_000 };

/** Codes of the faults of what a run stands on, never of the run itself. */
const INFRASTRUCTURE_CODES = new Set(['database_unavailable', 'queue_unavailable']);

/** True for a database or queue fault: transient, whatever the job's attempts say. */
export function isInfrastructureFault(error: AppError): boolean {
  return INFRASTRUCTURE_CODES.has(error.code);
}

/**
 * The worker side of a run, for BullMQ and the in-process runner alike.
 *
 * Guarantees: each attempt takes a fencing number and every write checks it, so an attempt that
 * lost its job lock cannot write; the model's message is stored before its tools run and each
 * step's results after them, so a resumed attempt replays, never re-asks or re-sends; cancellation
 * aborts the model stream and pending tools.
 *
 * @example
 * const processor = createRunProcessor(deps);
 * queue.startWorker((job) => processor.process(job));
 */
export function createRunProcessor(deps: RunExecutorDeps): RunProcessor {
  const active = new Map<string, AbortController>();
  /** Infrastructure faults in a row per run (its backoff); bounded like the runs in flight. */
  const faults = new Map<string, number>();
  let stopping = false;
  const unsubscribe = deps.control?.onCancel((runId) => active.get(runId)?.abort('cancel' satisfies StopReason));
  const log = deps.log ?? (() => {});
  const telemetry = deps.telemetry;
  /** A checkpoint: what the attempt put off, in one transaction (a `db.checkpoint` span when telemetry is on). */
  const checkpoint = (run: Run, writes: WriteBehind) =>
    telemetry ? telemetry.traceCheckpoint(run, () => writes.commit()) : writes.commit();

  return {
    process: (job) =>
      processJob(job).catch((error: unknown) => {
        // A fault before the attempt (the slot, the claim, the start reads) is retried the same way.
        if (!(error instanceof Requeue) && isInfrastructureFault(toAppError(error))) {
          throw new Requeue(infrastructureBackoff(job.data.runId), toAppError(error).code);
        }
        throw error;
      }),
    async shutdown(deadlineMs) {
      stopping = true;
      // Let running steps reach their checkpoint, then cut what is still running.
      const until = Date.now() + deadlineMs * 0.8;
      while (active.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      for (const controller of active.values()) controller.abort('shutdown' satisfies StopReason);
    },
    close() {
      unsubscribe?.();
    },
  };

  async function processJob(job: Job): Promise<void> {
    if (stopping) throw new Requeue(0, 'worker shutting down');
    // The job names the run's tenant (the queue is trusted); a wrong one finds no run (row security).
    const { runId, tenantId, conversationId, agentId, agentVersion } = job.data;
    const ref: ClaimRef = {
      id: runId,
      tenantId,
      ...(conversationId ? { conversationId } : {}),
      ...(agentId ? { agentId } : {}),
      ...(agentVersion !== undefined ? { agentVersion } : {}),
    };
    // The tenant's slot first, so that the claim, the turn check and the start reads are one
    // transaction. At the cap the run is parked by the scheduler and this job ends: a released
    // slot dispatches it again (nothing looks at it meanwhile).
    if (deps.scheduler && !(await deps.scheduler.acquire(job.data))) return;
    try {
      const claimed = await claimWithStart(ref);
      if (!claimed) return await notClaimed(job, ref);
      await attempt(job, claimed);
    } finally {
      // A fault here leaves the lease to expire; the scheduler's reconciliation frees it.
      await deps.scheduler?.release(job.data).catch((error: unknown) => {
        log('warn', 'slot release failed', { runId, tenantId, error: String(error) });
      });
    }
  }

  /**
   * Why a run was not claimed: gone or finished (the job ends), or an earlier run of its
   * conversation is still active (one active run per conversation, oldest first). Then this job
   * ends too: the earlier run's end submits this one (`finish`, the sweeper, a cancel), and a
   * submit that arrives while this job still holds the slot is acted on when it lets go. When the
   * earlier run ended between the claim and this read, the turn has come: claim again.
   */
  async function notClaimed(job: Job, ref: ClaimRef, tries = 2): Promise<void> {
    const found = await getRunWithTurn(deps.db, ref);
    if (!found || FINAL_RUN_STATUSES.includes(found.run.status)) return;
    if (found.oldestActiveRunId && found.oldestActiveRunId !== found.run.id) return;
    if (tries === 0) return; // the sweeper's reconciliation finds a run left in its turn
    const claimed = await claimWithStart(ref);
    if (!claimed) return notClaimed(job, ref, tries - 1);
    await attempt(job, claimed);
  }

  /**
   * Claims the run when it is its turn and, in the same transaction, reads what it starts from (one
   * round trip on Postgres when the job names the run's conversation and agent version: the
   * COMMIT travels with them); then compiles it, reading the secrets the agent needs (one more
   * transaction when it needs some). A run to be cancelled gets the claim alone; one with a
   * deferred message writes it (fenced by this claim) and reads the transcript again. Nothing here
   * throws for a bad config or secret: `setUpRun` throws later, for the failure to be written with
   * the claim's fence (a database error after the claim fails the job, which is retried; the next
   * attempt claims the run again). Undefined when the run is gone, finished or not its turn.
   */
  async function claimWithStart(ref: ClaimRef): Promise<{ run: Run; start?: RunStart } | undefined> {
    const claimed = await claimRunInTurn(deps.db, ref);
    if (!claimed) return undefined;
    const { run } = claimed;
    if (run.cancelRequestedAt) return { run };
    let rows = claimed.start;
    if (run.pendingInput || !rows) {
      rows = await withTenantScope(deps.db, run.tenantId, async (tx) => {
        // The deferred message goes into the transcript first; the reads travel right behind it.
        const [, read] = await Promise.all([writePendingInput(tx, run, run.fence), readRunStart(tx, run)]);
        return read;
      });
    }
    return { run, start: await gatherRunStart(deps.db, run, rows, deps.secretBox) };
  }

  async function attempt(job: Job, claimed: { run: Run; start?: RunStart }): Promise<void> {
    const { run, start } = claimed;
    // The compiled agent's webhook targets, for the run's end and its parking (null: none; undefined
    // when it did not compile: the status writes read them from the stored config then).
    const webhooks =
      start?.compiled && 'config' in start.compiled ? (start.compiled.config.webhooks ?? null) : undefined;
    telemetry?.attemptStarted(run);
    const fence = run.fence;
    const fields = { runId: run.id, tenantId: run.tenantId, traceId: run.traceId, attempt: job.attempt, fence };
    const writes = createWriteBehind(deps.db, run, fence);
    const controller = new AbortController();
    active.set(run.id, controller);
    const beat = setInterval(() => {
      // A beat that fails (database or Redis away) is retried by the next; unhandled, it ended the
      // worker. The attempt's next write finds the outage and retries the run after a backoff.
      void heartbeatRun(deps.db, run, fence).then(
        (current) => {
          if (!current) controller.abort('stale' satisfies StopReason);
        },
        (error: unknown) => log('warn', 'heartbeat failed', { ...fields, error: String(error) }),
      );
      void deps.scheduler?.refresh({ runId: run.id, tenantId: run.tenantId }).catch(() => {});
    }, deps.heartbeatMs ?? 10_000);
    beat.unref();
    try {
      if (run.cancelRequestedAt || !start) {
        await finish(run, fence, writes, { status: 'cancelled' });
        return;
      }
      // Not awaited, like the loop's events: the one writer connection keeps them in order.
      void publish(run.id, { type: 'run-status', status: 'running', attempt: job.attempt });
      const result = await runLoop(run, fence, controller, start, writes);
      const reason = controller.signal.reason as StopReason | undefined;
      if (result.status === 'cancelled' && reason === 'shutdown') {
        // What the attempt put off is kept for the next worker to resume from.
        await writes.commit().catch(() => {});
        throw new Requeue(0, 'worker shutting down');
      }
      if (result.status === 'cancelled' && reason === 'stale') return;
      if (result.status === 'waiting') {
        await pauseForInput(run, fence, writes, result, webhooks);
        log('info', 'run waiting for a person', { ...fields, pending: result.pending?.length ?? 0 });
        return;
      }
      const outcome = runOutcome(result);
      await finish(
        run,
        fence,
        writes,
        outcome,
        { usage: addUsage(run.usage, result.usage), toolCallCount: run.toolCallCount + result.toolCallCount },
        webhooks,
      );
      log('info', 'run finished', { ...fields, status: outcome.status, steps: result.steps.length });
    } catch (error) {
      if (error instanceof Requeue) throw error;
      const appError = toAppError(error);
      if (appError.code === 'stale_attempt') {
        log('warn', 'stale attempt stopped', fields);
        return;
      }
      if (isInfrastructureFault(appError)) {
        // Not the run's fault: retried after a backoff, without spending the job's attempts.
        const delayMs = infrastructureBackoff(run.id);
        log('warn', 'run attempt met an infrastructure fault, will retry', { ...fields, code: appError.code, delayMs });
        await writes.commit().catch(() => {});
        throw new Requeue(delayMs, appError.code);
      }
      if (appError.isRetryable && job.attempt < deps.maxAttempts) {
        log('warn', 'run attempt failed, will retry', { ...fields, code: appError.code });
        // Kept for the retry to resume from, when the database takes it.
        await writes.commit().catch(() => {});
        throw appError;
      }
      log('error', 'run failed', { ...fields, code: appError.code, cause: String(appError.cause ?? '') });
      await finish(run, fence, writes, { status: 'failed', error: appError.toJSON() }, {}, webhooks);
      if (!appError.isRetryable) throw appError;
    } finally {
      clearInterval(beat);
      active.delete(run.id);
    }
    faults.delete(run.id);
  }

  /** The next backoff of a run meeting an infrastructure fault (grows per fault in a row). */
  function infrastructureBackoff(runId: string): number {
    const count = (faults.get(runId) ?? 0) + 1;
    // Bounded: only runs that fault right now are kept.
    if (faults.size >= 10_000) faults.clear();
    faults.set(runId, count);
    return Math.min(INFRA_BACKOFF_MS.max, INFRA_BACKOFF_MS.first * 2 ** (count - 1));
  }

  async function runLoop(
    run: Run,
    fence: number,
    controller: AbortController,
    start: RunStart,
    writes: WriteBehind,
  ): Promise<AgentRunResult> {
    const { tenant, messages: stored } = start.rows;
    // The tenant's own private-network allowlist (set by the operator) adds to the platform's.
    const egress = deps.egress && withAllowlist(deps.egress, tenant?.egressAllowlist ?? []);
    const setup = setUpRun(start, run, deps.models, deps.fetch, deps.secretBox, egress);
    const history: Message[] = stored.map((m) => ({ role: m.role, content: m.content }));
    const { agent } = setup;
    // MCP and skills (issue 9): HTTP, MCP and skill tools behind one executor; MCP sessions end with the run.
    const runTools = createRunTools({
      agent,
      model: setup.model,
      http: setup.http,
      toolContext: setup.toolContext,
      discoveredTools: setup.discoveredTools,
      run,
      lifetimeMs: agent.limits.runTimeoutMs,
      ...(egress ? { egress } : {}),
      ...(deps.fetch ? { fetch: deps.fetch } : {}),
      ...(deps.mcpStdioServers ? { stdioServers: deps.mcpStdioServers } : {}),
      publish: (event) => publish(run.id, event),
    });
    try {
      return runTools.withSkills(await runWithTools(run, fence, controller, setup, runTools, history, writes));
    } finally {
      await runTools.close();
    }
  }

  async function runWithTools(
    run: Run,
    fence: number,
    controller: AbortController,
    setup: Awaited<ReturnType<typeof setUpRun>>,
    runTools: RunTools,
    transcript: Message[],
    writes: WriteBehind,
  ): Promise<AgentRunResult> {
    const { signal } = controller;
    const { agent } = setup;
    const recording = createRecordingExecutor({
      inner: runTools.executor,
      db: deps.db,
      run,
      fence,
      writes,
      isIdempotent: (name) => agent.tools.find((t) => t.name === name)?.idempotent ?? false,
    });
    const tools = telemetry ? telemetry.traceTools(run, recording) : recording;
    const history = await resumeHistory(run, writes, tools, signal, agent, transcript);
    if (history === 'done') return doneResult();
    if (typeof history !== 'object' || !Array.isArray(history)) return waitingResult(history.pending);
    let steps = run.steps;
    let usage: Usage = run.usage;
    let stored: Message | undefined;
    return runAgent({
      model: telemetry ? telemetry.traceModel(run, runTools.parentModel) : runTools.parentModel,
      tools,
      system: setup.system,
      history,
      maxSteps: Math.max(1, agent.limits.maxSteps - run.steps.length),
      maxToolCalls: Math.max(1, agent.limits.maxToolCalls - run.toolCallCount),
      maxTokens: agent.limits.maxTokens,
      timeoutMs: Math.max(1000, agent.limits.runTimeoutMs - (Date.now() - (run.startedAt ?? run.createdAt).getTime())),
      toolChoice: agent.toolChoice,
      parallelToolCalls: agent.parallelToolCalls,
      requireDoneTool: agent.requireDoneTool,
      ephemeralTools: Object.fromEntries(
        agent.tools.flatMap((t) => (t.response.ephemeral ? [[t.name, t.response.ephemeral]] : [])),
      ),
      compaction: { contextWindow: contextWindowFor(setup.provider) },
      cacheHints: setup.provider === 'anthropic',
      ...(agent.model.temperature !== undefined ? { temperature: agent.model.temperature } : {}),
      ...(agent.model.maxOutputTokens !== undefined ? { maxOutputTokens: agent.model.maxOutputTokens } : {}),
      traceId: run.traceId,
      signal,
      onEvent:
        deps.events || telemetry
          ? (event) => {
              telemetry?.observe(run, event);
              // Not awaited: the loop does not wait a round trip per delta. One writer connection
              // keeps events in order, and the final status is published (and awaited) after them.
              void deps.events?.publish(run.id, event).catch((error: unknown) => {
                log('warn', 'event publish failed', { runId: run.id, error: String(error) });
              });
            }
          : undefined,
      pendingInput: (calls) => unansweredInput(deps.db, agent, run, calls),
      onModelResponse: async (message) => {
        stored = message;
        // Put off: it travels with the first tool call's start record (committed before the call is
        // sent) or with the step's checkpoint.
        writes.defer({ messages: [message] });
      },
      onStep: async (messages, step) => {
        steps = [...steps, runTools.stepRecord(step)];
        usage = addUsage(addUsage(usage, step.usage), runTools.takeSkillUsage());
        const rest = messages[0] === stored ? messages.slice(1) : messages;
        writes.defer({ messages: rest, update: { steps, usage } });
        // The run ends right after this step: it travels with the final status.
        if (isFinalAnswer(messages)) return;
        // Committed while the loop goes on to the next model call, which has no side effect: what
        // acts next — a tool call, the final status — waits for this commit (the write-behind
        // keeps their order), and a failed commit fails the attempt there.
        const committed = checkpoint(run, writes);
        committed.catch(() => {});
        // A worker shutting down stops here, at a checkpoint; the next worker resumes from it.
        if (stopping) {
          await committed.catch(() => {});
          controller.abort('shutdown' satisfies StopReason);
        }
      },
    });
  }

  /**
   * The history to continue from. A previous attempt may have stopped after the model's message
   * but before its tool results were stored: those calls are settled first (replayed from their
   * records, or reported unknown), without asking the model again.
   */
  async function resumeHistory(
    run: Run,
    writes: WriteBehind,
    tools: ToolExecutor,
    signal: AbortSignal,
    agent: CompiledAgent,
    history: Message[],
  ): Promise<Message[] | 'done' | { pending: PendingInput[] }> {
    const last = history.at(-1);
    if (last?.role !== 'assistant') return history;
    const pending = last.content.filter((p): p is ToolCallPart => p.type === 'tool_call');
    if (pending.length === 0) return 'done'; // the final answer is stored; only the status was not
    // A person has not answered yet (the job was run again early): keep waiting.
    const unanswered = await unansweredInput(deps.db, agent, run, pending);
    if (unanswered.length > 0) return { pending: unanswered };
    const results: ToolResultPart[] = [];
    for (const call of pending) {
      const result = await tools.execute(call, { signal });
      results.push({
        type: 'tool_result',
        toolCallId: call.id,
        toolName: call.name,
        output: result.output,
        ...(result.isError ? { isError: true } : {}),
      });
      await publish(run.id, {
        type: 'tool-result',
        toolCallId: call.id,
        toolName: call.name,
        output: result.output,
        isError: result.isError,
        resumed: true,
      });
    }
    const message: Message = { role: 'tool', content: results };
    writes.defer({ messages: [message] });
    await checkpoint(run, writes);
    return [...history, message];
  }

  async function finish(
    run: Run,
    fence: number,
    writes: WriteBehind,
    outcome: RunOutcome,
    totals: { usage?: Usage; toolCallCount?: number } = {},
    webhooks?: readonly WebhookConfig[] | null,
  ): Promise<void> {
    // A failed run's status is written even when what the attempt put off was lost; any other end
    // needs those writes, and their failure fails the attempt instead.
    const put = await writes.drain(outcome.status === 'failed' ? 'drop' : 'throw');
    // What the attempt put off (the final answer and its step), the final status and the
    // conversation's next queued run in one transaction; the next run is queued only after the
    // final status is published.
    // Stale or already final: undefined, and the put-off writes roll back with the transaction.
    // Knowing the version's webhooks (none for this status: one round trip) spares a read of them.
    const write = () =>
      finishAttempt(
        deps.db,
        run,
        fence,
        {
          status: outcome.status,
          ...(outcome.error ? { error: outcome.error } : {}),
          ...(put.update.steps ? { steps: put.update.steps } : {}),
          ...(put.update.usage ? { usage: put.update.usage } : {}),
          ...totals,
        },
        { messages: put.messages, completions: put.completions },
        webhooks === undefined ? {} : { webhooks },
      );
    // The last checkpoint of the run rides in this transaction: traced as one.
    const next = await (telemetry ? telemetry.traceCheckpoint(run, write) : write());
    if (!next) return;
    telemetry?.runFinished(run, outcome.status);
    await publish(run.id, {
      type: 'run-status',
      status: outcome.status,
      ...(outcome.error ? { error: { code: outcome.error.code, message: outcome.error.message } } : {}),
      final: true,
    });
    // The conversation's next queued run goes now; if this submit is lost (Redis down), the
    // sweeper's reconciliation finds it in its turn.
    if (next.nextQueued) {
      await deps.scheduler?.submit(runJobData(next.nextQueued)).catch((error: unknown) => {
        log('warn', 'next run not submitted', { runId: next.nextQueued?.id, error: String(error) });
      });
    }
  }

  /** Parks the run until people answer; its job ends and frees the worker. */
  async function pauseForInput(
    run: Run,
    fence: number,
    writes: WriteBehind,
    result: AgentRunResult,
    webhooks?: readonly WebhookConfig[] | null,
  ): Promise<void> {
    await writes.commit((tx) =>
      checkpointRun(tx, run, fence, [], {
        usage: addUsage(run.usage, result.usage),
        toolCallCount: run.toolCallCount + result.toolCallCount,
      }),
    );
    const parked = await markRunWaiting(
      deps.db,
      run,
      fence,
      result.pending ?? [],
      webhooks === undefined ? {} : { webhooks },
    );
    if (!parked) return;
    // The loop announced `waiting` itself when the model asked; a resume that found no answer yet did not.
    if (result.steps.length === 0) await publish(run.id, { type: 'waiting', pending: result.pending ?? [] });
    await publish(run.id, { type: 'run-status', status: 'waiting', pending: result.pending ?? [] });
  }

  async function publish(runId: string, event: { type: string; final?: boolean; [k: string]: unknown }): Promise<void> {
    await deps.events?.publish(runId, event).catch((error: unknown) => {
      log('warn', 'event publish failed', { runId, error: String(error) });
    });
  }
}

/** A step that only answered (no tool calls, no nudge to follow): the run ends with it. */
function isFinalAnswer(messages: Message[]): boolean {
  return (
    messages.length === 1 &&
    messages[0]!.role === 'assistant' &&
    !messages[0]!.content.some((p) => p.type === 'tool_call')
  );
}

function waitingResult(pending: PendingInput[]): AgentRunResult {
  return { ...doneResult(), status: 'waiting', pending };
}

function doneResult(): AgentRunResult {
  return {
    status: 'completed',
    messages: [],
    steps: [],
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    toolCallCount: 0,
    durationMs: 0,
  };
}
