import { checkAgentConfig } from '@agentry/config';
import type { ToolConfig } from '@agentry/contract';
import { errors, type FieldIssue } from '@agentry/errors';

/** Tools per check: under the config's 128, and small enough for its 1 MB. */
const BATCH = 50;

/**
 * Runs the imported tools through the normal loader, on a minimal config carrying them (in batches,
 * as a config holds at most 128 tools). Throws the loader's one-pass 422 `validation_failed`, its
 * pointers rewritten to `/tools/<index in the import>/…`, when any tool does not load.
 */
export function assertToolsLoad(tools: ToolConfig[]): void {
  const issues: FieldIssue[] = [];
  for (let start = 0; start < tools.length; start += BATCH) {
    const batch = tools.slice(start, start + BATCH);
    const result = checkAgentConfig({ basic_settings: { name: 'Import check' }, tools: batch });
    if (result.ok) continue;
    for (const issue of result.issues) {
      const path = issue.path.replace(/^\/tools\/(\d+)/, (_m, i: string) => `/tools/${start + Number(i)}`);
      issues.push({ ...issue, path });
    }
  }
  if (issues.length > 0) {
    throw errors.validation(
      `${issues.length} problem${issues.length === 1 ? '' : 's'} in the imported tools; nothing is returned`,
      issues.slice(0, 100),
    );
  }
}
