import type { ToolConfig } from '@agentry/contract';
import { errors } from '@agentry/errors';
import { assertToolsLoad } from './check-tools.ts';
import { checkedOpenApi, checkRefExpansion } from './document.ts';
import { importLimits } from './limits.ts';
import { listOperations, OpenApiToolBuilder, operationSummaries } from './openapi-tools.ts';
import type { ImportResult } from './types.ts';

/** What the worker gets: a parsed document whose remote `$ref`s are already inlined. */
export interface BuildJob {
  doc: Record<string, unknown>;
  baseUrl?: string | undefined;
  operations?: readonly string[] | undefined;
}

/**
 * Validates, upgrades and dereferences the document, then builds one tool per chosen operation.
 * Pure CPU work with no I/O: {@link runIsolated} runs it in a worker thread.
 */
export async function buildTools(job: BuildJob): Promise<ImportResult> {
  const raw = job.doc;
  const options = { operations: job.operations };
  const source = { url: job.baseUrl };
  checkRefExpansion(raw);
  const { doc } = await checkedOpenApi(raw);
  const operations = listOperations(doc, importLimits.maxOperations);
  if (operations.length > importLimits.maxOperations) throw tooManyOperations(operations.length);

  const picked = options.operations ? new Set(options.operations) : undefined;
  if (picked) {
    const known = new Set(operations.map((o) => o.id));
    const unknown = [...picked].filter((id) => !known.has(id));
    if (unknown.length > 0) {
      throw errors.validation(
        `The document has no operation ${unknown.slice(0, 5).join(', ')}`,
        unknown.slice(0, 20).map((id) => ({
          path: `/operations/${options.operations!.indexOf(id)}`,
          code: 'unknown_operation',
          message: `no operation ${id}`,
        })),
      );
    }
  }
  const builder = new OpenApiToolBuilder(doc, source.url);
  const tools: ToolConfig[] = [];
  for (const operation of operations) {
    if (picked && !picked.has(operation.id)) continue;
    const tool = builder.build(operation);
    if (tool) tools.push(tool);
  }
  assertToolsLoad(tools);
  return {
    tools,
    secrets: [...builder.secrets.values()].filter((s) =>
      tools.some((t) => JSON.stringify(t.endpoint).includes(`{{secrets.${s.name}}}`)),
    ),
    notes: builder.notes,
    operations: operationSummaries(operations, picked),
  };
}

export function tooManyOperations(count: number) {
  return errors.validation(
    `The document has ${count > importLimits.maxOperations ? `more than ${importLimits.maxOperations}` : count} operations; at most ${importLimits.maxOperations} can be imported`,
    [],
    'import_too_many_operations',
  );
}
