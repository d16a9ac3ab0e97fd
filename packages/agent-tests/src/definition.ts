import { argumentsValidator, schemaNodeIssues } from '@agentry/config';
import { type AgentTestDefinition, AgentTestDefinitionSchema } from '@agentry/contract/schemas';
import type { FieldIssue } from '@agentry/errors';
import { RE2JS } from 're2js';

/**
 * Checks a test case (the contract's `AgentTestDefinition`) in one pass: its shape, every JSON
 * Schema it holds against the platform's safe subset (the one of permission rules' `when`), and
 * every `reply_matches` pattern as RE2. Paths start at `prefix` (e.g. `/tests/3`).
 *
 * @example
 * const checked = checkTestDefinition(body, '');
 * if (!checked.ok) throw errors.validation('The test is not valid', checked.issues);
 */
export function checkTestDefinition(
  input: unknown,
  prefix = '',
): { ok: true; definition: AgentTestDefinition } | { ok: false; issues: FieldIssue[] } {
  const parsed = AgentTestDefinitionSchema.safeParse(input);
  if (!parsed.success) {
    return {
      ok: false,
      issues: parsed.error.issues.map((issue) => ({
        path: `${prefix}${pointer(issue.path)}`,
        code: issue.code,
        message: issue.message,
      })),
    };
  }
  const definition = parsed.data;
  const issues: FieldIssue[] = [];
  const schemaAt = (path: string, node: Record<string, unknown>) => {
    const found = schemaNodeIssues(node);
    for (const issue of found) issues.push({ ...issue, path: `${prefix}${path}${issue.path}` });
    if (found.length > 0) return;
    // What the subset allows must also compile (patterns are RE2: no lookaround, no backreferences).
    try {
      argumentsValidator(node);
    } catch (error) {
      issues.push({
        path: `${prefix}${path}`,
        code: 'invalid_schema',
        message: `the schema does not compile: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
  };
  definition.turns.forEach((turn, t) => {
    turn.expect.forEach((expectation, e) => {
      const at = `/turns/${t}/expect/${e}`;
      if (expectation.type === 'tool_called' && expectation.arguments)
        schemaAt(`${at}/arguments`, expectation.arguments);
      if (expectation.type === 'reply_matches') {
        try {
          RE2JS.compile(expectation.pattern);
        } catch (error) {
          issues.push({
            path: `${prefix}${at}/pattern`,
            code: 'invalid_pattern',
            message: `not an RE2 pattern: ${error instanceof Error ? error.message : String(error)}`,
          });
        }
      }
    });
  });
  definition.fixtures.forEach((fixture, f) => {
    if (fixture.when) schemaAt(`/fixtures/${f}/when`, fixture.when);
  });
  return issues.length > 0 ? { ok: false, issues } : { ok: true, definition };
}

function pointer(path: readonly PropertyKey[]): string {
  return path.map((p) => `/${String(p).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}
