import { errors, type FieldIssue } from '@agentry/errors';
import { type EgressPolicy, egressFetch, isEgressError, readBoundedText } from '@agentry/http-tools';
import { dereference, validate } from '@readme/openapi-parser';
import { upgrade } from '@scalar/openapi-upgrader';
import { parse as parseYaml } from 'yaml';
import { importLimits } from './limits.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

export interface FetchOptions {
  /** The egress rules for the document's URL and remote `$ref`s (the tenant's allowlist merged in). */
  policy?: EgressPolicy;
  signal?: AbortSignal;
}

/** A parsed, checked, upgraded (OpenAPI 3.1) and dereferenced document. */
export interface LoadedDocument {
  doc: Obj;
  /** The URL the document came from, for relative server URLs. */
  baseUrl?: string;
  /** `OpenAPI` or `Swagger` (2.0, upgraded). */
  specification: string;
}

const invalid = (message: string, issues: FieldIssue[] = []) =>
  errors.validation(message, issues, 'import_document_invalid');

const tooLarge = (bytes?: number) =>
  errors.of({
    code: 'import_too_large',
    message: `The document is larger than ${importLimits.maxDocumentBytes} bytes (5 MiB)`,
    category: 'user',
    details: { limit_bytes: importLimits.maxDocumentBytes, ...(bytes === undefined ? {} : { bytes }) },
  });

