import { errors } from '@agentry/errors';
import { tooManyOperations } from './build-tools.ts';
import { assertToolsLoad } from './check-tools.ts';
import { curlToTool } from './curl.ts';
import {
  checkDocumentShape,
  type FetchOptions,
  fetchDocument,
  inlineRemoteRefs,
  parseDocumentText,
} from './document.ts';
import { runIsolated } from './isolated.ts';
import { importLimits } from './limits.ts';
import type { ImportResult } from './types.ts';

export { assertToolsLoad } from './check-tools.ts';
export { curlToTool } from './curl.ts';
export { importLimits } from './limits.ts';
export { argumentName, secretName, toolName } from './names.ts';
export type { ImportNote, ImportResult, OperationSummary, SuggestedSecret } from './types.ts';

/** Where the tools come from. */
export type ImportSource = { kind: 'openapi'; document?: unknown; url?: string } | { kind: 'curl'; command: string };

export interface ImportOptions extends FetchOptions {
  /** Operation ids to import (default: all). */
  operations?: readonly string[];
}

/**
 * Turns an OpenAPI 3.0/3.1 or Swagger 2.0 document (an object, JSON or YAML text, or a URL fetched
 * through the egress guard) or a cURL command into tool configs, the secrets they read and notes on
 * what could not be carried over. Every tool passed the normal loader before it is returned. Nothing
 * is saved.
 *
 * @example
 * const { tools, secrets } = await importTools({ kind: 'curl', command: 'curl https://api.example.com/x' });
 */
export async function importTools(source: ImportSource, options: ImportOptions = {}): Promise<ImportResult> {
  if (source.kind === 'openapi') return importOpenApi(source, options);
  const result = curlToTool(source.command);
  assertToolsLoad(result.tools);
  return result;
}

async function importOpenApi(
  source: { document?: unknown; url?: string },
  options: ImportOptions,
): Promise<ImportResult> {
  const budget = { bytes: 0 };
  let raw: unknown;
  if (source.document !== undefined && source.url !== undefined) {
    throw errors.validation(
      'Give either document or url',
      [{ path: '/source', code: 'invalid_value', message: 'give either document or url, not both' }],
      'import_document_invalid',
    );
  }
  if (source.document !== undefined) {
    raw = typeof source.document === 'string' ? parseDocumentText(source.document) : source.document;
  } else if (source.url !== undefined) {
    raw = await fetchDocument(source.url, options, budget);
  } else {
    throw errors.validation(
      'Give a document or its url',
      [{ path: '/source', code: 'missing_key', message: 'give document or url' }],
      'import_document_invalid',
    );
  }
  checkDocumentShape(raw);
  // Counted before the (slower) validation: a document with too many operations is refused at once.
  const rough = countOperations(raw);
  if (rough > importLimits.maxOperations) throw tooManyOperations(rough);
  await inlineRemoteRefs(raw, source.url, options, budget);
  // The CPU-heavy part (validation, dereferencing, building, the loader) runs off the event loop.
  return runIsolated({ doc: raw, baseUrl: source.url, operations: options.operations });
}

/** Operations of `paths` (2.0 and 3.x alike), counted without trusting the document further. */
function countOperations(doc: Record<string, unknown>): number {
  const paths = doc.paths;
  if (paths === null || typeof paths !== 'object' || Array.isArray(paths)) return 0;
  let n = 0;
  for (const item of Object.values(paths)) {
    if (item === null || typeof item !== 'object') continue;
    for (const m of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']) if (m in item) n++;
  }
  return n;
}
