import { type ReactNode, useState } from 'react';
import type { JsonSchemaNode } from '../config/agent-config.ts';
import { fieldId } from '../config/field-pointer.ts';
import {
  CONDITION_OPERATORS,
  type ConditionOperator,
  conditionsToWhen,
  type SimpleCondition,
  whenToConditions,
} from '../config/permission-conditions.ts';
import { useI18n } from '../i18n/i18n-context.tsx';
import { Field } from './field.tsx';
import { PointerIssues } from './issue-list.tsx';
import { useSyncedRows } from './use-synced-rows.ts';

/** What the editor says around its rows: the rule's "Only when", a test's "With arguments". */
export interface ConditionLabels {
  legend: string;
  /** Shown while there is no condition (what that means). */
  empty: string;
  /** Shown under the rows. */
  help: string;
  /** The JSON box's label and help. */
  json: string;
  jsonHelp: string;
  /** Shown while the JSON box holds no object. */
  jsonInvalid: string;
}

interface ConditionEditorProps {
  /** Pointer of the schema (a rule's `when`, a test's `arguments`): its issues land here, ids derive from it. */
  pointer: string;
  value: unknown;
  /** Argument names to suggest (the tool's parameters). */
  argumentNames: string[];
  /** The arguments the tool declares as text: "= 1042" stays the text "1042" for them. */
  textArguments?: readonly string[];
  onChange: (schema: JsonSchemaNode | undefined) => void;
  labels: ConditionLabels;
  /** A new row's comparison (a permission's "amount ≥ …", a test's "order_id = …"). */
  newOperator?: ConditionOperator;
}

/**
 * A JSON Schema over a tool call's arguments as simple "argument / comparison / value" rows while
 * the schema is one they can say; as raw JSON otherwise, or on request. Used by the permission
 * rules and by the tests' argument expectations and fixture conditions.
 *
 * @example
 * <ConditionEditor pointer="/permissions/0/when" value={rule.when} argumentNames={['amount']}
 *   onChange={(when) => set('when', when)} labels={whenLabels} />
 */
export function ConditionEditor(props: ConditionEditorProps) {
  const { t } = useI18n();
  const simple = whenToConditions(props.value, new Set(props.textArguments));
  const [advanced, setAdvanced] = useState(simple === undefined);
  if (advanced || simple === undefined) {
    return <RawSchema {...props} {...(simple !== undefined ? { onSimple: () => setAdvanced(false) } : {})} />;
  }
  return (
    <ConditionRows {...props}>
      <button
        type="button"
        className="secondary small"
        id={`${fieldId(props.pointer)}-json`}
        onClick={() => setAdvanced(true)}
      >
        {t('permissions.editJson')}
      </button>
    </ConditionRows>
  );
}

function ConditionRows(props: ConditionEditorProps & { children: ReactNode }) {
  const { pointer, value, argumentNames, onChange, labels, newOperator = '=', children } = props;
  const { t } = useI18n();
  const text = new Set(props.textArguments);
  const [rows, update] = useSyncedRows<unknown, SimpleCondition>(
    value,
    (schema) => whenToConditions(schema, text) ?? [],
    (next) => conditionsToWhen(next, text),
  );
  const base = fieldId(pointer);
  const listId = `${base}-arguments`;
  const save = (next: SimpleCondition[]) => update(next, (schema) => onChange(schema as JsonSchemaNode | undefined));
  const change = (i: number, patch: Partial<SimpleCondition>) =>
    save(rows.map((row, j) => (j === i ? { ...row, ...patch } : row)));
  return (
    <fieldset className="stack" id={base}>
      <legend>{labels.legend}</legend>
      <p className="help">{rows.length === 0 ? labels.empty : labels.help}</p>
      <datalist id={listId}>
        {argumentNames.map((name) => (
          <option key={name} value={name} />
        ))}
      </datalist>
      {rows.map((row, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: list position is the identity of a row
        <div key={i} className="condition-row">
          <input
            id={`${base}-row${i}-argument`}
            aria-label={t('permissions.argumentOf', { n: i + 1 })}
            list={listId}
            placeholder={t('permissions.argument')}
            value={row.argument}
            onChange={(e) => change(i, { argument: e.target.value })}
          />
          <select
            id={`${base}-row${i}-operator`}
            aria-label={t('permissions.operatorOf', { n: i + 1 })}
            value={row.operator}
            onChange={(e) => change(i, { operator: e.target.value as ConditionOperator })}
          >
            {CONDITION_OPERATORS.map((op) => (
              <option key={op} value={op}>
                {op === 'matches' ? t('conditions.matches') : OPERATOR_SYMBOLS[op]}
              </option>
            ))}
          </select>
          <input
            id={`${base}-row${i}-value`}
            aria-label={t('permissions.valueOf', { n: i + 1 })}
            placeholder={row.operator === 'matches' ? t('conditions.pattern') : t('permissions.value')}
            value={row.value}
            onChange={(e) => change(i, { value: e.target.value })}
          />
          <button
            type="button"
            className="secondary small"
            aria-label={t('permissions.removeCondition', { n: i + 1 })}
            onClick={() => save(rows.filter((_, j) => j !== i))}
          >
            ×
          </button>
        </div>
      ))}
      <div className="inline">
        <button
          type="button"
          className="secondary small"
          id={`${base}-add`}
          onClick={() => save([...rows, { argument: argumentNames[0] ?? '', operator: newOperator, value: '' }])}
        >
          + {t('permissions.addCondition')}
        </button>
        {children}
      </div>
      <PointerIssues pointer={pointer} />
    </fieldset>
  );
}

const OPERATOR_SYMBOLS: Record<Exclude<ConditionOperator, 'matches'>, string> = {
  '>': '>',
  '>=': '≥',
  '<': '<',
  '<=': '≤',
  '=': '=',
  '!=': '≠',
};

/** The schema as JSON text: kept while it does not parse, passed on once it does. */
function RawSchema({ pointer, value, onChange, labels, onSimple }: ConditionEditorProps & { onSimple?: () => void }) {
  const { t } = useI18n();
  const rendered = value === undefined ? '' : JSON.stringify(value, null, 2);
  const [text, setText] = useState(rendered);
  const [error, setError] = useState(false);
  return (
    <Field pointer={pointer} label={labels.json} help={labels.jsonHelp}>
      {(control) => (
        <>
          <textarea
            {...control}
            className="code-editor"
            rows={4}
            spellCheck={false}
            value={text}
            onChange={(e) => {
              setText(e.target.value);
              const parsed = parseSchema(e.target.value);
              setError(parsed === false);
              if (parsed !== false) onChange(parsed);
            }}
          />
          {error ? (
            <p className="issues" role="alert">
              {labels.jsonInvalid}
            </p>
          ) : null}
          {onSimple ? (
            <div>
              <button type="button" className="secondary small" onClick={onSimple}>
                {t('permissions.useConditions')}
              </button>
            </div>
          ) : null}
        </>
      )}
    </Field>
  );
}

/** The JSON object typed, undefined for an empty box, false when it is not an object. */
function parseSchema(text: string): JsonSchemaNode | undefined | false {
  if (text.trim() === '') return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as JsonSchemaNode) : false;
  } catch {
    return false;
  }
}
