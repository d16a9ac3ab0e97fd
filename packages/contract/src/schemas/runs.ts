import { z } from 'zod';
import { component, id, RunStatusSchema, timestamp } from './common.ts';
import { CitationSchema } from './knowledge.ts';

/** Runs: the answer of `/v1/runs` and of a message, the calls a waiting run asks for, the answers to them. */

/** One model step of a run's trace, as the runner records it (camelCase, unlike the rest of the API). */
export const RunStepSchema = z
  .looseObject({
    index: z.int(),
    modelLatencyMs: z.number().describe('Wall time of the model call'),
    usage: z.looseObject({
      inputTokens: z.int(),
      outputTokens: z.int(),
      cacheReadTokens: z.int().optional(),
      cacheWriteTokens: z.int().optional(),
    }),
    finishReason: z.string(),
    provider: z.string().optional().describe('Who answered this step: openai, anthropic, openai_compatible or demo'),
    model: z.string().optional().describe('The model that answered this step'),
    toolCalls: z.array(
      z.looseObject({
        id: z.string(),
        name: z.string(),
        durationMs: z.number(),
        isError: z.boolean(),
        errorCode: z.string().optional(),
        cached: z.literal(true).optional().describe('A stored response of a tool with `cache`: no request was sent'),
      }),
    ),
  })
  .describe('One model step: its tokens, latency and the tool calls it made');

export const RunSchema = component(
  'Run',
  z.object({
    id,
    object: z.literal('run'),
    conversation_id: id,
    agent_id: id,
    agent_version: z.int(),
    status: RunStatusSchema,
    reply: z.string().nullable(),
    citations: z
      .array(CitationSchema)
      .describe('The knowledge sources the reply cites by its `[n]` markers (empty when none)'),
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
      model: z
        .object({ provider: z.string(), name: z.string() })
        .nullable()
        .describe('The model of the last model step (null: no model was asked, e.g. a flow turn)'),
      demo_model: z
        .boolean()
        .describe("true when the answer came from the embedded mode's built-in demo model, not an AI"),
    }),
    steps: z.array(RunStepSchema).describe('Per-step trace; empty for publishable keys'),
    error: z.looseObject({ code: z.string(), message: z.string() }).nullable(),
    trace_id: z.string().nullable(),
    created_at: timestamp,
    started_at: timestamp.nullable(),
    finished_at: timestamp.nullable(),
  }),
);

/** A call a waiting run needs a person for (the `pending` list of its `waiting` event). */
export const PendingInputSchema = z.object({
  tool_call_id: z.string(),
  name: z.string(),
  arguments: z.unknown(),
  kind: z.enum(['client', 'approval']).describe('client: a tool the browser runs; approval: a call to approve'),
});

export type Run = z.infer<typeof RunSchema>;
export type RunStep = z.infer<typeof RunStepSchema>;
export type PendingInput = z.infer<typeof PendingInputSchema>;

// ---- request bodies ------------------------------------------------------------------------

/** `POST /v1/runs/{id}/tool-results`: every waiting call answered at once. */
export const ToolResultsBody = z.strictObject({
  results: z
    .array(
      z.strictObject({
        tool_call_id: z.string().min(1),
        output: z.unknown().optional(),
        is_error: z.boolean().optional(),
        decision: z.enum(['approve', 'decline']).optional(),
      }),
    )
    .min(1)
    .max(64),
});
export type ToolResultsBody = z.input<typeof ToolResultsBody>;
/** One answer: a client tool's `output` (and `is_error`), or an approval's `decision`. */
export type ToolAnswer = ToolResultsBody['results'][number];
