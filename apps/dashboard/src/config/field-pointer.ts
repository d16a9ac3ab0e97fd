import type { FieldIssue } from '@agentry/contract';
import { parsePointer, toPointer } from './json-pointer.ts';

const KEYED_SECTIONS = new Set(['headers', 'query_params', 'body']);

/**
 * The form field a loader issue belongs to: the pointer cut down to the deepest thing the editor
 * shows as one field. Form fields use these pointers as their ids, so an issue at
 * `/tools/0/endpoint/body/email` lands on the body row `email`, and one at
 * `/tools/0/parameters/properties/email/type` on the parameter row `email`.
 */
export function fieldPointer(pointer: string): string {
  const s = parsePointer(pointer);
  const [top, index] = s;
  if (top === 'basic_settings' || top === 'model' || top === 'limits' || top === 'knowledge')
    return toPointer(s.slice(0, 2));
  if (top === 'action_books' || top === 'context' || top === 'permissions')
    return toPointer(s.slice(0, index === undefined ? 1 : 3));
  if (top === 'flows' && index !== undefined) return flowFieldPointer(s);
  if (top !== 'tools' || index === undefined) return toPointer(s.slice(0, 1));
  const part = s[2];
  if (part === undefined) return toPointer(s.slice(0, 2));
  if (part === 'endpoint') {
    const section = s[3];
    if (section && KEYED_SECTIONS.has(section)) return toPointer(s.slice(0, s.length > 4 ? 5 : 4));
    return toPointer(s.slice(0, section === undefined ? 3 : 4));
  }
  if (part === 'parameters') {
    if (s[3] === 'properties' && s[4] !== undefined) return toPointer(s.slice(0, 5));
    return toPointer(s.slice(0, 3));
  }
  if (part === 'response') return toPointer(s.slice(0, s[3] === undefined ? 3 : 4));
  return toPointer(s.slice(0, 3));
}

/**
 * Flow fields: `/flows/0/name`, a trigger pattern row, a slot row (its schema issues on the row,
 * its description and pattern on their inputs), a step's field, an argument or save row, a branch.
 */
function flowFieldPointer(s: string[]): string {
  const part = s[2];
  if (part === undefined) return toPointer(s.slice(0, 2));
  if (part === 'triggers') return toPointer(s.slice(0, 5));
  if (part === 'slots') return toPointer(s.slice(0, s[4] === 'pattern' || s[4] === 'description' ? 5 : 4));
  if (part !== 'steps' || s[3] === undefined) return toPointer(s.slice(0, 3));
  const field = s[4];
  if (field === 'arguments' || field === 'save' || field === 'branches') return toPointer(s.slice(0, 6));
  return toPointer(s.slice(0, field === undefined ? 4 : 5));
}

/** Issues grouped by the field they belong to. */
export function issuesByField(issues: FieldIssue[]): Map<string, FieldIssue[]> {
  const out = new Map<string, FieldIssue[]>();
  for (const issue of issues) {
    const key = fieldPointer(issue.path);
    out.set(key, [...(out.get(key) ?? []), issue]);
  }
  return out;
}

/** Whether an issue sits at or under `prefix` (for counts on a collapsed card or a tab). */
export function isUnder(pointer: string, prefix: string): boolean {
  return pointer === prefix || pointer.startsWith(`${prefix}/`);
}

/** DOM id of the field for a pointer; ids must be stable and valid in a CSS selector. */
export function fieldId(pointer: string): string {
  return `f${pointer.replace(/[^A-Za-z0-9-]/g, (c) => `_${c.charCodeAt(0).toString(16)}`)}`;
}
