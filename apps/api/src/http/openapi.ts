import type { RouteErrorCode } from '@agentry/contract';
import type { Hono, MiddlewareHandler } from 'hono';
import { describeRoute, generateSpecs } from 'hono-openapi';
import type { z } from 'zod';
import {
  BODY_CODES,
  databaseCodes,
  ERROR_STATUS,
  IDEMPOTENCY_CODES,
  STATUS_TEXT,
  tenantAuthCodes,
} from './openapi-errors.ts';
import { componentSchemas, ref, requestSchema } from './openapi-schemas.ts';
import { scopeFor } from './scopes.ts';

/**
 * Who may call a route:
 * - `tenant`: a secret key (with the route's scope) or a dashboard session;
 * - `chat`: the same, or a publishable key from an allowed origin (the widget);
 * - `session`: a dashboard session cookie alone (no tenant: the session itself);
 * - `platform`: the operator token (`PLATFORM_ADMIN_TOKEN`);
 * - `metrics`: open, or the `METRICS_TOKEN` when one is set;
 * - `public`: anyone.
 */
export type AuthKind = 'tenant' | 'chat' | 'session' | 'platform' | 'metrics' | 'public';

export interface ParamDoc {
  description: string;
  /** Path ids: the kind of tenant resource the id names (the cross-tenant test fills in another tenant's). */
  resource?: string;
  schema?: Record<string, unknown>;
  required?: boolean;
}

export interface ResponseDoc {
  description: string;
  /** A JSON Schema, usually `ref('Agent')`; none for an empty answer. */
  schema?: Record<string, unknown>;
  /** Default `application/json`. */
  contentType?: string;
  headers?: Record<string, string>;
  /** More media types the route may answer with instead (e.g. `text/event-stream`). */
  also?: Record<string, Record<string, unknown>>;
}

export interface RouteDoc {
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  auth: AuthKind;
  path?: Record<string, ParamDoc>;
  query?: Record<string, ParamDoc>;
  headers?: Record<string, ParamDoc>;
  /** The zod schema the route validates its JSON body with, and an example body. */
  body?: { schema: z.ZodType; example: unknown; replace?: Record<string, unknown>; description?: string };
  responses: Record<number, ResponseDoc>;
  /**
   * The codes this route answers besides those of its auth kind (and of its body, when it has one);
   * never an internal code (the contract's `INTERNAL_ERROR_STATUS`), which no route answers by design.
   */
  errors?: RouteErrorCode[];
  /** `openai`: errors in OpenAI's `{error}` shape (422 answered as 400), for the OpenAI-compatible routes. */
  errorFormat?: 'problem' | 'openai';
}

/** Extensions the generator reads back; `x-error-codes` stays in the document, the others are removed. */
interface Draft {
  'x-agentry-auth': AuthKind;
  'x-agentry-body': boolean;
  'x-error-codes': RouteErrorCode[];
  'x-agentry-error-format': 'problem' | 'openai';
}

function parameters(where: 'path' | 'query' | 'header', params: Record<string, ParamDoc> = {}) {
  return Object.entries(params).map(([name, p]) => ({
    name,
    in: where,
    required: where === 'path' ? true : (p.required ?? false),
    description: p.description,
    schema: p.schema ?? { type: 'string' },
    ...(p.resource ? { 'x-agentry-resource': p.resource } : {}),
  }));
}

/**
 * Documents a route for `GET /openapi.json`: a middleware that does nothing at request time and
 * carries the route's OpenAPI description. Authentication, scope and the error codes every route
 * of its kind shares are added when the document is generated.
 *
 * @example
 * app.get('/:id', doc({ operationId: 'getAgent', tag: 'Agents', summary: 'An agent', auth: 'tenant',
 *   path: { id: { description: 'Agent id', resource: 'agent' } },
 *   responses: { 200: { description: 'The agent', schema: ref('Agent') } }, errors: ['agent_not_found'] }), handler);
 */
export function doc(route: RouteDoc): MiddlewareHandler {
  const responses = Object.fromEntries(
    Object.entries(route.responses).map(([status, r]) => [
      status,
      {
        description: r.description,
        ...(r.headers
          ? {
              headers: Object.fromEntries(
                Object.entries(r.headers).map(([name, description]) => [
                  name,
                  { description, schema: { type: 'string' } },
                ]),
              ),
            }
          : {}),
        ...(r.schema || r.contentType
          ? {
              content: {
                [r.contentType ?? 'application/json']: { schema: r.schema ?? { type: 'string' } },
                ...Object.fromEntries(Object.entries(r.also ?? {}).map(([type, schema]) => [type, { schema }])),
              },
            }
          : {}),
      },
    ]),
  );
  const draft: Draft = {
    'x-agentry-auth': route.auth,
    'x-agentry-body': route.body !== undefined,
    'x-error-codes': route.errors ?? [],
    'x-agentry-error-format': route.errorFormat ?? 'problem',
  };
  return describeRoute({
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    parameters: [
      ...parameters('path', route.path),
      ...parameters('query', route.query),
      ...parameters('header', route.headers),
    ] as never,
    ...(route.body
      ? {
          requestBody: {
            required: true,
            ...(route.body.description ? { description: route.body.description } : {}),
            content: {
              'application/json': {
                schema: requestSchema(route.body.schema, route.body.replace) as never,
                example: route.body.example,
              },
            },
          },
        }
      : {}),
    responses: responses as never,
    ...(draft as object),
  });
}

