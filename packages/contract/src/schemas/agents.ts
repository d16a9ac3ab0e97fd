import { z } from 'zod';
import { component, id, list, timestamp } from './common.ts';

/**
 * Agents, their versions and the editor's helpers (validate, prompt, diff, MCP check, tool test):
 * the answers of `/v1/agents` and the bodies it takes. The agent config itself is opaque here
 * (`config: unknown`); the API checks it with its own loader and documents it as `AgentConfig`.
 */

export const AgentSchema = component(
  'Agent',
  z.object({
    id,
    object: z.literal('agent'),
    name: z.string(),
    published_version: z.int().nullable(),
    latest_version: z.int(),
    require_passing_tests: z
      .boolean()
      .describe(
        'Publishing needs a passing test run of the version (issue 22); owners may publish anyway with a reason',
      ),
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
    published: z.boolean().describe('Whether this is the live version (the one new conversations use)'),
    published_at: timestamp
      .nullable()
      .describe('When the version last went live (publish or roll back); null for a draft that never did'),
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

export const FlowTriggerTestSchema = component(
  'FlowTriggerTest',
  z.object({
    matches: z.boolean().describe('Whether the sentence starts the flow'),
    pattern: z.string().optional().describe('The first trigger pattern that matched'),
  }),
);

export type Agent = z.infer<typeof AgentSchema>;
/** An agent in `GET /v1/agents`: with its runs of the last 24 hours. */
export type AgentListItem = z.infer<typeof AgentListSchema>['data'][number];
export type AgentList = z.infer<typeof AgentListSchema>;
export type AgentVersion = z.infer<typeof AgentVersionSchema>;
export type AgentVersionDetail = z.infer<typeof AgentVersionDetailSchema>;
export type AgentVersionList = z.infer<typeof AgentVersionListSchema>;
export type AgentCreated = z.infer<typeof AgentCreatedSchema>;
/** The answer of `POST /v1/agents/validate` for a valid config (an invalid one is a 422 problem). */
export type AgentSummary = z.infer<typeof AgentSummarySchema>;
export type AgentPrompt = z.infer<typeof AgentPromptSchema>;
export type AgentDiff = z.infer<typeof AgentDiffSchema>;
/** One change between two versions' configs (a JSON pointer `path`). */
export type ConfigChange = AgentDiff['changes'][number];
export type McpCheck = z.infer<typeof McpCheckSchema>;
export type ToolTestResult = z.infer<typeof ToolTestResultSchema>;
export type FlowTriggerTest = z.infer<typeof FlowTriggerTestSchema>;

// ---- request bodies ------------------------------------------------------------------------

/** `POST /v1/agents` and `POST /v1/agents/{id}/versions`: a config (checked by the API's loader). */
export const NewAgentVersionBody = z.strictObject({
  config: z.unknown(),
  publish: z.boolean().optional(),
  /** Owners, under `require_passing_tests`: publish this new (untested) version anyway, with `publish_reason`. */
  force_publish: z.boolean().optional(),
  publish_reason: z.string().trim().min(1).max(1000).optional(),
});
export type NewAgentVersionBody = z.input<typeof NewAgentVersionBody>;

/** `POST /v1/agents/validate`. */
export const ValidateConfigBody = z.strictObject({ config: z.unknown() });
export type ValidateConfigBody = z.input<typeof ValidateConfigBody>;

/** `POST /v1/agents/tools/test`: renders (and with `send`, makes) one tool call of a config. */
export const ToolTestBody = z.strictObject({
  config: z.unknown(),
  tool: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).default({}),
  context: z.record(z.string(), z.unknown()).optional(),
  send: z.boolean().default(false),
});
export type ToolTestBody = z.input<typeof ToolTestBody>;

/** `POST /v1/agents/flows/trigger-test`: whether a sentence matches a flow's trigger patterns. */
export const FlowTriggerTestBody = z.strictObject({
  patterns: z.array(z.string().min(1).max(500)).max(20),
  text: z.string().min(1).max(4000),
});
export type FlowTriggerTestBody = z.input<typeof FlowTriggerTestBody>;
