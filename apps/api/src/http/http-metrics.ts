import type { AgentryMetrics } from '@agentry/telemetry';
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Observes every request's duration into `agentry_http_request_duration_seconds`, labelled with the
 * matched route pattern (`/v1/runs/:id`, never the raw path, so label values stay a bounded set),
 * the method and the status. A request that matched no handler reports the pattern of the last
 * middleware it went through (e.g. `/*`).
 *
 * @example
 * app.use('*', httpMetrics(processMetrics()));
 */
export function httpMetrics(metrics: AgentryMetrics): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      metrics.httpRequestDuration.observe(
        {
          method: METHODS.has(c.req.method) ? c.req.method : 'OTHER',
          route: routePath(c),
          status: String(c.res.status),
        },
        (performance.now() - started) / 1000,
      );
    }
  };
}
