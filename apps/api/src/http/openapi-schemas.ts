import { agentConfigSchema } from '@agentry/config';
import { RUN_STATUSES } from '@agentry/contract';
import { z } from 'zod';

/**
 * The response shapes of the API, as zod schemas registered under their component name. They
 * mirror `views.ts` and the routes' `c.json(…)` answers; `openapi.test.ts` checks real answers
 * against them, so a view that drifts fails a test instead of misleading the docs.
 */
export const apiSchemas = z.registry<{ id: string; description?: string }>();

function component<S extends z.ZodType>(id: string, schema: S, description?: string): S {
  apiSchemas.add(schema, { id, ...(description ? { description } : {}) });
  return schema;
}

const timestamp = z.iso.datetime({ offset: true });
const id = z.uuid();
const list = <S extends z.ZodType>(item: S) =>
  z.object({
    object: z.literal('list'),
    data: z.array(item),
    next_cursor: z.string().nullable().describe('Pass as `?cursor=` to get the next page; null on the last page'),
  });

export const FieldIssueSchema = component(
  'FieldIssue',
  z.object({
    path: z.string().describe('JSON pointer to the field'),
    code: z.string(),
    message: z.string(),
    hint: z.string().optional(),
  }),
);

export const ProblemSchema = component(
  'Problem',
  z
    .looseObject({
      type: z.string(),
      title: z.string(),
      status: z.int(),
      detail: z.string(),
      code: z.string().describe('Stable, machine-readable error code'),
      instance: z.string().optional(),
      errors: z.array(FieldIssueSchema).optional().describe('Every field problem (422)'),
    })
    .describe('RFC 9457 problem details with a stable `code`; some codes add fields (e.g. `missing`)'),
);

export const OpenAiErrorSchema = component(
  'OpenAIError',
  z.object({
    error: z.object({
      message: z.string(),
      type: z.string(),
      param: z.string().nullable(),
      code: z.string().nullable(),
    }),
  }),
  'An error in OpenAI’s shape, so OpenAI SDKs raise their own exceptions',
);

export const AgentSchema = component(
  'Agent',
  z.object({
    id,
    object: z.literal('agent'),
    name: z.string(),
    published_version: z.int().nullable(),
    latest_version: z.int(),
    created_at: timestamp,
    updated_at: timestamp,
  }),
);

export const AgentVersionSchema = component(
  'AgentVersion',
  z.object({
    agent_id: id,
    object: z.literal('agent_version'),
    version: z.int(),
    content_hash: z.string(),
    published: z.boolean(),
    created_at: timestamp,
  }),
);

const McpWarning = z.looseObject({ code: z.string(), message: z.string() });
const McpLastCheck = z
  .looseObject({ checked_at: timestamp, warnings: z.array(McpWarning) })
  .nullable()
  .describe('The last `mcp-check`, or null');

export const AgentVersionDetailSchema = component(
  'AgentVersionDetail',
  AgentVersionSchema.extend({
    config: z.record(z.string(), z.unknown()).describe('The agent config as uploaded (AgentConfig)'),
    discovered_tools: z.looseObject({}).nullable().describe('MCP tools found at upload, or null'),
    warnings: z.array(McpWarning).describe('Those discovery left at publish and those of the last re-check'),
    last_check: McpLastCheck,
  }),
);

export const AgentCreatedSchema = component('AgentCreated', AgentSchema.extend({ version: AgentVersionSchema }));
export const AgentListSchema = component(
  'AgentList',
  list(AgentSchema.extend({ runs_24h: z.int().describe('Runs started in the last 24 hours') })),
);
export const AgentVersionListSchema = component('AgentVersionList', list(AgentVersionSchema));

export const AgentSummarySchema = component(
  'AgentSummary',
  z.object({
    valid: z.literal(true),
    summary: z.object({
      name: z.string(),
      content_hash: z.string(),
      tools: z.array(z.looseObject({ name: z.string(), type: z.string() })),
      action_books: z.int(),
      system_prompt: z.string(),
    }),
  }),
);

