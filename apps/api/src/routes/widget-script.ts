import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { errors } from '@agentry/errors';
import { Hono } from 'hono';
import { doc } from '../http/openapi.ts';

/** The widget's Vite build (`pnpm --filter @agentry/widget build`). */
export const widgetScriptPath = fileURLToPath(new URL('../../../widget/dist/widget.js', import.meta.url));

/**
 * `GET /widget.js`: the embeddable chat widget, for any page (`Access-Control-Allow-Origin: *`;
 * the publishable key, not the script, decides where it works). Cached for a day and revalidated
 * by ETag; `?v=<etag>` URLs are immutable for a year.
 */
export function widgetScriptRoutes(path = widgetScriptPath) {
  const app = new Hono();
  let cached: { mtimeMs: number; body: Buffer; etag: string } | undefined;

  app.get(
    '/widget.js',
    doc({
      operationId: 'getWidgetScript',
      tag: 'Widget',
      summary: 'The embeddable chat widget script (any page; the publishable key decides where it works)',
      auth: 'public',
      query: { v: { description: 'The ETag: such URLs are cached for a year' } },
      responses: {
        200: {
          description: 'JavaScript',
          contentType: 'text/javascript',
          headers: { ETag: 'Revalidate with If-None-Match' },
        },
        304: { description: 'Not modified' },
      },
      errors: ['widget_not_built'],
    }),
  );
  app.get('/widget.js', async (c) => {
    const info = await stat(path).catch(() => undefined);
    if (!info) {
      throw errors.of({
        code: 'widget_not_built',
        message: 'The chat widget has not been built: run `pnpm --filter @agentry/widget build`',
        category: 'system',
      });
    }
    if (cached?.mtimeMs !== info.mtimeMs) {
      const body = await readFile(path);
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
      cached = { mtimeMs: info.mtimeMs, body, etag };
    }
    const immutable = c.req.query('v') === cached.etag.slice(1, -1);
    const headers = {
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': immutable
        ? 'public, max-age=31536000, immutable'
        : 'public, max-age=86400, stale-while-revalidate=604800',
      etag: cached.etag,
      'access-control-allow-origin': '*',
      'cross-origin-resource-policy': 'cross-origin',
      'x-content-type-options': 'nosniff',
    };
    if (c.req.header('if-none-match') === cached.etag) return c.body(null, 304, headers);
    return c.body(new Uint8Array(cached.body), 200, headers);
  });
  return app;
}
