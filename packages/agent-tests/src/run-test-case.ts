import type { PendingInput } from '@agentry/agent';
import type { AgentTestDefinition, TestAttempt, TestTurnResult } from '@agentry/contract/schemas';
import {
  answerWaitingRun,
  createConversationWithHistory,
  FINAL_RUN_STATUSES,
  getRun,
  type HumanAnswer,
  heartbeatTestRun,
  listRunMessages,
  type Run,
  type Tenant,
  type TestRunRow,
} from '@agentry/db';
import { isAppError } from '@agentry/errors';
import type { ModelProviderSettings } from '@agentry/models';
import { modelCost } from '@agentry/models';
import { type RunScheduler, runJobData } from '@agentry/queue';
import { type RunEventBus, RunEventBusUnavailableError, type RunEventRecord } from '@agentry/run-events';
import type { RunService } from '@agentry/run-service';
import { checkExpectations } from './expectations.ts';
import { fixtureFor } from './fixtures.ts';
import type { Judge, Verdict } from './judge.ts';
import { observeTurn } from './observe.ts';

/** What playing one case needs: the run service starts its turns as any message's run. */
export interface CaseDependencies {
  db: Parameters<typeof getRun>[0];
  runs: RunService;
  scheduler: RunScheduler;
  events: RunEventBus;
  models: Pick<ModelProviderSettings, 'prices'>;
  /** How long one turn may take, waiting for people's input answered from fixtures included. */
  turnTimeoutMs: number;
}

/** The test run was cancelled (or vanished) while a case played. */
export class TestRunStopped extends Error {
  constructor() {
    super('The test run was cancelled');
    this.name = 'TestRunStopped';
  }
}

/** An attempt with its cost, for the run's totals. */
export interface PlayedAttempt extends TestAttempt {
  costUsd: number | null;
}

/**
 * Plays one repetition of a case: a test conversation pinned to the run's version (its tools
 * answered from the case's fixtures, its model the run's choice), one real run per user turn
 * through the run service and the workers — the same path customers' messages take — then each
 * turn's expectations checked against what its run wrote. A run that parks for people is answered
 * from the fixtures (client tools' results, approvals' decisions). A turn whose run does not
 * complete ends the attempt, failed, with the reason.
 *
 * @example
 * const attempt = await playCase(deps, { tenant, testRun, definition, repetition: 1, judge });
 */
export async function playCase(
  deps: CaseDependencies,
  input: { tenant: Tenant; testRun: TestRunRow; definition: AgentTestDefinition; repetition: number; judge?: Judge },
): Promise<PlayedAttempt> {
  const { tenant, testRun, definition } = input;
  const conversation = await createConversationWithHistory(deps.db, {
    tenantId: tenant.id,
    agentId: testRun.agentId,
    agentVersion: testRun.agentVersion,
    context: definition.context ?? {},
    history: [],
    test: {
      testRunId: testRun.id,
      fixtures: definition.fixtures,
      ...(testRun.model !== 'agent' ? { model: testRun.model } : {}),
    },
  });
  const attempt: PlayedAttempt = {
    repetition: input.repetition,
    passed: false,
    conversation_id: conversation.id,
    turns: [],
    error: null,
    usage: { input_tokens: 0, output_tokens: 0 },
    costUsd: 0,
  };
  const transcript: string[] = [];
  const addCost = (cost: number | null) => {
    attempt.costUsd = attempt.costUsd === null || cost === null ? null : attempt.costUsd + cost;
  };
  for (const turn of definition.turns) {
    if (!(await heartbeatTestRun(deps.db, tenant.id, testRun.id))) throw new TestRunStopped();
    const played = await playTurn(deps, tenant, conversation.id, turn.user, definition);
    if ('error' in played) {
      attempt.error = played.error;
      break;
    }
    const { run, seen } = played;
    for (const step of run.steps) {
      attempt.usage.input_tokens += step.usage.inputTokens;
      attempt.usage.output_tokens += step.usage.outputTokens;
      addCost(modelCost(deps.models, step.provider ?? '', step.model ?? '', step.usage));
    }
    transcript.push(`User: ${turn.user}`, `Assistant: ${seen.reply || '(no reply)'}`);
    const { results, verdicts } = await checkExpectations(seen, turn.expect, {
      ...(input.judge ? { judge: input.judge } : {}),
      transcript: transcript.join('\n'),
    });
    for (const verdict of verdicts) addVerdict(attempt, verdict, deps, addCost);
    const completed = run.status === 'completed';
    const result: TestTurnResult = {
      user: turn.user,
      reply: seen.reply,
      run_id: run.id,
      status: run.status,
      tool_calls: seen.toolCalls.map((c) => ({
        name: c.name,
        arguments: c.arguments,
        output: c.output,
        is_error: c.isError,
        fixture: c.fixture,
      })),
      citations: seen.citations,
      flow: seen.flow,
      handoff: seen.handoff,
      expectations: results,
      passed: completed && results.every((r) => r.passed),
    };
    attempt.turns.push(result);
    if (!completed) {
      attempt.error = FINAL_RUN_STATUSES.includes(run.status)
        ? `The turn's run ended ${run.status}${run.error ? `: ${run.error.message}` : ''}`
        : `The turn's run did not end within ${Math.round(deps.turnTimeoutMs / 1000)} s (still ${run.status})`;
      break;
    }
  }
  attempt.passed =
    attempt.error === null && attempt.turns.length === definition.turns.length && attempt.turns.every((t) => t.passed);
  return attempt;
}

