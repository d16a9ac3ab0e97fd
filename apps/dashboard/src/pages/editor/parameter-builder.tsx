import type { ParametersSchema } from '@agentry/contract';
import { type ReactNode, useContext, useState } from 'react';
import { IssueList, PointerIssues } from '../../components/issue-list.tsx';
import { IssuesContext } from '../../components/issues-context.tsx';
import { useSyncedRows } from '../../components/use-synced-rows.ts';
import { fieldId } from '../../config/field-pointer.ts';
import { toPointer } from '../../config/json-pointer.ts';
import { blankParamRow, PARAM_TYPES, type ParamRow, rowsToSchema, schemaToRows } from '../../config/schema-builder.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';

interface ParameterBuilderProps {
  pointer: string;
  value: ParametersSchema | undefined;
  onChange: (value: ParametersSchema) => void;
}

/** The tool's arguments as rows; the JSON Schema is generated from them (see schema-builder.ts). */
export function ParameterBuilder({ pointer, value, onChange }: ParameterBuilderProps) {
  const { t } = useI18n();
  const issues = useContext(IssuesContext);
  const [rows, update] = useSyncedRows<ParametersSchema | undefined, ParamRow>(value, schemaToRows, (r) =>
    rowsToSchema(r, value),
  );
  const base = fieldId(pointer);
  const set = (index: number, patch: Partial<ParamRow>) =>
    update(
      rows.map((row, i) => (i === index ? { ...row, ...patch } : row)),
      (v) => onChange(v as ParametersSchema),
    );
  const emit = (next: ParamRow[]) => update(next, (v) => onChange(v as ParametersSchema));
  return (
    <fieldset className="param-builder" id={base}>
      <legend>{t('param.title')}</legend>
      <PointerIssues pointer={pointer} />
      {rows.length === 0 ? <p className="help">{t('param.empty')}</p> : null}
      {rows.length > 0 ? (
        <div className="param-head" aria-hidden="true">
          <span>{t('param.name')}</span>
          <span>{t('param.type')}</span>
          <span>{t('param.required')}</span>
          <span>{t('param.description')}</span>
          <span />
        </div>
      ) : null}
      {rows.map((row, index) => {
        const rowPointer = `${pointer}/properties${toPointer([row.name.trim()])}`;
        const rowIssues = row.name.trim() ? (issues.get(rowPointer) ?? []) : [];
        return (
          <ParamRowEditor
            // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity but their position while editing
            key={index}
            id={`${base}-row${index}`}
            row={row}
            index={index}
            onChange={(patch) => set(index, patch)}
            onRemove={() => emit(rows.filter((_, i) => i !== index))}
            issues={<IssueList issues={rowIssues} id={`${base}-row${index}-issues`} />}
          />
        );
      })}
      <button
        type="button"
        className="secondary small"
        id={`${base}-add`}
        onClick={() => emit([...rows, blankParamRow()])}
      >
        + {t('param.add')}
      </button>
    </fieldset>
  );
}

interface RowProps {
  id: string;
  row: ParamRow;
  index: number;
  onChange: (patch: Partial<ParamRow>) => void;
  onRemove: () => void;
  issues: ReactNode;
}

function ParamRowEditor({ id, row, index, onChange, onRemove, issues }: RowProps) {
  const { t } = useI18n();
  const [more, setMore] = useState(row.enumValues.length > 0 || row.defaultText !== '');
  const [enumDraft, setEnumDraft] = useState('');
  const addEnum = () => {
    const v = enumDraft.trim();
    if (v && !row.enumValues.includes(v)) onChange({ enumValues: [...row.enumValues, v] });
    setEnumDraft('');
  };
  const n = index + 1;
  return (
    <div className="param-row">
      <div className="param-main">
        <input
          id={`${id}-name`}
          aria-label={t('param.nameOf', { n })}
          value={row.name}
          placeholder="email"
          onChange={(e) => onChange({ name: e.target.value })}
        />
        <select
          id={`${id}-type`}
          aria-label={t('param.typeOf', { n })}
          value={row.type}
          onChange={(e) => onChange({ type: e.target.value as ParamRow['type'] })}
        >
          {row.type === '' ? <option value="">{t('param.typeOther')}</option> : null}
          {PARAM_TYPES.map((type) => (
            <option key={type} value={type}>
              {t(`param.typeName.${type}`)}
            </option>
          ))}
        </select>
        <input
          id={`${id}-required`}
          type="checkbox"
          aria-label={t('param.requiredOf', { n })}
          checked={row.required}
          onChange={(e) => onChange({ required: e.target.checked })}
        />
        <input
          id={`${id}-description`}
          aria-label={t('param.descriptionOf', { n })}
          value={row.description}
          onChange={(e) => onChange({ description: e.target.value })}
        />
        <span className="inline">
          <button
            type="button"
            className="icon-button"
            aria-expanded={more}
            aria-label={t('param.more', { n })}
            onClick={() => setMore(!more)}
          >
            ⋯
          </button>
          <button type="button" className="icon-button" aria-label={t('param.remove', { n })} onClick={onRemove}>
            ×
          </button>
        </span>
      </div>
      {more ? (
        <div className="param-more">
          <div className="field">
            <label htmlFor={`${id}-enum`}>{t('param.enum')}</label>
            <div className="inline wrap">
              {row.enumValues.map((v) => (
                <span key={v} className="chip">
                  {v}
                  <button
                    type="button"
                    className="chip-remove"
                    aria-label={t('param.enumRemove', { value: v })}
                    onClick={() => onChange({ enumValues: row.enumValues.filter((x) => x !== v) })}
                  >
                    ×
                  </button>
                </span>
              ))}
              <input
                id={`${id}-enum`}
                value={enumDraft}
                placeholder={t('param.enumPlaceholder')}
                onChange={(e) => setEnumDraft(e.target.value)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter') {
                    e.preventDefault();
                    addEnum();
                  }
                }}
                onBlur={addEnum}
              />
            </div>
          </div>
          <div className="field">
            <label htmlFor={`${id}-default`}>{t('param.default')}</label>
            <input
              id={`${id}-default`}
              value={row.defaultText}
              onChange={(e) => onChange({ defaultText: e.target.value })}
            />
          </div>
          {Object.keys(row.extra).length > 0 ? (
            <p className="help">
              {t('param.extra')} <code>{JSON.stringify(row.extra)}</code>
            </p>
          ) : null}
        </div>
      ) : null}
      {issues}
    </div>
  );
}
