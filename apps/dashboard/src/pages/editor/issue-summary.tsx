import type { FieldIssue } from '@agentry/contract';
import { fieldId, fieldPointer } from '../../config/field-pointer.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import type { EditorTab } from '../../router/routes.ts';

/** Which editor tab shows the field of an issue. */
export function tabForPointer(pointer: string): EditorTab {
  if (pointer.startsWith('/action_books')) return 'actions';
  if (pointer.startsWith('/tools') || pointer.startsWith('/permissions')) return 'tools';
  if (pointer.startsWith('/flows')) return 'flows';
  if (/^\/(basic_settings|model|limits|context|knowledge)/.test(pointer)) return 'settings';
  return 'json';
}

/** The issues shown (see plain-issues.ts) in one list; each, in plain words, jumps to its field. */
export function IssueSummary({
  issues,
  onJump,
}: {
  issues: FieldIssue[];
  onJump: (tab: EditorTab, id: string) => void;
}) {
  const { t } = useI18n();
  if (issues.length === 0) return null;
  return (
    <details className="issue-summary" open={issues.length <= 3}>
      <summary>{t('editor.problems', { n: issues.length })}</summary>
      <ul>
        {issues.map((issue) => {
          const field = fieldPointer(issue.path);
          return (
            <li key={`${issue.path}:${issue.code}:${issue.message}`}>
              {/* The message names the field by its label (plain-issues.ts); the link goes there. */}
              <button type="button" className="link" onClick={() => onJump(tabForPointer(field), fieldId(field))}>
                {issue.message}
              </button>
              {issue.hint ? <span className="issue-hint"> {issue.hint}</span> : null}
            </li>
          );
        })}
      </ul>
    </details>
  );
}