export const AgentPromptSchema = component(
  'AgentPrompt',
  z.object({ agent_id: id, version: z.int(), prompt: z.string() }),
);

export const AgentDiffSchema = component(
  'AgentDiff',
  z.object({
    agent_id: id,
    from: z.int(),
    to: z.int(),
    changes: z.array(
      z.object({
        path: z.string(),
        op: z.enum(['add', 'remove', 'replace']),
        before: z.unknown().optional(),
        after: z.unknown().optional(),
      }),
    ),
  }),
);

export const McpCheckSchema = component(
  'McpCheck',
  z.object({
    agent_id: id,
    version: z.int(),
    discovered_tools: z.looseObject({}).nullable(),
    current_tools: z.array(z.looseObject({})).nullable(),
    warnings: z.array(McpWarning),
    last_check: McpLastCheck,
  }),
);

const RenderedRequest = z.object({
  method: z.string(),
  url: z.string(),
  headers: z.record(z.string(), z.string()),
  body: z.string().nullable(),
});

export const ToolTestResultSchema = component(
  'ToolTestResult',
  z.object({
    request: RenderedRequest.describe('The request the call sends, secrets masked'),
    response: z
      .object({
        status: z.int().nullable(),
        duration_ms: z.number(),
        output: z.unknown(),
        is_error: z.boolean(),
        error_code: z.string().optional(),
      })
      .optional()
      .describe('With `send: true`: what came back, as the model would see it'),
  }),
);

const RunStatus = z.enum(RUN_STATUSES);

const ContentPart = z.union([
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('reasoning'), text: z.string() }),
  z.object({ type: z.literal('tool_call'), id: z.string(), name: z.string(), arguments: z.unknown() }),
  z.object({
    type: z.literal('tool_result'),
    tool_call_id: z.string(),
    name: z.string(),
    output: z.unknown(),
    is_error: z.boolean(),
  }),
]);

export const MessageSchema = component(
  'Message',
  z.object({
    id,
    object: z.literal('message'),
    seq: z.int(),
    role: z.enum(['user', 'assistant', 'tool']),
    run_id: id.nullable(),
    content: z.array(ContentPart),
    created_at: timestamp,
  }),
);

export const ConversationSchema = component(
  'Conversation',
  z.object({
    id,
    object: z.literal('conversation'),
    agent_id: id,
    agent_version: z.int().nullable().describe('The pinned version, or null to follow the published one'),
    context: z.record(z.string(), z.unknown()),
    created_at: timestamp,
    updated_at: timestamp,
  }),
);

export const ConversationDetailSchema = component(
  'ConversationDetail',
  ConversationSchema.extend({ messages: z.array(MessageSchema) }),
);
export const ConversationListSchema = component(
  'ConversationList',
  list(
    ConversationSchema.extend({
      last_run_status: RunStatus.nullable().describe('The latest run’s status; null before the first message'),
      has_error: z.boolean().describe('Whether any run of the conversation failed'),
    }),
  ),
);

export const RunSchema = component(
  'Run',
  z.object({
    id,
    object: z.literal('run'),
    conversation_id: id,
    agent_id: id,
    agent_version: z.int(),
    status: RunStatus,
    reply: z.string().nullable(),
    tool_calls: z
      .array(
        z.object({
          id: z.string(),
          name: z.string(),
          arguments: z.unknown(),
          output: z.unknown(),
          is_error: z.boolean(),
        }),
      )
      .describe('Empty for publishable keys'),
    meta: z.object({
      input_tokens: z.int(),
      output_tokens: z.int(),
      cache_read_tokens: z.int(),
      cache_write_tokens: z.int(),
      total_tokens: z.int(),
      tool_call_count: z.int(),
      steps: z.int(),
      latency_ms: z.number().nullable(),
    }),
    steps: z.array(z.looseObject({})).describe('Per-step trace; empty for publishable keys'),
    error: z.looseObject({ code: z.string(), message: z.string() }).nullable(),
    trace_id: z.string().nullable(),
    created_at: timestamp,
    started_at: timestamp.nullable(),
    finished_at: timestamp.nullable(),
  }),
);

