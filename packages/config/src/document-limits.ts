import type { FieldIssue } from '@agentry/errors';

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
