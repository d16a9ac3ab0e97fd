import { randomBytes } from 'node:crypto';
import type { PendingInput } from '@agentry/agent';
import { compileAgent, loadAgentConfig } from '@agentry/config';
import {
  answerWaitingRun,
  FINAL_RUN_STATUSES,
  finishRunUnfenced,
  getAgentVersion,
  getRun,
  type HumanAnswer,
  isId,
  listRunMessages,
  type Run,
  requestCancel,
} from '@agentry/db';
import { errors } from '@agentry/errors';
import type { ToolCallPart } from '@agentry/llm';
import { unansweredInput } from '@agentry/runner';
import { Hono } from 'hono';
import { z } from 'zod';
import type { ApiDeps } from '../deps.ts';
import { type AuthVariables, assertAgentAllowed, type Principal } from '../http/auth.ts';
import { readJson } from '../http/body.ts';
import { streamRunEvents } from '../http/run-stream.ts';
import { forPrincipal, runView } from '../http/views.ts';

const ToolResults = z.strictObject({
  results: z
    .array(
      z.strictObject({
        tool_call_id: z.string().min(1),
        output: z.unknown().optional(),
        is_error: z.boolean().optional(),
        decision: z.enum(['approve', 'decline']).optional(),
      }),
    )
    .min(1)
    .max(64),
});

function invalidAnswer(path: string, code: string, message: string) {
  return errors.validation('The answers are not valid', [{ path, code, message }]);
}

/** The calls the waiting run's last model message asked for that still need a person. */
async function pendingCalls(deps: ApiDeps, run: Run): Promise<PendingInput[]> {
  const version = await getAgentVersion(deps.db, run.tenantId, run.agentId, run.agentVersion);
  if (!version) return [];
  const { config, hash } = loadAgentConfig(version.config);
  const agent = compileAgent(config, hash);
  const last = (await listRunMessages(deps.db, run.tenantId, run.id)).findLast((m) => m.role === 'assistant');
  const calls = last?.content.filter((p): p is ToolCallPart => p.type === 'tool_call') ?? [];
  return unansweredInput(deps.db, agent, run.id, calls);
}

/** How long a cancel request waits for the run to stop before answering 202. */
const CANCEL_WAIT_MS = 3000;

export function runRoutes(deps: ApiDeps) {
  const app = new Hono<{ Variables: AuthVariables }>();
  const load = async (tenantId: string, id: string, principal: Principal) => {
    const run = isId(id) ? await getRun(deps.db, tenantId, id) : undefined;
    if (!run) throw errors.notFound('run', id);
    assertAgentAllowed(principal, run.agentId, 'run', id);
    return run;
  };

  app.get('/:id', async (c) => {
    const run = await load(c.var.tenant.id, c.req.param('id'), c.var.principal);
    return c.json(forPrincipal(c.var.principal, runView(run, await listRunMessages(deps.db, c.var.tenant.id, run.id))));
  });

  app.post('/:id/cancel', async (c) => {
    const found = await load(c.var.tenant.id, c.req.param('id'), c.var.principal);
    const run = (await requestCancel(deps.db, found.tenantId, found.id)) ?? found;
    if (run.status === 'queued' && (await finishRunUnfenced(deps.db, run.id, { status: 'cancelled' }, ['queued']))) {
      // Never started: no worker holds it, so the API ends it.
      await deps.events.publish(run.id, { type: 'run-status', status: 'cancelled', final: true });
    } else if (!FINAL_RUN_STATUSES.includes(run.status)) {
      await deps.control.cancel(run.id);
      await deps.queue.waitUntilFinished(run.id, CANCEL_WAIT_MS);
    }
    const latest = (await getRun(deps.db, run.tenantId, run.id)) ?? run;
    return c.json(
      forPrincipal(c.var.principal, runView(latest, await listRunMessages(deps.db, run.tenantId, run.id))),
      FINAL_RUN_STATUSES.includes(latest.status) ? 200 : 202,
    );
  });

  // People answer a waiting run: client tool results from the browser, or approval decisions.
  app.post('/:id/tool-results', async (c) => {
    const run = await load(c.var.tenant.id, c.req.param('id'), c.var.principal);
    const body = await readJson(c, ToolResults);
    if (run.status !== 'waiting')
      throw errors.conflict('run_not_waiting', `The run is ${run.status}, not waiting for answers`);
    const pending = await pendingCalls(deps, run);
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
    if (!(await answerWaitingRun(deps.db, run, answers)))
      throw errors.conflict('run_not_waiting', 'The run is no longer waiting');
    await deps.events.publish(run.id, { type: 'run-status', status: 'queued' });
    // A fresh job id: the job that ran until the pause may still be kept by the queue.
    await deps.queue.enqueue(`${run.id}-${randomBytes(4).toString('hex')}`, { runId: run.id, tenantId: run.tenantId });
    const latest = (await getRun(deps.db, run.tenantId, run.id)) ?? run;
    return c.json(
      forPrincipal(c.var.principal, runView(latest, await listRunMessages(deps.db, run.tenantId, run.id))),
      202,
    );
  });

  app.get('/:id/events', async (c) =>
    streamRunEvents(c, deps.events, await load(c.var.tenant.id, c.req.param('id'), c.var.principal)),
  );
  return app;
}