export const SecretSchema = component(
  'Secret',
  z.object({ object: z.literal('secret'), name: z.string(), created_at: timestamp, updated_at: timestamp }),
);
export const SecretListSchema = component('SecretList', list(SecretSchema));
export const SecretPutSchema = component(
  'SecretPut',
  z.object({ object: z.literal('secret'), name: z.string(), created: z.boolean() }),
);

export const ApiKeySchema = component(
  'ApiKey',
  z.object({
    id,
    object: z.literal('api_key'),
    kind: z.enum(['secret', 'publishable']),
    name: z.string().nullable(),
    prefix: z.string(),
    scopes: z.array(z.string()),
    agents: z.array(z.string()),
    allowed_origins: z.array(z.string()),
    created_at: timestamp,
    last_used_at: timestamp.nullable(),
    revoked_at: timestamp.nullable(),
  }),
);
export const ApiKeyCreatedSchema = component(
  'ApiKeyCreated',
  ApiKeySchema.extend({ key: z.string().describe('The key itself, shown once'), note: z.string().optional() }),
);
export const ApiKeyListSchema = component('ApiKeyList', list(ApiKeySchema));

export const TenantSchema = component(
  'Tenant',
  z.looseObject({
    id,
    object: z.literal('tenant'),
    name: z.string(),
    status: z.enum(['active', 'suspended']),
    egress_allowlist: z.array(z.string()),
    daily_run_limit: z.int().nullable(),
    daily_token_limit: z.int().nullable(),
    requests_per_minute: z.int().nullable(),
    created_at: timestamp,
  }),
);
export const TenantCreatedSchema = component(
  'TenantCreated',
  TenantSchema.extend({
    api_key: z.object({ id, key: z.string(), prefix: z.string(), note: z.string() }),
    owner_invitation: z
      .object({
        id,
        email: z.string(),
        delivery: z.enum(['email', 'link']),
        token: z.string().optional().describe('Only with `delivery: link`: shown once'),
        accept_url: z.string().optional().describe('Only with `delivery: link`'),
        expires_at: timestamp,
      })
      .optional()
      .describe('With `owner_email`: the first owner’s invitation, mailed (or, with `delivery: link`, shown once)'),
  }),
);

const UsageCounts = z.object({
  runs: z.int(),
  completed: z.int(),
  failed: z.int(),
  cancelled: z.int(),
  input_tokens: z.int(),
  output_tokens: z.int(),
  cache_read_tokens: z.int(),
  cache_write_tokens: z.int(),
  tool_calls: z.int(),
  tool_errors: z.int(),
});

export const UsageSchema = component(
  'Usage',
  z.object({
    object: z.literal('usage'),
    from: z.iso.date(),
    to: z.iso.date(),
    agent_id: z.string().optional(),
    data: z.array(UsageCounts.extend({ date: z.iso.date(), agent_id: id })),
    totals: UsageCounts,
  }),
);

export const AuditEventSchema = component(
  'AuditEvent',
  z.object({
    id,
    object: z.literal('audit_event'),
    action: z.string(),
    actor: z.union([
      z.object({ type: z.literal('user'), user_id: id, email: z.string().nullable() }),
      z.object({
        type: z.enum(['api_key', 'platform']),
        api_key_id: z.string().nullable(),
        api_key_prefix: z.string().nullable(),
      }),
    ]),
    target: z.object({ type: z.string(), id: z.string().nullable() }),
    details: z.record(z.string(), z.unknown()).nullable(),
    created_at: timestamp,
  }),
);
export const AuditEventListSchema = component('AuditEventList', list(AuditEventSchema));

