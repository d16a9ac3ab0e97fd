import { z } from 'zod';
import { component } from './common.ts';

/**
 * `POST /v1/tools/import`: HTTP tools from an OpenAPI/Swagger document or a cURL command. The tools
 * are agent-config tool objects (documented as the config's `tools[]` items); nothing is saved.
 */

export const ToolImportResultSchema = component(
  'ToolImportResult',
  z.object({
    tools: z
      .array(z.record(z.string(), z.unknown()))
      .describe('Tool configs (`type: "http"`), each checked by the config loader: put them into a draft'),
    secrets: z
      .array(z.object({ name: z.string(), description: z.string() }))
      .describe('The secrets the tools read (`{{secrets.NAME}}`): ask for their values (PUT /v1/secrets/{name})'),
    notes: z
      .array(z.object({ tool: z.string(), message: z.string() }))
      .describe('What could not be carried over, per tool (e.g. keywords left out of a schema, a form body)'),
    operations: z
      .array(
        z.object({
          id: z.string().describe('operationId, or "METHOD /path"'),
          method: z.string(),
          path: z.string(),
          summary: z.string(),
          selected: z.boolean().describe('Whether it became a tool in this answer'),
        }),
      )
      .describe("The document's operations, to pick from (`operations` in the request)"),
  }),
);
export type ToolImportResult = z.infer<typeof ToolImportResultSchema>;

const OpenApiSource = z.strictObject({
  kind: z.literal('openapi'),
  document: z
    .union([z.string().min(1), z.record(z.string(), z.unknown())])
    .optional()
    .describe('The document: an object, or JSON or YAML text (at most 5 MiB)'),
  url: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .optional()
    .describe(
      "Where to fetch it (through the egress guard: private addresses only when the tenant's allowlist names them)",
    ),
});
const CurlSource = z.strictObject({
  kind: z.literal('curl'),
  command: z.string().min(1).max(65_536).describe('One curl command line'),
});

/** `POST /v1/tools/import`. */
export const ToolImportBody = z.strictObject({
  source: z.discriminatedUnion('kind', [OpenApiSource, CurlSource]),
  operations: z
    .array(z.string().min(1).max(300))
    .min(1)
    .max(1000)
    .optional()
    .describe('Operation ids to import (see `operations` in the answer); default all'),
});
export type ToolImportBody = z.input<typeof ToolImportBody>;
