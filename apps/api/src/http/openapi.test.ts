import { type ErrorCode, ROUTE_ERROR_STATUS } from '@agentry/contract';
import { validate as validateOpenApi } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../test-support/harness.ts';
import { operationsOf } from '../test-support/openapi-check.ts';
import { ERROR_STATUS } from './openapi-errors.ts';

/** `/v1/agents/:id` → `/v1/agents/{id}` */
function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?\??/g, '{$1}');
}

describe('GET /openapi.json', () => {
  let h: Harness;
  let document: Record<string, any>;
  beforeAll(async () => {
    h = await startHarness('embedded', 'openai');
    const res = await fetch(`${h.platform.url}/openapi.json`);
    expect(res.status).toBe(200);
    document = await res.json();
  }, 60_000);
  afterAll(() => h?.close());

  it('covers every route the app registers, and nothing else', () => {
    const { routes } = h.platform.app;
    const registered = new Set(
      routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${openApiPath(r.path)}`),
    );
    // `ALL` entries are middleware (auth, CORS, static files) over a prefix or over routes that
    // exist with their own methods; any other `app.all()` would be an undocumented operation.
    const strayAll = routes
      .filter((r) => r.method === 'ALL' && !r.path.endsWith('/*'))
      .filter((r) => !routes.some((o) => o.method !== 'ALL' && o.path === r.path))
      .map((r) => r.path);
    const documented = new Set(operationsOf(document).map((o) => `${o.method} ${o.path}`));
    const missing = [...registered].filter((r) => !documented.has(r)).sort();
    const extra = [...documented].filter((d) => !registered.has(d)).sort();
    expect(strayAll, 'app.all() routes must be documented as their methods').toEqual([]);
    expect(missing, 'routes without doc() in their route file').toEqual([]);
    expect(extra, 'documented operations that no route serves').toEqual([]);
    expect(registered.size).toBeGreaterThan(40);
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(document.openapi).toBe('3.1.0');
    const result = await validateOpenApi(structuredClone(document) as Parameters<typeof validateOpenApi>[0]);
    expect(result.valid ? [] : result.errors).toEqual([]);
  });

  it('describes every operation: id, summary, security, parameters, body with an example, error codes', () => {
    const ids = new Set<string>();
    for (const { method, path, op } of operationsOf(document)) {
      const where = `${method} ${path}`;
      expect(op.operationId, where).toMatch(/^[a-z][A-Za-z]+$/);
      expect(ids.has(op.operationId), `${where}: operationId ${op.operationId} is used twice`).toBe(false);
      ids.add(op.operationId);
      expect(op.summary, where).toBeTruthy();
      expect(op.tags?.length, where).toBe(1);
      expect(Array.isArray(op.security), `${where}: security`).toBe(true);
      const pathParams = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const declared = (op.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name);
      expect(declared.sort(), `${where}: path parameters`).toEqual(pathParams.sort());
      for (const p of op.parameters ?? []) expect(p.description, `${where}: parameter ${p.name}`).toBeTruthy();
      if (op.requestBody) {
        const media = op.requestBody.content['application/json'];
        expect(media.schema.type, `${where}: body schema`).toBe('object');
        expect(media.example, `${where}: body example`).toBeDefined();
        expect(op['x-error-codes'], where).toContain('validation_failed');
      }
      const success = Object.keys(op.responses).filter((s) => Number(s) < 400);
      expect(success.length, `${where}: a success response`).toBeGreaterThan(0);
      // Every listed code is answered under its status, with `code` constrained to the list; no
      // internal code (the contract's INTERNAL_ERROR_STATUS) is advertised.
      for (const code of op['x-error-codes']) {
        expect(Object.hasOwn(ROUTE_ERROR_STATUS, code), `${where}: ${code} is a route code`).toBe(true);
        const status = ERROR_STATUS[code as ErrorCode];
        const response = op.responses[String(status)] ?? op.responses['400'];
        expect(JSON.stringify(response), `${where}: ${code}`).toContain(`"${code}"`);
      }
    }
  });

  it('names the error codes and security of a tenant route', () => {
    const getAgent = document.paths['/v1/agents/{id}'].get;
    expect(getAgent['x-error-codes']).toEqual(
      expect.arrayContaining(['agent_not_found', 'unauthorized', 'insufficient_scope', 'rate_limited']),
    );
    expect(getAgent.security).toEqual([{ secretKey: ['agents:read'] }, { session: ['viewer'], tenantHeader: [] }]);
    const send = document.paths['/v1/conversations/{id}/messages'].post;
    expect(send.security).toContainEqual({ publishableKey: [] });
    expect(send.security).toContainEqual({ session: ['editor'], tenantHeader: [], csrfToken: [] });
    expect(send.parameters.map((p: any) => p.name)).toEqual(
      expect.arrayContaining(['id', 'Idempotency-Key', 'X-End-User-Token']),
    );
    expect(send.responses['404'].content['application/problem+json'].schema.allOf[1].properties.code.enum).toContain(
      'conversation_not_found',
    );
    expect(document.paths['/v1/tenants'].post.security).toEqual([{ platformAdmin: [] }]);
    expect(document.paths['/healthz'].get.security).toEqual([]);
    // Anything that needs the database can meet its outage; liveness and readiness do not.
    for (const op of [getAgent, send, document.paths['/v1/runs/{id}'].get, document.paths['/v1/auth/login'].post]) {
      expect(op['x-error-codes']).toContain('database_unavailable');
      expect(JSON.stringify(op.responses['503'])).toContain('"database_unavailable"');
    }
    expect(document.paths['/healthz'].get['x-error-codes']).not.toContain('database_unavailable');
    expect(document.paths['/readyz'].get['x-error-codes']).not.toContain('database_unavailable');
    expect(document.paths['/v1/auth/logout'].post.security).toEqual([{ session: [], csrfToken: [] }]);
    // The OpenAI-compatible routes answer errors in OpenAI's shape.
    const completions = document.paths['/v1/chat/completions'].post;
    expect(completions.responses['401'].content['application/json'].schema.allOf[0].$ref).toBe(
      '#/components/schemas/OpenAIError',
    );
    // The agent config body is the published JSON Schema.
    expect(document.paths['/v1/agents'].post.requestBody.content['application/json'].schema.properties.config).toEqual({
      $ref: '#/components/schemas/AgentConfig',
    });
    expect(document.components.schemas.AgentConfig.required).toEqual(['basic_settings']);
  });

  it('serves an offline reference page at /docs', async () => {
    const page = await fetch(`${h.platform.url}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('src="/docs/scalar.js"');
    expect(html).toContain('/openapi.json');
    expect(html).not.toMatch(/https?:\/\/(?!json-schema\.org)/);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/https?:/);
    const script = await fetch(`${h.platform.url}/docs/scalar.js`);
    expect([script.status, script.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
    expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
  });
});
