import { checkAgentConfig } from '@agentry/config';
import type { ToolConfig } from '@agentry/contract';
import { errors, type FieldIssue } from '@agentry/errors';

/** Tools per check: under the config's 128 tools, and well under its 1 MB. */
const BATCH = 50;
const BATCH_BYTES = 600_000;

/**
 * Runs the imported tools through the normal loader, on a minimal config carrying them (in batches,
 * as a config holds at most 128 tools). Throws the loader's one-pass 422 `validation_failed`, its
 * pointers rewritten to `/tools/<index in the import>/…`, when any tool does not load.
 */
export function assertToolsLoad(tools: ToolConfig[]): void {
  const issues: FieldIssue[] = [];
  for (let start = 0; start < tools.length; ) {
    // As many tools as fit (a tool too large for any config is checked alone, and fails as it should).
    let end = start;
    let bytes = 0;
    while (end < tools.length && end - start < BATCH) {
      const size = JSON.stringify(tools[end]).length;
      if (end > start && bytes + size > BATCH_BYTES) break;
      bytes += size;
      end++;
    }
    const offset = start;
    const result = checkAgentConfig({ basic_settings: { name: 'Import check' }, tools: tools.slice(start, end) });
    start = end;
    if (result.ok) continue;
    for (const issue of result.issues) {
      const path = issue.path.replace(/^\/tools\/(\d+)/, (_m, i: string) => `/tools/${offset + Number(i)}`);
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
