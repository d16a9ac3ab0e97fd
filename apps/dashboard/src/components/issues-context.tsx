import type { FieldIssue } from '@agentry/contract';
import { createContext, useContext } from 'react';

/** Loader issues of the draft, keyed by the field pointer they belong to (see field-pointer.ts). */
export const IssuesContext = createContext<Map<string, FieldIssue[]>>(new Map());

export function useIssues(pointer: string): FieldIssue[] {
  return useContext(IssuesContext).get(pointer) ?? [];
}

/** How many issues lie at or under `prefix`, for badges on tabs and cards. */
export function useIssueCount(prefix: string): number {
  const all = useContext(IssuesContext);
  let n = 0;
  for (const [pointer, list] of all) if (pointer === prefix || pointer.startsWith(`${prefix}/`)) n += list.length;
  return n;
}
