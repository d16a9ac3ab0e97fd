import type { FieldIssue } from '@agentry/contract';
import { fieldId } from '../config/field-pointer.ts';
import { useIssues } from './issues-context.tsx';

export function issueListId(pointer: string): string {
  return `${fieldId(pointer)}-issues`;
}

/** A field's loader messages with their hints, announced to screen readers as they change. */
export function IssueList({ issues, id }: { issues: FieldIssue[]; id?: string }) {
  if (issues.length === 0) return null;
  return (
    <ul className="issues" id={id} aria-live="polite">
      {issues.map((issue) => (
        <li key={`${issue.code}:${issue.path}:${issue.message}`} data-code={issue.code}>
          <span className="issue-message">{issue.message}</span>
          {issue.hint ? <span className="issue-hint">{issue.hint}</span> : null}
        </li>
      ))}
    </ul>
  );
}

/** The issues of one pointer that has no input of its own (a card, a section). */
export function PointerIssues({ pointer }: { pointer: string }) {
  return <IssueList issues={useIssues(pointer)} id={issueListId(pointer)} />;
}
