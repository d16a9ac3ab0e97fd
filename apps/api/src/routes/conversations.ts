import { randomBytes } from 'node:crypto';
import { compileAgent, contextIssues, loadAgentConfig } from '@agentry/config';
import {
  createConversation,
  createRunForMessage,
  type Db,
  deleteConversation,
  deleteRun,
  getAgent,
  getAgentVersion,
  getConversation,
  getRun,
  isId,
  listConversations,
  listMessages,
  listRunMessages,
} from '@agentry/db';
import { errors } from '@agentry/errors';
import { openSecrets, resolveModel } from '@agentry/runner';
import { Hono } from 'hono';
import { z } from 'zod';
import type { ApiDeps } from '../deps.ts';
import { audit } from '../http/audit.ts';
import { type AuthVariables, assertAgentAllowed, assertEndUserAllowed, type Principal } from '../http/auth.ts';
import { readJson } from '../http/body.ts';
import { assertDailyQuota } from '../http/limits.ts';
import { pageOf, readPage } from '../http/pagination.ts';
import { streamRunEvents } from '../http/run-stream.ts';
import { conversationView, forPrincipal, messageView, runView, visitorMessageView } from '../http/views.ts';

const MAX_MESSAGE_CHARS = 32_000;

const NewConversation = z.strictObject({
  agent_id: z.string(),
  agent_version: z.number().int().positive().optional(),
  context: z.record(z.string(), z.unknown()).optional(),
});

const NewMessage = z.strictObject({ content: z.string().trim().min(1).max(MAX_MESSAGE_CHARS) });

async function loadConversation(db: Db, principal: Principal, tenantId: string, id: string) {
  const conversation = isId(id) ? await getConversation(db, tenantId, id) : undefined;
  if (!conversation) throw errors.notFound('conversation', id);
  assertAgentAllowed(principal, conversation.agentId, 'conversation', id);
  assertEndUserAllowed(principal, conversation.context, id);
  return conversation;
}

