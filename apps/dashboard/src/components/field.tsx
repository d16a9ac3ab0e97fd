import type { ReactNode } from 'react';
import { fieldId } from '../config/field-pointer.ts';
import { IssueList, issueListId } from './issue-list.tsx';
import { useIssues } from './issues-context.tsx';

export interface ControlProps {
  id: string;
  'aria-invalid': boolean;
  'aria-describedby'?: string;
}

interface FieldProps {
  /** JSON pointer of the value; also the input's id, so issues and tests find it. */
  pointer: string;
  label: string;
  help?: string;
  className?: string;
  children: (control: ControlProps) => ReactNode;
}

/** Label, control and the loader's issues for this pointer, wired for screen readers. */
export function Field({ pointer, label, help, className, children }: FieldProps) {
  const issues = useIssues(pointer);
  const id = fieldId(pointer);
  const described = issues.length > 0 ? issueListId(pointer) : undefined;
  return (
    <div className={`field${issues.length > 0 ? ' field-invalid' : ''}${className ? ` ${className}` : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-invalid': issues.length > 0, ...(described ? { 'aria-describedby': described } : {}) })}
      {help ? <p className="help">{help}</p> : null}
      <IssueList issues={issues} id={issueListId(pointer)} />
    </div>
  );
}
