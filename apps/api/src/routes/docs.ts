import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Scalar } from '@scalar/hono-api-reference';
import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import { doc, openApiDocument } from '../http/openapi.ts';

/** Scalar's single-file browser build, served from node_modules so the docs need no CDN. */
export const scalarBundlePath = join(
  dirname(fileURLToPath(import.meta.resolve('@scalar/api-reference'))),
  'browser/standalone.js',
);

/**
 * `GET /openapi.json` (the OpenAPI 3.1 document of `api`, generated once from the routes' `doc()`)
 * and `GET /docs` (an API reference page). Both public. The page loads only from this origin: its
 * CSP allows no other host, so the reference neither phones home nor sends tried-out requests
 * (with their keys) through a third-party proxy.
 *
 * @example
 * app.route('/', docsRoutes(app));
 */
export function docsRoutes(api: Hono) {
  const app = new Hono();
  let document: Promise<Record<string, unknown>> | undefined;
  let bundle: Promise<Buffer> | undefined;

  app.get(
    '/openapi.json',
    doc({
      operationId: 'getOpenApiDocument',
      tag: 'Documentation',
      summary: 'This OpenAPI 3.1 document',
      auth: 'public',
      responses: { 200: { description: 'The OpenAPI document', schema: { type: 'object' } } },
    }),
    async (c) => {
      // Generated once; a failure (a route naming an unknown error code) is retried next time.
      document ??= openApiDocument(api).catch((error: unknown) => {
        document = undefined;
        throw error;
      });
      c.header('cache-control', 'public, max-age=300');
      return c.json(await document);
    },
  );

  const docsPage = secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      // The page's inline script starts the reference; everything else comes from this origin.
      scriptSrc: ["'self'", "'unsafe-inline'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      fontSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      frameAncestors: ["'none'"],
      baseUri: ["'self'"],
      formAction: ["'none'"],
    },
    referrerPolicy: 'no-referrer',
  });
  app.get(
    '/docs',
    doc({
      operationId: 'getApiReference',
      tag: 'Documentation',
      summary: 'The API reference (HTML), rendered from /openapi.json; works offline',
      auth: 'public',
      responses: { 200: { description: 'An HTML page', contentType: 'text/html' } },
    }),
    docsPage,
    Scalar({
      url: '/openapi.json',
      cdn: '/docs/scalar.js',
      pageTitle: 'Agentry API',
      withDefaultFonts: false,
      telemetry: false,
      hideClientButton: true,
      showDeveloperTools: 'never',
      agent: { disabled: true },
      mcp: { disabled: true },
    } as Parameters<typeof Scalar>[0]),
  );

  app.get(
    '/docs/scalar.js',
    doc({
      operationId: 'getApiReferenceScript',
      tag: 'Documentation',
      summary: 'The reference page’s script (Scalar, served locally)',
      auth: 'public',
      responses: { 200: { description: 'JavaScript', contentType: 'text/javascript' } },
    }),
    async (c) => {
      bundle ??= readFile(scalarBundlePath);
      return c.body(new Uint8Array(await bundle), 200, {
        'content-type': 'text/javascript; charset=utf-8',
        'cache-control': 'public, max-age=86400',
        'x-content-type-options': 'nosniff',
      });
    },
  );
  return app;
}
