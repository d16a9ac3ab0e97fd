import { useContext } from 'react';
import { fieldId } from '../config/field-pointer.ts';
import { toPointer } from '../config/json-pointer.ts';
import { type KeyValueRow, objectToRows, rowsToObject } from '../config/key-value-rows.ts';
import type { PlaceholderChoice } from '../config/placeholders.ts';
import { useI18n } from '../i18n/i18n-context.tsx';
import { IssueList, issueListId } from './issue-list.tsx';
import { IssuesContext } from './issues-context.tsx';
import { TemplateInput } from './template-input.tsx';
import { useSyncedRows } from './use-synced-rows.ts';

interface KeyValueEditorProps {
  /** Pointer of the object, e.g. /tools/0/endpoint/body; a row's issues sit at pointer + /key. */
  pointer: string;
  label: string;
  value: Record<string, unknown> | undefined;
  onChange: (value: Record<string, unknown> | undefined) => void;
  choices: PlaceholderChoice[];
  keyPlaceholder?: string;
}

/** Headers, query parameters or a JSON body as key/value rows whose values are templates. */
export function KeyValueEditor({ pointer, label, value, onChange, choices, keyPlaceholder }: KeyValueEditorProps) {
  const { t } = useI18n();
  const issues = useContext(IssuesContext);
  const [rows, update] = useSyncedRows<Record<string, unknown> | undefined, KeyValueRow>(value, objectToRows, (r) => {
    const object = rowsToObject(r);
    return r.length === 0 ? undefined : object;
  });
  const base = fieldId(pointer);
  const set = (index: number, patch: Partial<KeyValueRow>) =>
    update(
      rows.map((row, i) => (i === index ? { ...row, ...patch } : row)),
      onChange,
    );
  const sectionIssues = issues.get(pointer) ?? [];
  return (
    <fieldset className="kv-editor" id={base}>
      <legend>{label}</legend>
      <IssueList issues={sectionIssues} id={issueListId(pointer)} />
      {rows.length === 0 ? <p className="help">{t('kv.empty')}</p> : null}
      {rows.map((row, index) => {
        const rowPointer = `${pointer}${toPointer([row.key.trim()])}`;
        const rowIssues = row.key.trim() ? (issues.get(rowPointer) ?? []) : [];
        const rowId = `${base}-row${index}`;
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity but their position while editing
          <div key={index} className={`kv-row${rowIssues.length > 0 ? ' field-invalid' : ''}`}>
            <input
              id={`${rowId}-key`}
              className="kv-key"
              aria-label={t('kv.key', { label, n: index + 1 })}
              placeholder={keyPlaceholder ?? t('kv.keyPlaceholder')}
              value={row.key}
              onChange={(e) => set(index, { key: e.target.value })}
            />
            {row.json ? (
              <input
                id={`${rowId}-value`}
                className="kv-json"
                aria-label={t('kv.valueJson', { label, n: index + 1 })}
                value={row.value}
                spellCheck={false}
                onChange={(e) => set(index, { value: e.target.value })}
              />
            ) : (
              <TemplateInput
                id={`${rowId}-value`}
                aria-invalid={rowIssues.length > 0}
                {...(rowIssues.length > 0 ? { 'aria-describedby': `${rowId}-issues` } : {})}
                ariaLabel={t('kv.value', { label, n: index + 1 })}
                value={row.value}
                choices={choices}
                onChange={(v) => set(index, { value: v })}
              />
            )}
            <label className="kv-json-toggle" title={t('kv.jsonHelp')}>
              <input type="checkbox" checked={row.json} onChange={(e) => set(index, { json: e.target.checked })} />
              JSON
            </label>
            <button
              type="button"
              className="icon-button"
              aria-label={t('kv.remove', { label, n: index + 1 })}
              onClick={() =>
                update(
                  rows.filter((_, i) => i !== index),
                  onChange,
                )
              }
            >
              ×
            </button>
            <IssueList issues={rowIssues} id={`${rowId}-issues`} />
          </div>
        );
      })}
      <button
        type="button"
        className="secondary small"
        id={`${base}-add`}
        onClick={() => update([...rows, { key: '', value: '', json: false }], onChange)}
      >
        + {t('kv.add')}
      </button>
    </fieldset>
  );
}
