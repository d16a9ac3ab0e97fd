import { errors, toAppError } from '@agentry/errors';
import { createRunService } from '@agentry/run-service';
import { type AgentryMetrics, processMetrics } from '@agentry/telemetry';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { requestId } from 'hono/request-id';
import type { ApiDeps } from './deps.ts';
import { admit, createAdmission, runBacklog } from './http/admission.ts';
import { type AuthVariables, requireTenantKey } from './http/auth.ts';
import { MAX_BODY_BYTES } from './http/body.ts';
import { httpMetrics } from './http/http-metrics.ts';
import { DEFAULT_IDEMPOTENCY_LEASE_MS, idempotency } from './http/idempotency.ts';
import { rateLimit } from './http/limits.ts';
import { problemResponse } from './http/problem.ts';
import { requestLogger } from './http/request-logger.ts';
import { accountEmailRoutes } from './routes/account-emails.ts';
import { agentTestRoutes } from './routes/agent-tests.ts';
import { agentRoutes } from './routes/agents.ts';
import { apiKeyRoutes } from './routes/api-keys.ts';
import { auditRoutes } from './routes/audit.ts';
import { authRoutes } from './routes/auth.ts';
import { chatCompletionRoutes } from './routes/chat-completions.ts';
import { conversationRoutes } from './routes/conversations.ts';
import { dashboardRoutes } from './routes/dashboard.ts';
import { demoContactRoutes, demoEndpointRoutes } from './routes/demo.ts';
import { docsRoutes } from './routes/docs.ts';
import { handoffRoutes } from './routes/handoff.ts';
import { healthRoutes } from './routes/health.ts';
import { inboxRoutes } from './routes/inbox.ts';
import { invitationRoutes } from './routes/invitations.ts';
import {
  documentTooLarge,
  KNOWLEDGE_DOCUMENTS_PATH,
  knowledgeBaseRoutes,
  MULTIPART_OVERHEAD_BYTES,
} from './routes/knowledge-bases.ts';
import { memberRoutes } from './routes/members.ts';
import { metricsRoutes } from './routes/metrics.ts';
import { modelProviderRoutes } from './routes/model-providers.ts';
import { OPENAI_PATHS, openAiErrorResponse } from './routes/openai-errors.ts';
import { runRoutes } from './routes/runs.ts';
import { secretRoutes } from './routes/secrets.ts';
import { tenantRoutes } from './routes/tenants.ts';
import {
  importBodyTooLarge,
  TOOL_IMPORT_MAX_BODY_BYTES,
  TOOL_IMPORT_PATH,
  toolImportRoutes,
} from './routes/tool-import.ts';
import { usageRoutes } from './routes/usage.ts';
import { webhookDeliveryRoutes } from './routes/webhook-deliveries.ts';
import { widgetRoutes } from './routes/widget.ts';
import { widgetScriptRoutes } from './routes/widget-script.ts';

/** Observability of the HTTP layer: which metrics `/metrics` serves and who may scrape them. */
export interface AppObservability {
  /** Default: the process's `processMetrics()`. */
  metrics?: AgentryMetrics;
  /** `METRICS_TOKEN`: when set, `GET /metrics` requires `Authorization: Bearer <token>`. */
  metricsToken?: string;
}

/**
 * The HTTP API. Every error leaves through one `onError` as problem+json with a stable `code`.
 * Every request gets an `X-Request-Id`, one log line and a duration sample by route pattern.
 *
 * @example
 * const app = createApp(deps);
 * const res = await app.request('/healthz');
 */
