import { ToolImportBody } from '@agentry/contract/schemas';
import { errors } from '@agentry/errors';
import { withAllowlist } from '@agentry/http-tools';
import { importLimits, importTools } from '@agentry/tool-import';
import { Hono } from 'hono';
import type { ApiDeps } from '../deps.ts';
import type { AuthVariables } from '../http/auth.ts';
import { readJson } from '../http/body.ts';
import { doc, ref } from '../http/openapi.ts';

/** The path whose body may be larger than the API's 1 MiB (app.ts gives it its own bound). */
export const TOOL_IMPORT_PATH = '/v1/tools/import';
/** The body bound of the import: a 5 MiB document plus room for its JSON escaping and the wrapper. */
export const TOOL_IMPORT_MAX_BODY_BYTES = importLimits.maxDocumentBytes + 1024 * 1024;

/** A body over the import's bound: the document is too large (the same code as a large document). */
export function importBodyTooLarge(limitBytes: number) {
  return errors.of({
    code: 'import_too_large',
    message: `The request body is larger than ${limitBytes} bytes; a document may have at most ${importLimits.maxDocumentBytes} bytes (5 MiB)`,
    category: 'user',
    details: { limit_bytes: limitBytes },
  });
}

const PETSTORE_CURL =
  'curl -X POST https://api.shop.example/v1/orders -H \'Authorization: Bearer sk_test\' -d \'{"sku":"A-1","quantity":2}\'';

/**
 * `POST /v1/tools/import`: tool configs from an OpenAPI 3.0/3.1 or Swagger 2.0 document (inline or
 * fetched through the egress guard with the tenant's allowlist) or a cURL command. Every returned
 * tool passed the config loader; nothing is saved (the dashboard puts the tools into a draft).
 */
export function toolImportRoutes(deps: ApiDeps) {
  const app = new Hono<{ Variables: AuthVariables }>();
  app.post(
    '/import',
    doc({
      operationId: 'importTools',
      tag: 'Agents',
      summary: 'Turn an OpenAPI document or a cURL command into HTTP tool configs (nothing is saved)',
      description:
        'Each chosen operation becomes one `type: "http"` tool: its name from `operationId`, parameters from the path, query, header and JSON body parameters (the allowed JSON Schema subset; what was left out is listed in `notes`), authentication from `securitySchemes` as `{{secrets.NAME}}` (listed in `secrets`). A `url`, and any remote `$ref`, is fetched through the egress guard (private addresses only when the allowlist names them). Documents up to 5 MiB and 1,000 operations. Every returned tool passed the config loader; otherwise the answer is its 422 with every problem.',
      auth: 'tenant',
      body: {
        schema: ToolImportBody,
        example: { source: { kind: 'curl', command: PETSTORE_CURL } },
        description:
          'The source (`openapi` with `document` or `url`, or `curl` with `command`) and the operations to import (default all)',
      },
      responses: {
        200: {
          description: 'The tools, the secrets they read, notes and the operations',
          schema: ref('ToolImportResult'),
        },
      },
      errors: [
        'import_document_invalid',
        'import_curl_invalid',
        'import_too_large',
        'import_too_many_operations',
        'import_too_many_refs',
        'import_fetch_failed',
        'egress_forbidden_scheme',
        'egress_forbidden_address',
        'egress_too_many_redirects',
        'egress_dns_failed',
        'server_busy',
      ],
    }),
  );
  app.post('/import', async (c) => {
    const body = await readJson(c, ToolImportBody, {
      maxBytes: TOOL_IMPORT_MAX_BODY_BYTES,
      tooLarge: importBodyTooLarge,
    });
    const policy = withAllowlist(deps.egress, c.var.tenant.egressAllowlist);
    const result = await importTools(body.source, {
      policy,
      signal: c.req.raw.signal,
      ...(body.operations ? { operations: body.operations } : {}),
    });
    return c.json(result);
  });
  return app;
}
