import { errors, toAppError } from '@agentry/errors';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ApiDeps } from './deps.ts';
import { type AuthVariables, requireTenantKey } from './http/auth.ts';
import { MAX_BODY_BYTES } from './http/body.ts';
import { problemResponse } from './http/problem.ts';
import { agentRoutes } from './routes/agents.ts';
import { conversationRoutes } from './routes/conversations.ts';
import { dashboardRoutes } from './routes/dashboard.ts';
import { healthRoutes } from './routes/health.ts';
import { runRoutes } from './routes/runs.ts';
import { tenantRoutes } from './routes/tenants.ts';

/**
 * The HTTP API. Every error leaves through one `onError` as problem+json with a stable `code`.
 *
 * @example
 * const app = createApp(deps);
 * const res = await app.request('/healthz');
 */
export function createApp(deps: ApiDeps): Hono {
  const app = new Hono();

  app.onError((error, c) => {
    const appError = toAppError(error);
    if (appError.status >= 500)
      deps.logger.error({ err: appError.cause ?? appError, path: c.req.path }, appError.message);
    return problemResponse(c, appError);
  });
  app.notFound((c) =>
    problemResponse(c, errors.badRequest('route_not_found', `No route for ${c.req.method} ${c.req.path}`, undefined)),
  );

  app.route('/', healthRoutes(deps));
  app.route('/dashboard', dashboardRoutes());

  const v1 = new Hono<{ Variables: AuthVariables }>();
  v1.use(
    '*',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => {
        throw errors.payloadTooLarge(MAX_BODY_BYTES);
      },
    }),
  );
  v1.route('/tenants', tenantRoutes(deps));
  const tenantScoped = new Hono<{ Variables: AuthVariables }>();
  tenantScoped.use('*', requireTenantKey(deps.db));
  tenantScoped.route('/agents', agentRoutes(deps));
  tenantScoped.route('/conversations', conversationRoutes(deps));
  tenantScoped.route('/runs', runRoutes(deps));
  v1.route('/', tenantScoped);
  app.route('/v1', v1);
  return app;
}