export function createApp(deps: ApiDeps, observability: AppObservability = {}): Hono {
  // Admission (ADMISSION_*): a bound on the /v1 requests doing database work at once, see admission.ts.
  const admission = deps.admission?.maxInFlight ? createAdmission(deps.admission) : undefined;
  // The one way a run starts, for every route that starts one.
  const runs = createRunService(deps);
  const app = new Hono();
  const metrics = observability.metrics ?? processMetrics();
  app.use('*', requestId(), requestLogger(deps.logger), httpMetrics(metrics));

  app.onError((error, c) => {
    if (OPENAI_PATHS.includes(c.req.path)) return openAiErrorResponse(deps, c, error);
    const appError = toAppError(error);
    if (appError.status >= 500)
      deps.logger.error(
        { err: appError.cause ?? appError, path: c.req.path, reqId: c.get('requestId') },
        appError.message,
      );
    return problemResponse(c, appError);
  });
  app.notFound((c) =>
    problemResponse(c, errors.badRequest('route_not_found', `No route for ${c.req.method} ${c.req.path}`, undefined)),
  );

  app.route('/', healthRoutes(deps));
  app.route(
    '/',
    metricsRoutes({ metrics, ...(observability.metricsToken ? { token: observability.metricsToken } : {}) }),
  );
  app.route('/dashboard', dashboardRoutes());
  app.route('/', widgetScriptRoutes());
  app.route('/', docsRoutes(app)); // /openapi.json and /docs: read the routes lazily, so all of them are in

  const v1 = new Hono<{ Variables: AuthVariables }>();
  // Browsers may call the API from any page; publishable keys are then held to their allowed origins.
  v1.use(
    '*',
    cors({
      origin: (origin) => origin,
      allowHeaders: ['Authorization', 'Content-Type', 'Last-Event-ID', 'Prefer', 'Idempotency-Key', 'X-End-User-Token'],
      exposeHeaders: ['Location', 'Retry-After', 'Preference-Applied'],
      maxAge: 600,
    }),
  );
  const generalBodyLimit = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw errors.payloadTooLarge(MAX_BODY_BYTES);
    },
  });
  // The tool import takes documents up to 5 MiB: its own, larger bound (answered as `import_too_large`).
  const importBodyLimit = bodyLimit({
    maxSize: TOOL_IMPORT_MAX_BODY_BYTES,
    onError: () => {
      throw importBodyTooLarge(TOOL_IMPORT_MAX_BODY_BYTES);
    },
  });
  // Document uploads take files up to the knowledge file limit: bounded before anything is buffered.
  const maxFileBytes = deps.knowledge?.settings.maxFileBytes ?? MAX_BODY_BYTES;
  const uploadBodyLimit = bodyLimit({
    maxSize: maxFileBytes + MULTIPART_OVERHEAD_BYTES,
    onError: () => {
      throw documentTooLarge(maxFileBytes);
    },
  });
  v1.use('*', (c, next) =>
    c.req.path === TOOL_IMPORT_PATH
      ? importBodyLimit(c, next)
      : c.req.method === 'POST' && KNOWLEDGE_DOCUMENTS_PATH.test(c.req.path)
        ? uploadBodyLimit(c, next)
        : generalBodyLimit(c, next),
  );
  // A request that would start a run past the backlog is refused before it waits for a turn.
  if (deps.admission?.maxQueuedRuns)
    for (const path of ['/conversations/:id/messages', '/chat/completions'])
      v1.use(
        path,
        runBacklog(() => unstartedRuns(deps), deps.admission),
      );
  if (admission) v1.use('*', admit(admission)); // after bodyLimit: it reads the body before taking a turn
  v1.route('/tenants', tenantRoutes(deps));
  v1.route('/auth', authRoutes(deps)); // before tenantScoped: signing in needs no tenant
  v1.route('/auth', accountEmailRoutes(deps));
  v1.route('/', chatCompletionRoutes(deps, runs)); // before tenantScoped: checks keys itself so errors stay OpenAI-shaped
  const tenantScoped = new Hono<{ Variables: AuthVariables }>();
  tenantScoped.use('*', requireTenantKey(deps.db, deps.secretBox, { cache: deps.apiKeyCache }));
  tenantScoped.use('*', rateLimit(deps.rateLimit));
  tenantScoped.use('*', idempotency(deps.db, { leaseMs: deps.idempotencyLeaseMs ?? DEFAULT_IDEMPOTENCY_LEASE_MS }));
  tenantScoped.route('/agents', agentRoutes(deps));
  tenantScoped.route('/agents', agentTestRoutes(deps, runs));
  tenantScoped.route('/conversations', conversationRoutes(deps, runs));
  tenantScoped.route('/conversations', handoffRoutes(deps, runs));
  tenantScoped.route('/inbox', inboxRoutes(deps));
  tenantScoped.route('/runs', runRoutes(deps, runs));
  tenantScoped.route('/secrets', secretRoutes(deps));
  tenantScoped.route('/model-providers', modelProviderRoutes(deps));
  tenantScoped.route('/knowledge-bases', knowledgeBaseRoutes(deps));
  tenantScoped.route('/usage', usageRoutes(deps));
  tenantScoped.route('/audit-events', auditRoutes(deps));
  tenantScoped.route('/api-keys', apiKeyRoutes(deps));
  tenantScoped.route('/members', memberRoutes(deps));
  tenantScoped.route('/invitations', invitationRoutes(deps));
  tenantScoped.route('/widget', widgetRoutes(deps));
  tenantScoped.route('/webhook-deliveries', webhookDeliveryRoutes(deps));
  tenantScoped.route('/tools', toolImportRoutes(deps));
  if (deps.demoContacts) {
    // The embedded mode's demo endpoint, which the seeded agent's tool calls, and its contacts.
    app.route('/demo', demoEndpointRoutes(deps.demoContacts));
    tenantScoped.route('/demo', demoContactRoutes(deps.demoContacts));
  }
  v1.route('/', tenantScoped);
  app.route('/v1', v1);
  return app;
}

/** Runs not started yet: parked by the scheduler, or dispatched and waiting (or delayed) in the queue. */
async function unstartedRuns(deps: ApiDeps): Promise<number> {
  const [parked, { waiting, delayed }] = await Promise.all([deps.scheduler.backlog(), deps.queue.counts()]);
  return parked + waiting + delayed;
}
