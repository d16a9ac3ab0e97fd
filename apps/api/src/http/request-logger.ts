import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { Logger } from 'pino';
import type { AuthVariables } from './auth.ts';

/** Probes and scrapes, logged at debug level unless they fail. */
const QUIET_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * One JSON log line per request, once it is answered: request id (`reqId`, the `X-Request-Id` the
 * client sent or a new one, set by hono's `requestId` middleware before this one), method, matched
 * route, path, status, duration and, once the key was checked, the tenant id.
 *
 * @example
 * app.use('*', requestId(), requestLogger(logger));
 */
export function requestLogger(logger: Logger): MiddlewareHandler<{ Variables: Partial<AuthVariables> }> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const route = routePath(c);
    const status = c.res.status;
    const tenantId = c.get('tenant')?.id;
    const fields = {
      reqId: c.get('requestId'),
      method: c.req.method,
      route,
      path: c.req.path,
      status,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      ...(tenantId ? { tenantId } : {}),
    };
    const level = status >= 500 ? 'warn' : QUIET_ROUTES.has(route) && status < 400 ? 'debug' : 'info';
    logger[level](fields, 'request');
  };
}
