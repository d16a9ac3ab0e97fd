import type { FieldIssue } from '@agentry/errors';
import { pointer } from './json-pointer.ts';

/**
 * How deeply a value nests (a scalar is 0). Iterative, so a hostile document cannot overflow the stack.
 *
 * @example
 * nestingDepth({ a: [1] }); // 2
 */
export function nestingDepth(value: unknown, stopAt = Number.POSITIVE_INFINITY): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    const level = depth + 1;
    if (level > deepest) deepest = level;
    if (deepest > stopAt) return deepest;
    for (const child of Object.values(node)) stack.push([child, level]);
  }
  return deepest;
}

/**
 * Size and depth problems of an uploaded document (checked before anything else looks at it).
 *
 * @example
 * documentLimitIssues('{"a":1}', { a: 1 }, { maxBytes: 10, maxDepth: 5 }); // []
 */
export function documentLimitIssues(
  json: string,
  value: unknown,
  limits: { maxBytes: number; maxDepth: number },
): FieldIssue[] {
  const bytes = Buffer.byteLength(json);
  if (bytes > limits.maxBytes) {
    return [
      {
        path: '',
        code: 'config_too_large',
        message: `the configuration is ${bytes} bytes; the limit is ${limits.maxBytes}`,
        hint: 'split very large tool sets into several agents, or shorten descriptions',
      },
    ];
  }
  if (nestingDepth(value, limits.maxDepth) > limits.maxDepth) {
    return [
      {
        path: '',
        code: 'config_too_deep',
        message: `the configuration nests deeper than ${limits.maxDepth} levels`,
        hint: 'flatten request bodies and parameter schemas',
      },
    ];
  }
  return [];
}

/**
 * What canonical JSON (RFC 8785) cannot encode — a string or key with a lone UTF-16 surrogate, a
 * number that is not finite (`1e400` parses to Infinity) — and nesting deeper than `maxDepth`, as
 * issues. Checked before the document is canonicalised, which would throw (or, that deep, overflow
 * the stack) on them. Iterative; at most 20 issues.
 *
 * @example
 * unencodableIssues({ name: '\ud800' }, 24); // [{ path: '/name', code: 'lone_surrogate', … }]
 */
export function unencodableIssues(value: unknown, maxDepth: number): FieldIssue[] {
  if (nestingDepth(value, maxDepth) > maxDepth) {
    return [
      {
        path: '',
        code: 'config_too_deep',
        message: `the configuration nests deeper than ${maxDepth} levels`,
        hint: 'flatten request bodies and parameter schemas',
      },
    ];
  }
  const found: FieldIssue[] = [];
  const surrogate = (path: Array<string | number>): FieldIssue => ({
    path: pointer(...path).toWellFormed(),
    code: 'lone_surrogate',
    message: 'contains a lone UTF-16 surrogate (e.g. \\ud800 without its pair), which is not valid Unicode',
  });
  const stack: Array<[unknown, Array<string | number>]> = [[value, []]];
  while (stack.length > 0 && found.length < 20) {
    const [node, path] = stack.pop()!;
    if (typeof node === 'string' && !node.isWellFormed()) found.push(surrogate(path));
    else if (typeof node === 'number' && !Number.isFinite(node)) {
      found.push({ path: pointer(...path), code: 'non_finite_number', message: 'must be a finite number' });
    } else if (node !== null && typeof node === 'object') {
      for (const [key, child] of Object.entries(node).reverse()) {
        if (key.isWellFormed()) stack.push([child, [...path, Array.isArray(node) ? Number(key) : key]]);
        else found.push(surrogate([...path, key]));
      }
    }
  }
  return found;
}
