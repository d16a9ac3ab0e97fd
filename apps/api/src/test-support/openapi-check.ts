import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

/** One operation of the OpenAPI document, with where it lives. */
export interface SpecOperation {
  method: string;
  path: string;
  op: Record<string, any>;
}

/** Every operation of an OpenAPI document. */
export function operationsOf(document: Record<string, any>): SpecOperation[] {
  return Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
}

/**
 * Checks answers against the document's response schemas: `check(operation, status, body)` returns
 * the schema errors (empty when the answer matches, or when the status is not documented for JSON).
 */
export function responseChecker(document: Record<string, any>) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  // The components, under the id the document's `$ref`s use.
  ajv.addSchema({ $id: 'doc', components: document.components }, 'doc');
  const compiled = new Map<string, ValidateFunction>();
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? `doc${v}` : rewrite(v)]),
    );
  };
  return (operation: SpecOperation, status: number, body: unknown): string[] => {
    const response = operation.op.responses?.[String(status)];
    const media = response?.content?.['application/json'] ?? response?.content?.['application/problem+json'];
    if (!media?.schema) return response ? [] : [`status ${status} is not documented`];
    const key = `${operation.method} ${operation.path} ${status}`;
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile(rewrite(media.schema) as object);
      compiled.set(key, validate);
    }
    if (validate(body)) return [];
    return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
  };
}
