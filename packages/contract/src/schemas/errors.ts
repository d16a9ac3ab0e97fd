import { z } from 'zod';
import { component } from './common.ts';

/** The error answers: problem+json, and OpenAI's shape on the OpenAI-compatible routes. */

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
export type OpenAiError = z.infer<typeof OpenAiErrorSchema>;
