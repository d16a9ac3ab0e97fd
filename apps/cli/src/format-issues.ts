import { readablePath } from '@agentry/config';
import type { FieldIssue } from '@agentry/errors';

/**
 * Human-readable lines for a list of issues: where, what (with its code) and the hint.
 *
 * @example
 * formatIssues([{ path: '/tools/0/endpont', code: 'unknown_key', message: 'tools[0] has an unknown key `endpont`' }]);
 */
export function formatIssues(issues: readonly FieldIssue[]): string {
  return issues
    .map((issue) => {
      const head = `  ✗ ${readablePath(issue.path)}  [${issue.code}]\n    ${issue.message}`;
      return issue.hint ? `${head}\n    hint: ${issue.hint}` : head;
    })
    .join('\n');
}
