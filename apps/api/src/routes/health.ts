import { Hono } from 'hono';
import type { ApiDeps } from '../deps.ts';

/** Liveness (`/healthz`: the process answers) and readiness (`/readyz`: database and queue answer). */
export function healthRoutes(deps: ApiDeps) {
  const app = new Hono();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
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
