import { createHash, timingSafeEqual } from 'node:crypto';
import { errors } from '@agentry/errors';
import type { AgentryMetrics } from '@agentry/telemetry';
import { Hono } from 'hono';
import { doc } from '../http/openapi.ts';

export interface MetricsRouteOptions {
  metrics: AgentryMetrics;
  /** `METRICS_TOKEN`: when set, scrapes must send `Authorization: Bearer <token>`. */
  token?: string;
}

/**
 * `GET /metrics`: the process's Prometheus metrics (text exposition format). Open unless a token is
 * configured; the labels carry no tenant or run ids either way.
 *
 * @example
 * app.route('/', metricsRoutes({ metrics: processMetrics(), token: config.metricsToken }));
 */
export function metricsRoutes(options: MetricsRouteOptions): Hono {
  const app = new Hono();
  const expected = options.token ? digest(options.token) : undefined;
  app.get(
    '/metrics',
    doc({
      operationId: 'getMetrics',
      tag: 'Operations',
      summary: 'Prometheus metrics (no tenant or run ids in labels)',
      auth: 'metrics',
      responses: { 200: { description: 'Text exposition format', contentType: 'text/plain' } },
    }),
  );
  app.get('/metrics', async (c) => {
    if (expected) {
      const given = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '')?.[1];
      if (!given || !timingSafeEqual(digest(given), expected))
        throw errors.unauthorized('Send the metrics token as `Authorization: Bearer …`');
    }
    const { registry } = options.metrics;
    return c.body(await registry.metrics(), 200, { 'content-type': registry.contentType });
  });
  return app;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
