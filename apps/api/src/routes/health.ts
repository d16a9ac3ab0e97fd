import { Hono } from 'hono';
import type { ApiDeps } from '../deps.ts';
import { doc, ref } from '../http/openapi.ts';

/** Liveness (`/healthz`: the process answers) and readiness (`/readyz`: database and queue answer). */
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
      summary: 'Readiness: the database and the queue answer',
      auth: 'public',
      responses: {
        200: { description: 'Ready', schema: ref('Readiness') },
        503: { description: 'Not ready', schema: ref('Readiness') },
      },
    }),
  );
  app.get('/readyz', async (c) => {
    const [database, queue] = await Promise.all([check(deps.pingDatabase), check(() => deps.queue.ping())]);
    const ready = database === 'ok' && queue === 'ok';
    return c.json({ status: ready ? 'ready' : 'not_ready', checks: { database, queue } }, ready ? 200 : 503);
  });
  return app;
}

async function check(probe: () => Promise<void>): Promise<string> {
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000).unref()),
    ]);
    return 'ok';
  } catch (error) {
    return `error: ${error instanceof Error ? error.message : String(error)}`;
  }
}