/** Conversations, their messages, and the runs a message starts. */
export function conversationRoutes(deps: ApiDeps) {
  const app = new Hono<{ Variables: AuthVariables }>();

  app.post('/', async (c) => {
    const body = await readJson(c, NewConversation);
    const tenantId = c.var.tenant.id;
    const agent = isId(body.agent_id) ? await getAgent(deps.db, tenantId, body.agent_id) : undefined;
    if (!agent) throw errors.notFound('agent', body.agent_id);
    assertAgentAllowed(c.var.principal, agent.id, 'agent', body.agent_id);
    if (body.agent_version !== undefined && !(await getAgentVersion(deps.db, tenantId, agent.id, body.agent_version))) {
      throw errors.notFound('agent_version', String(body.agent_version));
    }
    const versionNumber = body.agent_version ?? agent.publishedVersion;
    const version = versionNumber ? await getAgentVersion(deps.db, tenantId, agent.id, versionNumber) : undefined;
    if (!version) {
      throw errors.conflict('agent_not_published', 'The agent has no published version; publish one or name a version');
    }
    const { config, hash } = loadAgentConfig(version.config);
    const issues = contextIssues(compileAgent(config, hash).contextVariables, body.context ?? {});
    if (issues.length > 0)
      throw errors.validation('The conversation context does not match the agent', issues, 'invalid_context');
    const conversation = await createConversation(deps.db, {
      tenantId,
      agentId: agent.id,
      agentVersion: body.agent_version ?? null,
      context: trustedContext(c.var.principal, body.context ?? {}),
    });
    return c.json(conversationView(conversation), 201);
  });

  app.get('/', async (c) => {
    const page = readPage(c);
    const agentId = c.req.query('agent_id');
    if (agentId !== undefined && !isId(agentId)) return c.json(pageOf([], page, conversationView));
    const rows = await listConversations(deps.db, c.var.tenant.id, {
      ...page,
      limit: page.limit + 1,
      ...(agentId ? { agentId } : {}),
    });
    return c.json(pageOf(rows, page, conversationView));
  });

  app.get('/:id', async (c) => {
    const conversation = await loadConversation(deps.db, c.var.principal, c.var.tenant.id, c.req.param('id'));
    const messages = await listMessages(deps.db, c.var.tenant.id, conversation.id);
    const visitor = c.var.principal.kind === 'publishable';
    return c.json({
      ...conversationView(conversation),
      messages: messages.map(visitor ? visitorMessageView : messageView),
    });
  });

  app.delete('/:id', async (c) => {
    const id = c.req.param('id');
    if (!isId(id) || !(await deleteConversation(deps.db, c.var.tenant.id, id)))
      throw errors.notFound('conversation', id);
    await audit(deps.db, c, 'conversation.deleted', { type: 'conversation', id });
    return c.body(null, 204);
  });

  app.post('/:id/messages', async (c) => {
    const tenantId = c.var.tenant.id;
    const conversation = await loadConversation(deps.db, c.var.principal, tenantId, c.req.param('id'));
    const body = await readJson(c, NewMessage);
    const agent = await getAgent(deps.db, tenantId, conversation.agentId);
    const versionNumber = conversation.agentVersion ?? agent?.publishedVersion;
    const version =
      agent && versionNumber ? await getAgentVersion(deps.db, tenantId, agent.id, versionNumber) : undefined;
    if (!version) throw errors.conflict('agent_not_published', 'The conversation’s agent has no published version');
    await assertDailyQuota(deps.db, c.var.tenant);
    const { config, hash } = loadAgentConfig(version.config);
    const compiled = compileAgent(config, hash);
    // Fail before writing anything when the agent's model or secrets cannot be had.
    const secrets = await openSecrets(deps.db, deps.secretBox, tenantId, compiled.requiredSecrets);
    const apiKey = compiled.model.apiKeySecret ? secrets[compiled.model.apiKeySecret] : undefined;
    resolveModel({ ...compiled.model, ...(apiKey ? { apiKey } : {}) }, deps.models);

    const { run, interrupted } = await createRunForMessage(deps.db, {
      tenantId,
      conversationId: conversation.id,
      agentId: version.agentId,
      agentVersion: version.version,
      traceId: randomBytes(16).toString('hex'),
      message: { role: 'user', content: [{ type: 'text', text: body.content }] },
      policy: compiled.busyPolicy,
    });
    for (const active of interrupted) await deps.control.cancel(active.id).catch(() => {});
    try {
      await deps.queue.enqueue(run.id, { runId: run.id, tenantId });
    } catch (error) {
      // The run could not be queued: remove what this request wrote so nothing is half-written.
      await deleteRun(deps.db, tenantId, run.id);
      throw error;
    }
    if (wantsStream(c.req.header('accept'))) {
      c.header('location', `/v1/runs/${run.id}`);
      return streamRunEvents(c, deps.events, run);
    }
    if (/\brespond-async\b/i.test(c.req.header('prefer') ?? '')) {
      c.header('location', `/v1/runs/${run.id}`);
      c.header('preference-applied', 'respond-async');
      return c.json(forPrincipal(c.var.principal, runView(run, [])), 202);
    }
    const outcome = await deps.queue.waitUntilFinished(run.id, deps.runWaitMs);
    const stored = await getRun(deps.db, tenantId, run.id);
    if (!stored) throw errors.notFound('run', run.id);
    const view = forPrincipal(c.var.principal, runView(stored, await listRunMessages(deps.db, tenantId, run.id)));
    if (outcome === 'timeout' || stored.status === 'queued' || stored.status === 'running') {
      c.header('location', `/v1/runs/${run.id}`);
      return c.json(view, 202);
    }
    return c.json(view, 200);
  });

  return app;
}

function wantsStream(accept: string | undefined): boolean {
  return /\btext\/event-stream\b/i.test(accept ?? '');
}

/**
 * `userId` is trusted only from a verified end-user token (visitors) or a secret key (the
 * tenant's servers); a visitor cannot claim to be someone by putting it in the context.
 */
function trustedContext(principal: Principal, context: Record<string, unknown>): Record<string, unknown> {
  if (principal.kind !== 'publishable') return context;
  const { userId: _claimed, ...rest } = context;
  return principal.endUserId ? { ...rest, userId: principal.endUserId } : rest;
}
