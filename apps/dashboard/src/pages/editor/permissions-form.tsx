import type { AgentConfigDocument, PermissionRuleConfig } from '@agentry/contract';
import { type ReactNode, useState } from 'react';
import { Field } from '../../components/field.tsx';
import { PointerIssues } from '../../components/issue-list.tsx';
import { useIssueCount } from '../../components/issues-context.tsx';
import { SelectField, TextField } from '../../components/text-field.tsx';
import { useSyncedRows } from '../../components/use-synced-rows.ts';
import type { JsonSchemaNode } from '../../config/agent-config.ts';
import { moveItem } from '../../config/config-edit.ts';
import {
  CONDITION_OPERATORS,
  type ConditionOperator,
  conditionsToWhen,
  type SimpleCondition,
  whenToConditions,
} from '../../config/permission-conditions.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import type { Edit } from './edit.ts';

type Rule = PermissionRuleConfig;
const ACTIONS = ['allow', 'ask', 'deny'] as const;
const OPERATOR_LABELS: Record<ConditionOperator, string> = {
  '>': '>',
  '>=': '≥',
  '<': '<',
  '<=': '≤',
  '=': '=',
  '!=': '≠',
};

/**
 * The agent's permission rules: which tool calls run, wait for a person, or are refused. Tools are
 * picked from the agent's own (or typed as a pattern with *); a rule's condition is built from
 * simple "argument operator value" rows, and only a `when` those cannot express is shown as JSON.
 */
export function PermissionsForm({ config, edit }: { config: AgentConfigDocument; edit: Edit }) {
  const { t } = useI18n();
  const rules = config.permissions ?? [];
  const options = toolOptions(config);
  const setRules = (next: Rule[]) => edit(['permissions'], next.length > 0 ? next : undefined);
  return (
    <section className="card" aria-labelledby="permissions-title">
      <h2 id="permissions-title">{t('permissions.title')}</h2>
      <p className="help">{t('permissions.help')}</p>
      <PointerIssues pointer="/permissions" />
      <datalist id="permission-tools">
        {options.map((name) => (
          <option key={name} value={name} />
        ))}
      </datalist>
      {rules.map((rule, i) => (
        <RuleRow
          // biome-ignore lint/suspicious/noArrayIndexKey: list position is the identity in the config
          key={i}
          config={config}
          rule={rule}
          index={i}
          count={rules.length}
          edit={edit}
          move={(to) => setRules(moveItem(rules, i, to))}
          remove={() => setRules(rules.filter((_, j) => j !== i))}
        />
      ))}
      <button
        type="button"
        className="secondary small"
        id="add-permission"
        onClick={() => edit(['permissions', rules.length], { tool: options[0] ?? '*', action: 'ask' })}
      >
        + {t('permissions.add')}
      </button>
    </section>
  );
}

interface RuleRowProps {
  config: AgentConfigDocument;
  rule: Rule;
  index: number;
  count: number;
  edit: Edit;
  move: (to: number) => void;
  remove: () => void;
}

function RuleRow({ config, rule, index, count, edit, move, remove }: RuleRowProps) {
  const { t } = useI18n();
  const base = `/permissions/${index}`;
  const issues = useIssueCount(base);
  const set = (key: keyof Rule, value: unknown) => edit(['permissions', index, key], value);
  return (
    <section
      className={`row-card${issues ? ' card-invalid' : ''}`}
      aria-label={t('permissions.rule', { n: index + 1 })}
    >
      <div className="card-header">
        <strong>{t('permissions.rule', { n: index + 1 })}</strong>
        <div className="inline">
          <button
            type="button"
            className="icon-button"
            aria-label={t('common.moveUp')}
            disabled={index === 0}
            onClick={() => move(index - 1)}
          >
            ↑
          </button>
          <button
            type="button"
            className="icon-button"
            aria-label={t('common.moveDown')}
            disabled={index === count - 1}
            onClick={() => move(index + 1)}
          >
            ↓
          </button>
          <button type="button" className="secondary small" onClick={remove}>
            {t('common.remove')}
          </button>
        </div>
      </div>
      <PointerIssues pointer={base} />
      <div className="grid-2">
        <Field pointer={`${base}/tool`} label={t('permissions.tool')} help={t('permissions.toolHelp')}>
          {(control) => (
            <input
              {...control}
              list="permission-tools"
              value={rule.tool}
              onChange={(e) => set('tool', e.target.value)}
            />
          )}
        </Field>
        <SelectField
          pointer={`${base}/action`}
          label={t('permissions.action')}
          value={rule.action}
          options={ACTIONS.map((a) => ({ value: a, label: t(`permissions.action.${a}`) }))}
          onChange={(v) => {
            set('action', v);
            if (v !== 'deny') set('message', undefined);
          }}
        />
      </div>
      {rule.action === 'deny' ? (
        <TextField
          pointer={`${base}/message`}
          label={t('permissions.message')}
          help={t('permissions.messageHelp')}
          value={rule.message}
          onChange={(v) => set('message', v || undefined)}
        />
      ) : null}
      <WhenEditor
        base={base}
        when={rule.when}
        argumentNames={argumentNames(config, rule.tool)}
        onChange={(when) => set('when', when)}
      />
    </section>
  );
}

