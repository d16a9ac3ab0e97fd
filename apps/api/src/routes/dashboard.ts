import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errors } from '@agentry/errors';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono, type MiddlewareHandler } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import { doc } from '../http/openapi.ts';

/** The dashboard's Vite build (`pnpm --filter @agentry/dashboard build`; `pnpm start` builds it). */
export const dashboardDist = fileURLToPath(new URL('../../../dashboard/dist', import.meta.url));

/**
 * Serves the admin SPA at /dashboard. It routes by URL hash, so every path is a file of the build;
 * a strict CSP applies because the page handles tenant keys.
 */
export function dashboardRoutes() {
  const app = new Hono();
  app.use(
    '*',
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
      },
      referrerPolicy: 'no-referrer',
    }),
  );
  app.get(
    '/',
    doc({
      operationId: 'getDashboard',
      tag: 'Operations',
      summary: 'The admin dashboard (an SPA under /dashboard/)',
      auth: 'public',
      responses: { 302: { description: 'To /dashboard/', headers: { Location: '/dashboard/' } } },
      errors: ['dashboard_not_built'],
    }),
  );
  app.get('/', (c) => c.redirect('/dashboard/'));
  // Made on the first request with a build: serveStatic warns on stderr when it is created without
  // one, which every API process (and test) without a dashboard build printed.
  let serve: MiddlewareHandler | undefined;
  app.use('*', async (c, next) => {
    if (!existsSync(dashboardDist)) {
      throw errors.badRequest(
        'dashboard_not_built',
        'The dashboard has not been built: run `pnpm --filter @agentry/dashboard build`',
      );
    }
    serve ??= serveStatic({
      root: relative(process.cwd(), dashboardDist),
      rewriteRequestPath: (path) => path.replace(/^\/dashboard/, '') || '/',
    });
    return serve(c, next);
  });
  return app;
}