export { ref };

/** The agent id in request examples (the cross-tenant test puts another tenant's agent there). */
export const EXAMPLE_AGENT_ID = '0196f1a2-7c1e-7b3a-9d4e-123456789abc';

/** A run's event stream (`text/event-stream`). */
export const SSE_SCHEMA = {
  type: 'string',
  description:
    'Server-sent events, one per run event (`id:` resumable with `Last-Event-ID`; `event:` its type, e.g. text-delta, tool-call, tool-result, step-finished, run-status; `data:` its JSON). A final `run-status` with `final: true` ends the stream.',
};

/** `?limit=&cursor=` of the cursor-paginated lists. */
export const PAGE_QUERY: Record<string, ParamDoc> = {
  limit: { description: 'Page size, 1–100 (default 20)', schema: { type: 'integer', minimum: 1, maximum: 100 } },
  cursor: { description: 'The previous page’s `next_cursor`', schema: { type: 'string', format: 'uuid' } },
};

const SECURITY_SCHEMES = {
  secretKey: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'sk_…',
    description:
      'A tenant secret key (`POST /v1/api-keys`), for servers. The requirement lists the scope the route needs (`*` grants all).',
  },
  publishableKey: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'pk_…',
    description:
      'A publishable key, for browsers: only the chat routes, only its agents, only from its allowed origins (`Origin` header). Add `X-End-User-Token` (a JWT signed with the tenant secret END_USER_JWT_SECRET) to act as a verified end user.',
  },
  session: {
    type: 'apiKey',
    in: 'cookie',
    name: 'agentry_session',
    description:
      'A dashboard session (`POST /v1/auth/login`), together with `X-Agentry-Tenant` and, on unsafe methods, `X-CSRF-Token`. The requirement lists the least role (owner, editor, viewer).',
  },
  tenantHeader: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Agentry-Tenant',
    description: 'With a session: the tenant the request is for (one of the user’s memberships).',
  },
  csrfToken: {
    type: 'apiKey',
    in: 'header',
    name: 'X-CSRF-Token',
    description: 'With a session, on POST/PUT/PATCH/DELETE: the session’s `csrf_token`.',
  },
  platformAdmin: {
    type: 'http',
    scheme: 'bearer',
    description: 'The platform operator token (`PLATFORM_ADMIN_TOKEN`).',
  },
  metricsToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'The `METRICS_TOKEN`, when the platform sets one.',
  },
} as const;

/** How the reference lists the tags: the tenant's daily work first, operations last. */
const TAG_ORDER = [
  'Agents',
  'Agent tests',
  'Conversations',
  'Runs',
  'Inbox',
  'Secrets',
  'Model providers',
  'API keys',
  'Usage',
  'Audit',
  'Webhooks',
  'Widget',
  'OpenAI-compatible',
  'Dashboard accounts',
  'Tenants (operator)',
  'Operations',
  'Documentation',
];

const UNSAFE = new Set(['post', 'put', 'patch', 'delete']);

/** The least dashboard role allowed to call a tenant route (accounts: viewer reads, editor writes, owner administers). */
function leastRole(method: string, path: string): string {
  const resource = path.split('/')[2] ?? '';
  if (!UNSAFE.has(method)) return 'viewer';
  return ['api-keys', 'members', 'invitations'].includes(resource) ? 'owner' : 'editor';
}

function security(auth: AuthKind, method: string, path: string) {
  if (auth === 'public') return [];
  if (auth === 'platform') return [{ platformAdmin: [] }];
  if (auth === 'metrics') return [{}, { metricsToken: [] }];
  if (auth === 'session') return [{ session: [], ...(UNSAFE.has(method) ? { csrfToken: [] } : {}) }];
  const session = {
    session: [leastRole(method, path)],
    tenantHeader: [],
    ...(UNSAFE.has(method) ? { csrfToken: [] } : {}),
  };
  return [
    { secretKey: [scopeFor(method.toUpperCase(), path)] },
    session,
    ...(auth === 'chat' ? [{ publishableKey: [] }] : []),
  ];
}

