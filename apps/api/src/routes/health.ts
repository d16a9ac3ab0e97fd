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
  const checkDatabase = sharedCheck(deps.pingDatabase, DATABASE_CHECK_MS);
  const checkQueue = sharedCheck(() => deps.queue.ping(), QUEUE_CHECK_MS);
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
    const [database, queue] = await Promise.all([checkDatabase(), checkQueue()]);
    if (database !== 'ok') return c.json({ status: 'not_ready', checks: { database, queue } }, 503);
    // Asked once per process (then remembered): which vector search knowledge bases use.
    const vectorSearch = await deps.knowledge?.search.vectorSearch().catch(() => undefined);
    const knowledge = vectorSearch ? { vector_search: vectorSearch } : {};
    if (queue !== 'ok')
      return c.json({ status: 'degraded', checks: { database, queue }, degraded: ['queue'], ...knowledge }, 200);
    return c.json({ status: 'ready', checks: { database, queue }, ...knowledge }, 200);
  });
  return app;
}

// Both checks run at once, each bounded below 1 s: a load balancer's probe gets its answer in time
// whatever the database does (refusing, hanging mid-handshake, restarting).
const DATABASE_CHECK_MS = 800;
const QUEUE_CHECK_MS = 800;

/**
 * A check with at most one probe in flight: callers while it runs share its answer, so probes
 * cannot pile up on a hung pool. Each caller waits at most `timeoutMs`; a probe that outlives the
 * bound keeps running (a timeout cannot cancel a query) and the next probe starts once it settles.
 */
function sharedCheck(probe: () => Promise<void>, timeoutMs: number): () => Promise<string> {
  let inFlight: Promise<string> | undefined;
  return () => {
    inFlight ??= probe()
      .then(
        () => 'ok',
        (error: unknown) => `error: ${error instanceof Error ? error.message : String(error)}`,
      )
      .finally(() => {
        inFlight = undefined;
      });
    return withTimeout(inFlight, timeoutMs);
  };
}

async function withTimeout(answer: Promise<string>, timeoutMs: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve('error: timeout'), timeoutMs);
  });
  try {
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