interface WhenEditorProps {
  base: string;
  when: Rule['when'];
  argumentNames: string[];
  onChange: (when: JsonSchemaNode | undefined) => void;
}

/** Simple condition rows while the `when` is one they can say; raw JSON otherwise, or on request. */
function WhenEditor({ base, when, argumentNames, onChange }: WhenEditorProps) {
  const { t } = useI18n();
  const simple = whenToConditions(when);
  const [advanced, setAdvanced] = useState(simple === undefined);
  if (advanced || simple === undefined) {
    return (
      <RawWhen
        base={base}
        when={when}
        onChange={onChange}
        {...(simple !== undefined ? { onSimple: () => setAdvanced(false) } : {})}
      />
    );
  }
  return (
    <ConditionRows base={base} when={when} argumentNames={argumentNames} onChange={onChange}>
      <button type="button" className="secondary small" onClick={() => setAdvanced(true)}>
        {t('permissions.editJson')}
      </button>
    </ConditionRows>
  );
}

function ConditionRows({
  base,
  when,
  argumentNames,
  onChange,
  children,
}: Omit<WhenEditorProps, 'when'> & { when: Rule['when']; children: ReactNode }) {
  const { t } = useI18n();
  const [rows, update] = useSyncedRows<Rule['when'] | JsonSchemaNode | undefined, SimpleCondition>(
    when,
    (value) => whenToConditions(value) ?? [],
    conditionsToWhen,
  );
  const listId = `${base.replaceAll('/', '-')}-arguments`;
  const save = (next: SimpleCondition[]) => update(next, (value) => onChange(value as JsonSchemaNode | undefined));
  const change = (i: number, patch: Partial<SimpleCondition>) =>
    save(rows.map((row, j) => (j === i ? { ...row, ...patch } : row)));
  return (
    <fieldset className="stack">
      <legend>{t('permissions.when')}</legend>
      <p className="help">{rows.length === 0 ? t('permissions.always') : t('permissions.whenHelp')}</p>
      <datalist id={listId}>
        {argumentNames.map((name) => (
          <option key={name} value={name} />
        ))}
      </datalist>
      {rows.map((row, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: list position is the identity of a row
        <div key={i} className="condition-row">
          <input
            aria-label={t('permissions.argumentOf', { n: i + 1 })}
            list={listId}
            placeholder={t('permissions.argument')}
            value={row.argument}
            onChange={(e) => change(i, { argument: e.target.value })}
          />
          <select
            aria-label={t('permissions.operatorOf', { n: i + 1 })}
            value={row.operator}
            onChange={(e) => change(i, { operator: e.target.value as ConditionOperator })}
          >
            {CONDITION_OPERATORS.map((op) => (
              <option key={op} value={op}>
                {OPERATOR_LABELS[op]}
              </option>
            ))}
          </select>
          <input
            aria-label={t('permissions.valueOf', { n: i + 1 })}
            placeholder={t('permissions.value')}
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
          onClick={() => save([...rows, { argument: argumentNames[0] ?? '', operator: '>=', value: '' }])}
        >
          + {t('permissions.addCondition')}
        </button>
        {children}
      </div>
      <PointerIssues pointer={`${base}/when`} />
    </fieldset>
  );
}

/** The `when` as JSON text: kept while it does not parse, written to the config once it does. */
function RawWhen({
  base,
  when,
  onChange,
  onSimple,
}: {
  base: string;
  when: Rule['when'];
  onChange: (when: JsonSchemaNode | undefined) => void;
  onSimple?: () => void;
}) {
  const { t } = useI18n();
  const rendered = when === undefined ? '' : JSON.stringify(when, null, 2);
  const [text, setText] = useState(rendered);
  const [error, setError] = useState(false);
  return (
    <Field pointer={`${base}/when`} label={t('permissions.whenJson')} help={t('permissions.whenJsonHelp')}>
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
              const parsed = parseWhen(e.target.value);
              setError(parsed === false);
              if (parsed !== false) onChange(parsed);
            }}
          />
          {error ? (
            <p className="issues" role="alert">
              {t('permissions.jsonInvalid')}
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
function parseWhen(text: string): JsonSchemaNode | undefined | false {
  if (text.trim() === '') return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as JsonSchemaNode) : false;
  } catch {
    return false;
  }
}

/** What the tool box offers: the agent's tools, skills and flows, each MCP server's tools as a pattern, and `*`. */
export function toolOptions(config: AgentConfigDocument): string[] {
  const names = [
    ...(config.tools ?? []).map((tool) => tool.name),
    ...(config.skills ?? []).map((skill) => `skill__${skill.name}`),
    ...(config.mcp_servers ?? []).map((server) => `${server.name}__*`),
    ...(config.flows ?? []).map((flow) => `flow__${flow.name}`),
    '*',
  ];
  return [...new Set(names.filter(Boolean))];
}

/** Argument names to suggest: the parameters of the tool a rule names exactly. */
function argumentNames(config: AgentConfigDocument, toolName: string): string[] {
  const tool = (config.tools ?? []).find((t) => t.name === toolName);
  if (tool) return Object.keys(tool.parameters?.properties ?? {});
  return toolName.startsWith('skill__') ? ['input'] : [];
}
