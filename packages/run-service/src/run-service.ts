// The one way a run starts: every entry point (messages, the OpenAI-compatible route, the widget,
// the dashboard's playground, tests) goes through it, and the worker's setup shares its version
// preparation (`agent-version.ts`).
import { randomBytes } from 'node:crypto';
import type { CompiledAgent } from '@agentry/config';
import {
  type AgentVersion,
  appendConversationMessage,
  type Conversation,
  changeConversationMode,
  createConversationWithHistory,
  type Db,
  deleteConversation,
  deleteRun,
  heldByPeople,
  type IdempotencyHold,
  insertRun,
  lockConversationForRun,
  type Run,
  type StoredMessage,
  type Tenant,
  withTenantScope,
} from '@agentry/db';
import { errors } from '@agentry/errors';
import type { Message } from '@agentry/llm';
import type { ModelProviderSettings } from '@agentry/models';
import { type RunScheduler, runJobData } from '@agentry/queue';
import type { RunControl, RunEventBus } from '@agentry/run-events';
import type { SecretBox } from '@agentry/secrets';
import { compileVersion, type PreparedVersion, prepareVersion, versionModel } from './agent-version.ts';
import { busyDecision } from './busy-policy.ts';
import { type CancelRunOptions, cancelRun } from './cancel-run.ts';
import { assertDailyQuota } from './daily-quota.ts';
import { sealEndUser, type VerifiedEndUser } from './end-user.ts';
import { announce, conversationSummary, modeEvent, streamedMessage } from './handoff-events.ts';
import { loadTenantModelSettings } from './tenant-models.ts';
import { openSecrets } from './tenant-secrets.ts';

export interface RunServiceDeps {
  db: Db;
  /** Where a started run goes: dispatched when its tenant has a free slot, else parked. */
  scheduler: RunScheduler;
  /** Signals the workers of runs a message interrupts. */
  control: RunControl;
  models: ModelProviderSettings;
  secretBox?: SecretBox | undefined;
  /** Where a message held for people is announced (the inbox and conversation streams). */
  events?: RunEventBus | undefined;
}

/**
 * How a message was taken: a run started (`run`), or — while people hold the conversation or wait
 * to (issue 21) — the message was stored for them and no run started (`held`).
 */
export type MessageRunResult =
  | { run: Run; interrupted: Run[]; held?: undefined }
  | { run?: undefined; held: StoredMessage; conversation: Conversation };

/** A user's message to an existing conversation. */
export interface MessageRunRequest {
  tenant: Tenant;
  conversationId: string;
  /** The message, read once the conversation is found (so an unknown one answers 404 before a bad body). */
  message: () => Message | Promise<Message>;
  /** Checks the caller may use the conversation (undefined: not found); throw to write nothing. */
  authorize?: (conversation: Conversation | undefined) => void;
  /** Taken after every check, just before the writes (e.g. an event-stream slot); throw to write nothing. */
  beforeWrite?: () => Promise<void>;
  /** The request's Idempotency-Key: the run is linked to it in the same commit. */
  idempotency?: IdempotencyHold | undefined;
  /**
   * The request's verified end user for this conversation (the caller decides whose values a run of
   * it may use): what the agent's tools may read of it is sealed on the run.
   */
  endUser?: (conversation: Conversation) => VerifiedEndUser | undefined;
  traceId?: string;
}

/** A new conversation (earlier turns, then the user's message) with its first run. */
export interface ConversationRunRequest {
  tenant: Tenant;
  agentId: string;
  version: AgentVersion;
  /** Whether the conversation keeps to this version (else it follows the published one). */
  pinned: boolean;
  /** The conversation's context, from what the agent declares; throw to write nothing. */
  context: (agent: CompiledAgent) => Record<string, unknown>;
  history: Message[];
  message: Message;
  /** The request's verified end user: what the agent's tools may read of it is sealed on the run. */
  endUser?: VerifiedEndUser | undefined;
  traceId?: string;
}

export interface RunService {
  /** A version ready to run (checked, compiled, secrets, model), or why not. */
  prepare(
    db: Db,
    tenantId: string,
    version: Pick<AgentVersion, 'id' | 'contentHash' | 'config'>,
  ): Promise<PreparedVersion>;
  /**
   * Starts the run of a message: checks (conversation, published version, quota, config, secrets,
   * model, busy policy) and writes in one transaction, then interrupts, then queues. Nothing is
   * written when a check fails; the run is removed when it cannot be queued (503 `queue_unavailable`).
   */
  startMessageRun(request: MessageRunRequest): Promise<MessageRunResult>;
  /** Starts a new conversation's first run; the conversation is removed when the run cannot start. */
  startConversationRun(request: ConversationRunRequest): Promise<{ run: Run; conversation: Conversation }>;
  /** Stops a run wherever it is ({@link cancelRun}); the run as it is now. */
  cancel(run: Run, options?: CancelRunOptions): Promise<Run>;
}