export const WidgetBootstrapSchema = component(
  'WidgetBootstrap',
  z.object({
    object: z.literal('widget_bootstrap'),
    agent_id: id,
    widget: z.looseObject({ browser_js_eval: z.boolean() }),
    language: z.enum(['en', 'zh']).nullable(),
    context_variables: z.array(z.string()),
    client_tools: z.array(z.string()),
  }),
);

export const ChatCompletionSchema = component(
  'ChatCompletion',
  z.looseObject({
    id: z.string(),
    object: z.literal('chat.completion'),
    created: z.int(),
    model: z.string(),
    choices: z.array(z.looseObject({ index: z.int(), message: z.looseObject({ role: z.string() }) })),
    usage: z.looseObject({}).optional(),
  }),
);

export const ModelListSchema = component(
  'ModelList',
  z.object({
    object: z.literal('list'),
    data: z.array(
      z.object({
        id,
        object: z.literal('model'),
        created: z.int(),
        owned_by: z.string(),
        name: z.string(),
        published_version: z.int().nullable(),
        latest_version: z.int(),
      }),
    ),
  }),
);

export const HealthSchema = component('Health', z.object({ status: z.literal('ok') }));
export const ReadinessSchema = component(
  'Readiness',
  z.object({
    status: z.enum(['ready', 'degraded', 'not_ready']),
    /** `ok`, or `error: <why>`. */
    checks: z.object({ database: z.string(), queue: z.string() }),
    /** With `degraded`: the components that do not answer (the queue: messages are refused with 503). */
    degraded: z.array(z.enum(['queue'])).optional(),
  }),
);

/** The component name of a registered schema, for `$ref`s. */
export function ref(name: string): { $ref: string } {
  return { $ref: `#/components/schemas/${name}` };
}

/** `configs/agent-config.schema.json` as components: its `$defs` become `AgentConfig_<name>`. */
function agentConfigComponents(): Record<string, unknown> {
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) =>
        key === '$ref' && typeof inner === 'string' && inner.startsWith('#/$defs/')
          ? [key, `#/components/schemas/AgentConfig_${inner.slice('#/$defs/'.length)}`]
          : [key, rewrite(inner)],
      ),
    );
  };
  const { $defs, $schema: _s, $id: _i, ...root } = agentConfigSchema as Record<string, unknown>;
  const defs = Object.entries(($defs ?? {}) as Record<string, unknown>).map(([name, schema]) => [
    `AgentConfig_${name}`,
    rewrite(schema),
  ]);
  return { AgentConfig: rewrite(root), ...Object.fromEntries(defs) };
}

/**
 * Every registered response schema and the agent config schema, as OpenAPI 3.1 components
 * (JSON Schema 2020-12).
 */
export function componentSchemas(): Record<string, unknown> {
  const { schemas } = z.toJSONSchema(apiSchemas, {
    target: 'draft-2020-12',
    uri: (name) => `#/components/schemas/${name}`,
  });
  const cleaned = Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => {
      const { $schema: _s, $id: _i, id: _id, ...rest } = schema as Record<string, unknown>;
      return [name, rest];
    }),
  );
  return { ...cleaned, ...agentConfigComponents() };
}

/**
 * A request schema (one of the zod schemas a route validates with) as JSON Schema, as the client
 * sends it (`io: 'input'`: fields with defaults are optional). `replace` swaps property schemas,
 * e.g. `{ config: ref('AgentConfig') }` where the zod schema accepts anything and a later step checks.
 */
export function requestSchema(schema: z.ZodType, replace: Record<string, unknown> = {}): Record<string, unknown> {
  const { $schema: _s, ...json } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }) as Record<
    string,
    unknown
  >;
  const properties = json.properties as Record<string, unknown> | undefined;
  if (properties) for (const [name, value] of Object.entries(replace)) properties[name] = value;
  return json;
}
