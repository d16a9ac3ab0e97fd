import type { PendingInput } from '@agentry/agent';
import { ToolResultsBody } from '@agentry/contract/schemas';
import {
  answerWaitingRun,
  FINAL_RUN_STATUSES,
  getAgentVersion,
  getConversation,
  getRun,
  type HumanAnswer,
  isId,
  linkIdempotencyKey,
  listRunMessages,
  type Run,
  withTenantScope,
} from '@agentry/db';
import { errors } from '@agentry/errors';
import type { ToolCallPart } from '@agentry/llm';
import { runJobData } from '@agentry/queue';
import { compileVersion, type RunService, sealEndUser, type VerifiedEndUser } from '@agentry/run-service';
import { unansweredInput } from '@agentry/runner';
import { Hono } from 'hono';
import type { ApiDeps } from '../deps.ts';
import { type AuthVariables, assertAgentAllowed, type Principal } from '../http/auth.ts';
import { readJson } from '../http/body.ts';
import { endUserFor } from '../http/end-user.ts';
import { createdBefore, idempotencyHold } from '../http/idempotency.ts';
import { doc, type ParamDoc, ref, SSE_SCHEMA } from '../http/openapi.ts';
import { streamRunEvents } from '../http/run-stream.ts';
import { waitForRunEnd } from '../http/run-wait.ts';
import { acquireEventStream } from '../http/stream-slots.ts';
import { forPrincipal, runView } from '../http/views.ts';

function invalidAnswer(path: string, code: string, message: string) {
  return errors.validation('The answers are not valid', [{ path, code, message }]);
}

/**
 * The calls the waiting run's last model message asked for that still need a person, and what the
 * answering request's verified end user gives the run's tools (sealed; undefined: keep the run's own).
 */
async function pendingCalls(
  deps: ApiDeps,
  run: Run,
  endUser: VerifiedEndUser | undefined,
): Promise<{ pending: PendingInput[]; sealedEndUser?: string }> {
  const version = await getAgentVersion(deps.db, run.tenantId, run.agentId, run.agentVersion);
  if (!version) return { pending: [] };
  const { agent } = compileVersion(version);
  const last = (await listRunMessages(deps.db, run.tenantId, run.id)).findLast((m) => m.role === 'assistant');
  const calls = last?.content.filter((p): p is ToolCallPart => p.type === 'tool_call') ?? [];
  const pending = await unansweredInput(deps.db, agent, run, calls);
  // An answer with a (newer) verified token refreshes the values the resumed run's tools send.
  const sealed = sealEndUser(deps.secretBox, run.tenantId, run.conversationId, agent, endUser);
  return sealed ? { pending, sealedEndUser: sealed } : { pending };
}

const runId: Record<string, ParamDoc> = { id: { description: 'The run id', resource: 'run' } };
/** How long a cancel request waits for the run to stop before answering 202. */
const CANCEL_WAIT_MS = 3000;