function addVerdict(
  attempt: PlayedAttempt,
  verdict: Verdict,
  deps: CaseDependencies,
  addCost: (cost: number | null) => void,
): void {
  attempt.usage.input_tokens += verdict.usage.inputTokens;
  attempt.usage.output_tokens += verdict.usage.outputTokens;
  addCost(modelCost(deps.models, verdict.provider, verdict.model, verdict.usage));
}

async function playTurn(
  deps: CaseDependencies,
  tenant: Tenant,
  conversationId: string,
  text: string,
  definition: AgentTestDefinition,
): Promise<{ run: Run; seen: ReturnType<typeof observeTurn> } | { error: string }> {
  let started: Awaited<ReturnType<RunService['startMessageRun']>>;
  try {
    started = await deps.runs.startMessageRun({
      tenant,
      conversationId,
      message: () => ({ role: 'user', content: [{ type: 'text', text }] }),
      ...(definition.end_user ? { endUser: () => testEndUser(definition.end_user!) } : {}),
    });
  } catch (error) {
    // A user-facing refusal (quota, model, secrets) fails the case with its reason; an outage retries the job.
    if (isAppError(error) && !error.isRetryable) return { error: `The turn could not start: ${error.message}` };
    throw error;
  }
  if (!started.run) return { error: 'The conversation is held by people; no run started' };
  const flowEvents = await followRun(deps, started.run, definition);
  const run = (await getRun(deps.db, tenant.id, started.run.id)) ?? started.run;
  // Out of time: the run is stopped, not left spending the tenant's tokens (the case reports it as it was).
  if (!FINAL_RUN_STATUSES.includes(run.status)) await deps.runs.cancel(run, { bestEffort: true });
  const messages = await listRunMessages(deps.db, tenant.id, run.id);
  return { run, seen: observeTurn(messages, flowEvents) };
}

/** A test's end user, as a verified one (the case states who the user is: there is no token to verify). */
function testEndUser(user: NonNullable<AgentTestDefinition['end_user']>) {
  return {
    sub: user.id,
    claims: { sub: user.id, ...(user.claims ?? {}) },
    token: '',
    exp: Math.floor(Date.now() / 1000) + 3600,
  };
}

/**
 * Follows a run's events to its final one, answering from the fixtures whenever it parks for
 * people; returns the `flow` events it saw. A bus outage falls back to the run's row (bounded
 * backoff) and subscribes again; past the turn's time the run is left as it is and read.
 */
async function followRun(
  deps: CaseDependencies,
  run: Run,
  definition: AgentTestDefinition,
): Promise<Array<{ flow: string; stepId?: string }>> {
  const flowEvents: Array<{ flow: string; stepId?: string }> = [];
  const deadline = AbortSignal.timeout(deps.turnTimeoutMs);
  let after: string | undefined;
  let backoffMs = 250;
  while (!deadline.aborted) {
    try {
      for await (const record of deps.events.subscribe(run.id, {
        signal: deadline,
        endWhenUnavailable: true,
        ...(after ? { after } : {}),
      })) {
        after = record.id;
        backoffMs = 250;
        const { event } = record;
        if (event.type === 'flow' && typeof event.flow === 'string') {
          flowEvents.push({ flow: event.flow, ...(typeof event.stepId === 'string' ? { stepId: event.stepId } : {}) });
        }
        if (event.final === true) return flowEvents;
        if (event.type === 'run-status' && event.status === 'waiting')
          await answerFromFixtures(deps, run, record, definition);
      }
      return flowEvents;
    } catch (error) {
      if (deadline.aborted) break;
      if (!(error instanceof RunEventBusUnavailableError)) throw error;
      // The bus is down: the row says whether the run ended meanwhile; otherwise wait and subscribe again.
      const row = await getRun(deps.db, run.tenantId, run.id);
      if (!row || FINAL_RUN_STATUSES.includes(row.status)) return flowEvents;
      await new Promise((resolve) => setTimeout(resolve, backoffMs));
      backoffMs = Math.min(backoffMs * 2, 5000);
    }
  }
  return flowEvents;
}

/** Answers a parked run's waiting calls from the case's fixtures, then queues it again. */
async function answerFromFixtures(
  deps: CaseDependencies,
  run: Run,
  record: RunEventRecord,
  definition: AgentTestDefinition,
): Promise<void> {
  const pending = Array.isArray(record.event.pending) ? (record.event.pending as PendingInput[]) : [];
  if (pending.length === 0) return;
  const answers: HumanAnswer[] = pending.map((p) => {
    const fixture = fixtureFor(definition.fixtures, { name: p.name, arguments: p.arguments });
    if (p.kind === 'approval') {
      return { toolCallId: p.tool_call_id, name: p.name, kind: 'approval', decision: fixture?.decision ?? 'approve' };
    }
    return {
      toolCallId: p.tool_call_id,
      name: p.name,
      kind: 'client',
      output: fixture
        ? (fixture.output ?? { ok: true })
        : { error: 'no_fixture', message: `This test has no fixture for ${p.name}; nothing was sent` },
      isError: fixture ? fixture.is_error === true : true,
    };
  });
  if (!(await answerWaitingRun(deps.db, run, answers))) return;
  await deps.events.publish(run.id, { type: 'run-status', status: 'queued' }).catch(() => '');
  await deps.scheduler.submit(runJobData(run));
}