/**
 * The run service over the database, the scheduler and the platform's model settings.
 *
 * @example
 * const runs = createRunService({ db, scheduler, control, models, secretBox });
 * const { run } = await runs.startMessageRun({ tenant, conversationId, message: () => message });
 */
export function createRunService(deps: RunServiceDeps): RunService {
  const { db } = deps;

  async function startMessageRun(request: MessageRunRequest): Promise<MessageRunResult> {
    const { tenant, conversationId } = request;
    const started = await withTenantScope(db, tenant.id, async (tx, commitAhead) => {
      const found = await lockConversationForRun(tx, tenant.id, conversationId);
      request.authorize?.(found?.conversation);
      if (!found) throw errors.notFound('conversation', conversationId);
      const message = await request.message();
      // People hold the conversation or are asked to: the message is theirs, the model is not called.
      if (heldByPeople(found.conversation.mode)) {
        const held = await appendConversationMessage(tx, {
          tenantId: tenant.id,
          conversationId,
          role: 'user',
          content: message.content,
        });
        return { held, conversation: found.conversation };
      }
      // A resolved conversation the visitor writes to again goes back to the model.
      const reopened =
        found.conversation.mode === 'resolved'
          ? await changeConversationMode(tx, found.conversation, { to: 'bot', actor: { type: 'visitor' } })
          : undefined;
      const { version } = found;
      if (!version) {
        throw errors.conflict('agent_not_published', 'The conversation’s agent has no published version');
      }
      await assertDailyQuota(tx, tenant);
      // Fail before writing anything when the agent's model or secrets cannot be had.
      const { agent } = await prepareVersion(tx, deps, tenant, version);
      await request.beforeWrite?.();
      const { interrupt } = busyDecision(found.active, agent.busyPolicy, agent.limits.maxQueuedRuns);
      const written = await insertRun(
        tx,
        {
          tenantId: tenant.id,
          conversationId,
          agentId: version.agentId,
          agentVersion: version.version,
          traceId: request.traceId ?? newTraceId(),
          message,
          active: found.active,
          interrupt,
          idempotency: request.idempotency,
          endUser: sealEndUser(deps.secretBox, tenant.id, conversationId, agent, request.endUser?.(found.conversation)),
        },
        commitAhead,
      );
      return { run: written.run, interrupted: interrupt, reopened };
    });
    if (started.held) {
      await announce(deps.events, started.conversation, {
        type: 'visitor-message',
        ...conversationSummary(started.conversation),
        message: streamedMessage(started.held),
      });
      return { held: started.held, conversation: started.conversation };
    }
    const { run, interrupted, reopened } = started;
    if (reopened)
      await announce(deps.events, reopened.conversation, modeEvent(reopened.conversation, reopened.event, null));
    for (const active of interrupted) await deps.control.cancel(active.id).catch(() => {});
    await queueOrUndo(run, () => deleteRun(db, tenant.id, run.id));
    return { run, interrupted };
  }

  async function startConversationRun(request: ConversationRunRequest) {
    const { tenant, version } = request;
    const { agent } = compileVersion(version);
    const context = request.context(agent);
    const secrets = await openSecrets(db, deps.secretBox, tenant.id, agent.requiredSecrets);
    versionModel(agent, secrets, await loadTenantModelSettings(db, deps, tenant));
    await assertDailyQuota(db, tenant);
    const conversation = await createConversationWithHistory(db, {
      tenantId: tenant.id,
      agentId: request.agentId,
      agentVersion: request.pinned ? version.version : null,
      context,
      history: request.history,
    });
    const undo = () => deleteConversation(db, tenant.id, conversation.id).then(() => undefined);
    let run: Run;
    try {
      ({ run } = await withTenantScope(db, tenant.id, async (tx, commitAhead) => {
        const found = await lockConversationForRun(tx, tenant.id, conversation.id);
        if (!found) throw errors.notFound('conversation', conversation.id);
        return insertRun(
          tx,
          {
            tenantId: tenant.id,
            conversationId: conversation.id,
            agentId: request.agentId,
            agentVersion: version.version,
            traceId: request.traceId ?? newTraceId(),
            message: request.message,
            active: found.active,
            interrupt: [],
            endUser: sealEndUser(deps.secretBox, tenant.id, conversation.id, agent, request.endUser),
          },
          commitAhead,
        );
      }));
    } catch (error) {
      await undo();
      throw error;
    }
    await queueOrUndo(run, undo);
    return { run, conversation };
  }

  /** Queues a written run; when that fails, removes what was written so nothing is half-done. */
  async function queueOrUndo(run: Run, undo: () => Promise<void>): Promise<void> {
    try {
      await deps.scheduler.submit(runJobData(run));
    } catch (error) {
      await undo();
      throw error;
    }
  }

  return {
    prepare: (tx, tenantId, version) => prepareVersion(tx, deps, tenantId, version),
    startMessageRun,
    startConversationRun,
    cancel: (run, options) => cancelRun(deps, run, options),
  };
}

function newTraceId(): string {
  return randomBytes(16).toString('hex');
}
