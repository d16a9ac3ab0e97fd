import { Hono } from 'hono';
import type { ApiDeps } from '../deps.ts';
import { doc, ref } from '../http/openapi.ts';

/**
 * Liveness (`/healthz`: the process answers) and readiness (`/readyz`). Readiness depends on what
 * the API needs to serve at all, the database: a Redis outage leaves reads, the dashboard and the
 * run pages working (writes that need the queue answer 503 `queue_unavailable` themselves), so it
 * reports the queue as a degraded component with 200 instead of taking every API pod out of the
 * load balancer at once.
 */
export function healthRoutes(deps: ApiDeps) {
  const app = new Hono();
  app.get(
    '/healthz',
    doc({
      operationId: 'getLiveness',
      tag: 'Operations',
      summary: 'Liveness: the process answers',
      auth: 'public',
      responses: { 200: { description: 'Alive', schema: ref('Health') } },
    }),
  );
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get(
    '/readyz',
    doc({
      operationId: 'getReadiness',
      tag: 'Operations',
      summary: 'Readiness: the database answers (the queue is reported, not required)',
      description:
        '`ready`: database and queue answer. `degraded` (still 200): the queue (Redis) does not, so new ' +
        'messages and answers are refused with 503 `queue_unavailable` while reads keep working. ' +
        '`not_ready` (503): the database does not answer.',
      auth: 'public',
      responses: {
        200: { description: 'Ready, or degraded (see `degraded`)', schema: ref('Readiness') },
        503: { description: 'Not ready: the database does not answer', schema: ref('Readiness') },
      },
    }),
  );
  app.get('/readyz', async (c) => {
    const [database, queue] = await Promise.all([
      check(deps.pingDatabase, DATABASE_CHECK_MS),
      check(() => deps.queue.ping(), QUEUE_CHECK_MS),
    ]);
    if (database !== 'ok') return c.json({ status: 'not_ready', checks: { database, queue } }, 503);
    if (queue !== 'ok') return c.json({ status: 'degraded', checks: { database, queue }, degraded: ['queue'] }, 200);
    return c.json({ status: 'ready', checks: { database, queue } }, 200);
  });
  return app;
}

// Both bounds stay under the Kubernetes probe's 3 s timeout (infra/k8s/api.yaml); the checks run
// at once. The queue's is shorter: a Redis client with requests held while disconnected would
// otherwise spend the whole bound on every probe.
const DATABASE_CHECK_MS = 2000;
const QUEUE_CHECK_MS = 1000;

async function check(probe: () => Promise<void>, timeoutMs: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
      }),
    ]);
    return 'ok';
  } catch (error) {
    return `error: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    clearTimeout(timer);
  }
}