/** Parses JSON or YAML text within the limits. */
export function parseDocumentText(text: string): unknown {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > importLimits.maxDocumentBytes) throw tooLarge(bytes);
  if (bracketDepthExceeds(text, importLimits.maxDepth))
    throw invalid(`The document nests deeper than ${importLimits.maxDepth} levels`);
  const trimmed = text.trimStart();
  try {
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) return JSON.parse(text);
    // Aliases are bounded (a "billion laughs" document is refused); no custom tags.
    return parseYaml(text, { maxAliasCount: 100, schema: 'core', uniqueKeys: false });
  } catch (error) {
    if (error instanceof RangeError) throw invalid(`The document nests too deeply`);
    throw invalid(
      `The document is neither JSON nor YAML: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    );
  }
}

/** Checks the size, depth and `$ref` count of an already parsed document. */
export function checkDocumentShape(doc: unknown): asserts doc is Obj {
  if (!isObj(doc)) throw invalid('The document must be an object (an OpenAPI or Swagger document)');
  let bytes: number;
  try {
    bytes = Buffer.byteLength(JSON.stringify(doc), 'utf8');
  } catch {
    throw invalid('The document cannot be read as JSON');
  }
  if (bytes > importLimits.maxDocumentBytes) throw tooLarge(bytes);
  let refs = 0;
  const stack: Array<{ value: unknown; depth: number }> = [{ value: doc, depth: 1 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (depth > importLimits.maxDepth) throw invalid(`The document nests deeper than ${importLimits.maxDepth} levels`);
    if (Array.isArray(value)) for (const v of value) stack.push({ value: v, depth: depth + 1 });
    else if (isObj(value)) {
      if (typeof value.$ref === 'string' && ++refs > importLimits.maxRefs) {
        throw errors.validation(`The document has more than ${importLimits.maxRefs} $refs`, [], 'import_too_many_refs');
      }
      for (const v of Object.values(value)) stack.push({ value: v, depth: depth + 1 });
    }
  }
}

/** Fetches a document (or a remote `$ref`'s document) through the egress guard, size-bounded. */
export async function fetchDocument(url: string, options: FetchOptions, budget: { bytes: number }): Promise<unknown> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid(`Not a URL: ${url.slice(0, 200)}`);
  }
  let response: Response;
  try {
    response = await egressFetch(
      {
        method: 'GET',
        url: parsed.href,
        headers: { Accept: 'application/json, application/yaml, text/yaml, */*;q=0.5' },
      },
      { ...(options.policy ? { policy: options.policy } : {}), ...(options.signal ? { signal: options.signal } : {}) },
    );
  } catch (error) {
    if (isEgressError(error)) throw error; // egress_forbidden_address, …: the same codes as tools
    throw errors.upstream('import_fetch_failed', `The document at ${parsed.origin} could not be fetched`, {
      retryable: true,
      cause: error,
    });
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw errors.upstream(
      'import_fetch_failed',
      `The document at ${parsed.href.slice(0, 200)} answered ${response.status}`,
      {
        retryable: response.status >= 500,
        details: { status: response.status },
      },
    );
  }
  const room = importLimits.maxDocumentBytes - budget.bytes;
  const { text, truncated, bytes } = await readBoundedText(response, room + 1);
  if (truncated || bytes > room) throw tooLarge();
  budget.bytes += bytes;
  return parseDocumentText(text);
}

/**
 * Replaces every remote `$ref` (`https://…/x.json#/Pet`, or relative to the document's URL) with
 * what it points to, fetched through the egress guard; refs inside a fetched part are resolved
 * against their own document. Bounded in documents, refs and bytes. Local refs stay.
 */
export async function inlineRemoteRefs(
  doc: Obj,
  baseUrl: string | undefined,
  options: FetchOptions,
  budget: { bytes: number },
): Promise<void> {
  if (typeof doc.$ref === 'string') throw invalid('The document itself may not be a $ref');
  const cache = new Map<string, unknown>();
  let inlined = 0;
  // Each entry: a node whose refs resolve against `base` (undefined: the root document).
  const queue: Array<{ node: unknown; base: string | undefined }> = [{ node: doc, base: undefined }];
  while (queue.length > 0) {
    const { node, base } = queue.pop()!;
    const stack: unknown[] = [node];
    while (stack.length > 0) {
      const value = stack.pop();
      if (Array.isArray(value)) {
        stack.push(...value);
        continue;
      }
      if (!isObj(value)) continue;
      for (const [key, child] of Object.entries(value)) {
        if (!isObj(child) || typeof child.$ref !== 'string') {
          stack.push(child);
          continue;
        }
        const ref = child.$ref;
        if (ref.startsWith('#') && base === undefined) continue; // local to the root document
        const target = resolveRef(ref, base ?? baseUrl);
        if (!target) throw invalid(`The $ref ${ref.slice(0, 200)} is neither local (#/…) nor an http(s) URL`);
        if (++inlined > importLimits.maxRemoteRefs) {
          throw errors.validation(
            `More than ${importLimits.maxRemoteRefs} remote $refs (or a cycle of them)`,
            [],
            'import_too_many_refs',
          );
        }
        let remote = cache.get(target.document);
        if (remote === undefined) {
          if (cache.size >= importLimits.maxRemoteDocuments) {
            throw errors.validation(
              `More than ${importLimits.maxRemoteDocuments} remote documents are referenced`,
              [],
              'import_too_many_refs',
            );
          }
          remote = await fetchDocument(target.document, options, budget);
          checkDocumentShape(remote);
          cache.set(target.document, remote);
        }
        const part = structuredClone(pointerGet(remote, target.pointer, ref));
        value[key] = part;
        queue.push({ node: { part }, base: target.document });
      }
    }
  }
}

function resolveRef(ref: string, base: string | undefined): { document: string; pointer: string } | undefined {
  try {
    const url = new URL(ref, base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    const pointer = decodeURIComponent(url.hash.replace(/^#/, ''));
    url.hash = '';
    return { document: url.href, pointer };
  } catch {
    return undefined;
  }
}

function pointerGet(doc: unknown, pointer: string, ref: string): unknown {
  if (pointer === '' || pointer === '/') return doc;
  let value = doc;
  for (const raw of pointer.replace(/^\//, '').split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(value)) value = value[Number(key)];
    else if (isObj(value) && Object.hasOwn(value, key)) value = value[key];
    else throw invalid(`The $ref ${ref.slice(0, 200)} points to nothing`);
  }
  return value;
}

/**
 * Refuses a document whose local `$ref`s expand past {@link importLimits.maxExpandedNodes} nodes
 * (each `$ref` counted as the size of its target, memoised, cycles once): measured in time linear in
 * the document, before the dereferencer would spend seconds (or forever) on it.
 */
export function checkRefExpansion(doc: Obj): void {
  const limit = importLimits.maxExpandedNodes;
  const sizes = new Map<string, number>();
  const open = new Set<string>();
  const size = (value: unknown): number => {
    if (Array.isArray(value)) {
      let n = 1;
      for (const v of value) {
        n += size(v);
        if (n > limit) return n;
      }
      return n;
    }
    if (!isObj(value)) return 1;
    if (typeof value.$ref === 'string' && value.$ref.startsWith('#')) {
      const ref = value.$ref;
      const known = sizes.get(ref);
      if (known !== undefined) return known;
      if (open.has(ref)) return 1; // a cycle: the dereferencer leaves it as a $ref
      open.add(ref);
      let target: unknown;
      try {
        target = pointerGet(doc, decodeURIComponent(ref.slice(1)), ref);
      } catch {
        target = undefined; // the validator reports it
      }
      const n = size(target);
      open.delete(ref);
      sizes.set(ref, n);
      return n;
    }
    let n = 1;
    for (const v of Object.values(value)) {
      n += size(v);
      if (n > limit) return n;
    }
    return n;
  };
  let total: number;
  try {
    total = size(doc);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    total = Number.POSITIVE_INFINITY; // references chained deeper than the stack
  }
  if (total > limit) {
    throw errors.validation(
      `The document's $refs expand to more than ${limit} nodes; split it or import fewer schemas`,
      [],
      'import_too_many_refs',
    );
  }
}

/**
 * Validates the document (OpenAPI 3.0/3.1 or Swagger 2.0, with @readme/openapi-parser), upgrades it
 * to OpenAPI 3.1 (@scalar/openapi-upgrader) and dereferences its local `$ref`s (circular ones stay).
 * The parser never reads a file or a URL: external resolution is off, remote refs were inlined before.
 */
export async function checkedOpenApi(doc: Obj): Promise<{ doc: Obj; specification: string }> {
  if (!('openapi' in doc) && !('swagger' in doc)) {
    throw invalid('Not an OpenAPI or Swagger document (it has no `openapi` or `swagger` version)');
  }
  const options = { resolve: { external: false, file: false }, timeoutMs: importLimits.dereferenceTimeoutMs };
  let result: Awaited<ReturnType<typeof validate>>;
  try {
    result = await validate(structuredClone(doc) as never, options);
  } catch (error) {
    throw invalid(`The document is not valid: ${message(error)}`);
  }
  if (!result.valid) {
    const issues = result.errors
      .slice(0, 20)
      .map((e) => ({ path: '', code: 'invalid_document', message: e.message.slice(0, 500) }));
    throw invalid(`The document is not a valid ${result.specification ?? 'OpenAPI'} document`, issues);
  }
  let upgraded: Obj;
  try {
    upgraded = upgrade(doc, '3.1') as unknown as Obj;
  } catch (error) {
    throw invalid(`The document could not be converted to OpenAPI 3.1: ${message(error)}`);
  }
  try {
    const dereferenced = await dereference(upgraded as never, {
      ...options,
      dereference: { circular: 'ignore' },
    });
    return { doc: dereferenced as unknown as Obj, specification: result.specification ?? 'OpenAPI' };
  } catch (error) {
    throw invalid(`The document's $refs could not be resolved: ${message(error)}`);
  }
}

function message(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 500);
}

/** Whether brackets nest deeper than `max` (a cheap bound before a parser recurses). */
function bracketDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++;
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x7b || ch === 0x5b) {
      if (++depth > max) return true;
    } else if (ch === 0x7d || ch === 0x5d) depth = Math.max(0, depth - 1);
  }
  return false;
}