export function runRoutes(deps: ApiDeps, runs: RunService) {
  const app = new Hono<{ Variables: AuthVariables }>();
  const load = async (tenantId: string, id: string, principal: Principal) => {
    const run = isId(id) ? await getRun(deps.db, tenantId, id) : undefined;
    if (!run) throw errors.notFound('run', id);
    assertAgentAllowed(principal, run.agentId, 'run', id);
    return run;
  };

  app.get(
    '/:id',
    doc({
      operationId: 'getRun',
      tag: 'Runs',
      summary: 'A run: status, reply, tool calls, steps, usage, timings, error',
      description: 'Publishable keys see no tool calls or steps.',
      auth: 'chat',
      path: runId,
      responses: { 200: { description: 'The run', schema: ref('Run') } },
      errors: ['run_not_found'],
    }),
  );
  app.get('/:id', async (c) => {
    const run = await load(c.var.tenant.id, c.req.param('id'), c.var.principal);
    return c.json(forPrincipal(c.var.principal, runView(run, await listRunMessages(deps.db, c.var.tenant.id, run.id))));
  });

  app.post(
    '/:id/cancel',
    doc({
      operationId: 'cancelRun',
      tag: 'Runs',
      summary: 'Cancel a run',
      auth: 'chat',
      path: runId,
      responses: {
        200: { description: 'The run has ended', schema: ref('Run') },
        202: { description: 'Cancelling: the run has not stopped yet', schema: ref('Run') },
      },
      errors: ['run_not_found'],
    }),
  );
  app.post('/:id/cancel', async (c) => {
    const found = await load(c.var.tenant.id, c.req.param('id'), c.var.principal);
    const run = await runs.cancel(found);
    // Running: its worker is stopping it; answer once it did, or 202 past the wait.
    if (!FINAL_RUN_STATUSES.includes(run.status))
      await waitForRunEnd(deps.events, run.id, CANCEL_WAIT_MS, deps.runFinishes);
    const latest = (await getRun(deps.db, run.tenantId, run.id)) ?? run;
    return c.json(
      forPrincipal(c.var.principal, runView(latest, await listRunMessages(deps.db, run.tenantId, run.id))),
      FINAL_RUN_STATUSES.includes(latest.status) ? 200 : 202,
    );
  });

  app.post(
    '/:id/tool-results',
    doc({
      operationId: 'answerRun',
      tag: 'Runs',
      summary: 'Answer a waiting run: client tool results or approval decisions',
      description: 'Every waiting call must be answered at once; the run is then queued again.',
      auth: 'chat',
      path: runId,
      body: {
        schema: ToolResultsBody,
        example: { results: [{ tool_call_id: 'call_1', decision: 'approve' }] },
      },
      responses: { 202: { description: 'The run is queued again', schema: ref('Run') } },
      errors: ['run_not_found', 'run_not_waiting'],
    }),
  );
  // People answer a waiting run: client tool results from the browser, or approval decisions.
  app.post('/:id/tool-results', async (c) => {
    const run = await load(c.var.tenant.id, c.req.param('id'), c.var.principal);
    const body = await readJson(c, ToolResultsBody);
    // A retry of a request that died after its answers were stored: the run they resumed, submitted
    // again if it has not started since (the scheduler keeps one place per run, so not twice).
    if (createdBefore(c, 'run') === run.id) {
      if (run.status === 'queued') await deps.scheduler.submit(runJobData(run));
      return c.json(
        forPrincipal(c.var.principal, runView(run, await listRunMessages(deps.db, run.tenantId, run.id))),
        202,
      );
    }
    if (run.status !== 'waiting')
      throw errors.conflict('run_not_waiting', `The run is ${run.status}, not waiting for answers`);
    const principal = c.var.principal;
    const conversation = principal.endUser
      ? await getConversation(deps.db, run.tenantId, run.conversationId)
      : undefined;
    const { pending, sealedEndUser } = await pendingCalls(deps, run, endUserFor(principal, conversation));
    const answers = body.results.map((answer, i): HumanAnswer => {
      const call = pending.find((p) => p.tool_call_id === answer.tool_call_id);
      if (!call)
        throw invalidAnswer(
          `/results/${i}/tool_call_id`,
          'unknown_tool_call',
          `The run is not waiting for ${answer.tool_call_id}`,
        );
      if (call.kind === 'approval') {
        if (!answer.decision)
          throw invalidAnswer(`/results/${i}/decision`, 'required', 'An approval needs `decision`: approve or decline');
        return { toolCallId: call.tool_call_id, name: call.name, kind: 'approval', decision: answer.decision };
      }
      if (answer.output === undefined)
        throw invalidAnswer(`/results/${i}/output`, 'required', 'A client tool result needs `output`');
      return {
        toolCallId: call.tool_call_id,
        name: call.name,
        kind: 'client',
        output: answer.output,
        isError: answer.is_error ?? false,
      };
    });
    const missing = pending.filter((p) => !answers.some((a) => a.toolCallId === p.tool_call_id));
    if (missing.length > 0) {
      throw invalidAnswer(
        '/results',
        'missing_answers',
        `Answer every waiting call: ${missing.map((m) => m.tool_call_id).join(', ')}`,
      );
    }
    // The answers and the key's link to the run commit together: a retry after a crash sees them.
    const hold = idempotencyHold(c);
    const answered = await withTenantScope(deps.db, run.tenantId, async (tx) => {
      if (!(await answerWaitingRun(tx, run, answers, sealedEndUser))) return false;
      if (hold) await linkIdempotencyKey(tx, hold, { type: 'run', id: run.id });
      return true;
    });
    if (!answered) throw errors.conflict('run_not_waiting', 'The run is no longer waiting');
    await deps.events.publish(run.id, { type: 'run-status', status: 'queued' });
    await deps.scheduler.submit(runJobData(run));
    const latest = (await getRun(deps.db, run.tenantId, run.id)) ?? run;
    return c.json(
      forPrincipal(c.var.principal, runView(latest, await listRunMessages(deps.db, run.tenantId, run.id))),
      202,
    );
  });

  app.get(
    '/:id/events',
    doc({
      operationId: 'streamRunEvents',
      tag: 'Runs',
      summary: 'The run’s events as SSE; resume with `Last-Event-ID` or `?after=`',
      auth: 'chat',
      path: runId,
      query: { after: { description: 'Continue after this event id (as `Last-Event-ID`)' } },
      headers: { 'Last-Event-ID': { description: 'Continue after this event id' } },
      responses: { 200: { description: 'The event stream', contentType: 'text/event-stream', schema: SSE_SCHEMA } },
      errors: ['run_not_found', 'too_many_streams', 'too_many_streams_for_visitor'],
    }),
  );
  app.get('/:id/events', async (c) => {
    const release = await acquireEventStream(c, deps);
    try {
      const run = await load(c.var.tenant.id, c.req.param('id'), c.var.principal);
      return streamRunEvents(c, deps.events, run, release, deps);
    } catch (error) {
      release();
      throw error;
    }
  });
  return app;
}