function errorResponses(codes: RouteErrorCode[], format: 'problem' | 'openai') {
  const byStatus = new Map<number, RouteErrorCode[]>();
  for (const code of new Set(codes)) {
    let status: number = ERROR_STATUS[code];
    if (format === 'openai' && status === 422) status = 400;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const media = format === 'openai' ? 'application/json' : 'application/problem+json';
  const base = format === 'openai' ? 'OpenAIError' : 'Problem';
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, list]) => {
        const codeSchema = { type: 'string', enum: list };
        const schema =
          format === 'openai'
            ? { allOf: [ref(base), { properties: { error: { properties: { code: codeSchema } } } }] }
            : { allOf: [ref(base), { properties: { code: codeSchema } }] };
        const retry = status === 429 || status === 503 ? { headers: { 'Retry-After': RETRY_AFTER } } : {};
        return [
          String(status),
          {
            description: `${STATUS_TEXT[status] ?? 'Error'}: ${list.map((c) => `\`${c}\``).join(', ')}`,
            ...retry,
            content: { [media]: { schema } },
          },
        ];
      }),
  );
}

const RETRY_AFTER = { description: 'Seconds to wait before retrying', schema: { type: 'integer' } };

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Replays the first successful answer to a retry with the same key and request for 24 h (`Idempotent-Replayed: true`); the same key with another request is refused (422 `idempotency_key_reused`), one still being handled answers 409 `idempotency_key_in_use`; after `IDEMPOTENCY_LEASE_MS` without an answer the key is taken over: the retry answers with what the first request created (a message’s run, a conversation) or runs again.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

const END_USER_TOKEN = {
  name: 'X-End-User-Token',
  in: 'header',
  required: false,
  description:
    'A JWT (HS256, `sub` and `exp`) the tenant signed with its END_USER_JWT_SECRET: the request acts for that end user (conversations are then theirs alone; per-end-user rate limit).',
  schema: { type: 'string' },
};

type Operation = Record<string, unknown> & Partial<Draft> & { parameters?: Array<Record<string, unknown>> };

/** Adds what follows from an operation's auth kind, method and path: security, shared errors, headers. */
function finishOperation(method: string, path: string, op: Operation): void {
  const auth = op['x-agentry-auth'];
  if (!auth) throw new Error(`openapi: ${method.toUpperCase()} ${path} has no auth kind`);
  const format = op['x-agentry-error-format'] ?? 'problem';
  const tenant = auth === 'tenant' || auth === 'chat';
  const codes: RouteErrorCode[] = [
    ...(op['x-error-codes'] ?? []),
    ...(op['x-agentry-body'] ? BODY_CODES : []),
    ...(tenant ? tenantAuthCodes({ publishable: auth === 'chat', unsafe: UNSAFE.has(method) }) : []),
    ...(tenant && method === 'post' && format === 'problem' ? IDEMPOTENCY_CODES : []),
    ...(auth === 'platform' ? (['unauthorized', 'forbidden', 'internal_error'] as const) : []),
    ...(auth === 'metrics' ? (['unauthorized'] as const) : []),
    ...(path.startsWith('/v1/') ? (['server_busy'] as const) : []), // admission (http/admission.ts)
    ...(auth === 'session'
      ? (['unauthorized', ...(UNSAFE.has(method) ? (['csrf_failed'] as const) : []), 'internal_error'] as const)
      : []),
    ...databaseCodes({ authenticated: auth !== 'public' && auth !== 'metrics', body: Boolean(op['x-agentry-body']) }),
  ];
  op.security = security(auth, method, path);
  op.responses = { ...(op.responses as object), ...errorResponses(codes, format) };
  op['x-error-codes'] = [...new Set(codes)].sort();
  if (tenant) {
    op.parameters = [
      ...(op.parameters ?? []),
      ...(method === 'post' && format === 'problem' ? [IDEMPOTENCY_KEY] : []),
      END_USER_TOKEN,
    ];
  }
  delete op['x-agentry-auth'];
  delete op['x-agentry-body'];
  delete op['x-agentry-error-format'];
}

/**
 * The OpenAPI 3.1 document of `app`, from the `doc()` of each route (undocumented routes are left
 * out, which `openapi.test.ts` refuses).
 *
 * @example
 * const document = await openApiDocument(app);
 */
export async function openApiDocument(app: Hono): Promise<Record<string, unknown>> {
  const generated = (await generateSpecs(app, {
    excludeStaticFile: false,
    excludeMethods: ['OPTIONS'],
    defaultValidationErrorResponse: false,
    documentation: {
      info: {
        title: 'Agentry API',
        version: '1',
        description:
          'Configuration-driven, multi-tenant agents. JSON in and out; errors are RFC 9457 `application/problem+json` with a stable `code` (the OpenAI-compatible routes answer in OpenAI’s error shape). Lists are newest first with cursor pagination. Every operation lists the error codes it can answer in `x-error-codes`.',
      },
    },
  })) as unknown as { info: object; paths: Record<string, Record<string, Operation>> };
  for (const [path, item] of Object.entries(generated.paths)) {
    for (const [method, op] of Object.entries(item)) finishOperation(method, path, op);
  }
  const tags = [
    ...new Set(
      Object.values(generated.paths).flatMap((item) =>
        Object.values(item).flatMap((op) => (op.tags as string[] | undefined) ?? []),
      ),
    ),
  ];
  const rank = (tag: string) => (TAG_ORDER.includes(tag) ? TAG_ORDER.indexOf(tag) : TAG_ORDER.length);
  tags.sort((x, y) => rank(x) - rank(y) || x.localeCompare(y));
  return {
    openapi: '3.1.0',
    info: generated.info,
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    tags: tags.map((name) => ({ name })),
    paths: generated.paths,
    components: { schemas: componentSchemas(), securitySchemes: SECURITY_SCHEMES },
  };
}
