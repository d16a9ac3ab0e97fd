import type { FlowConfig, FlowStepConfig } from '@agentry/contract';
import { useState } from 'react';
import { Field } from '../../components/field.tsx';
import { IssueList } from '../../components/issue-list.tsx';
import { useIssues } from '../../components/issues-context.tsx';
import { fieldId } from '../../config/field-pointer.ts';
import {
  CONDITION_OPS,
  type Condition,
  type ConditionOp,
  conditionSchema,
  parseCondition,
} from '../../config/flow-conditions.ts';
import { slotKind } from '../../config/flow-slots.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { StepPicker } from './step-picker.tsx';

type Branch = NonNullable<FlowStepConfig['branches']>[number];

interface BranchesProps {
  flow: FlowConfig;
  step: FlowStepConfig;
  pointer: string;
  onChange: (step: FlowStepConfig) => void;
}

/** A branch step: conditions tried in order (slot, operator, value), each going to a step; else. */
export function FlowBranchesEditor({ flow, step, pointer, onChange }: BranchesProps) {
  const { t } = useI18n();
  const branches = step.branches ?? [];
  const slots = Object.keys(flow.slots ?? {});
  const setBranches = (next: Branch[]) => onChange({ ...step, branches: next });
  const blank = (): Branch => ({
    when: conditionSchema({ slot: slots[0] ?? 'value', op: 'filled', value: '' }),
    goto: '',
  });
  return (
    <fieldset className="flow-branches">
      <legend>{t('flows.branches')}</legend>
      {branches.map((branch, b) => (
        <BranchRow
          // biome-ignore lint/suspicious/noArrayIndexKey: list position is the identity in the config
          key={b}
          flow={flow}
          step={step}
          pointer={`${pointer}/branches/${b}`}
          n={b}
          branch={branch}
          onChange={(next) => setBranches(branches.map((x, i) => (i === b ? next : x)))}
          onRemove={() => setBranches(branches.filter((_, i) => i !== b))}
        />
      ))}
      <button type="button" className="secondary small" onClick={() => setBranches([...branches, blank()])}>
        + {t('flows.addBranch')}
      </button>
      <StepPicker
        pointer={`${pointer}/else`}
        label={t('flows.else')}
        value={step.else}
        steps={flow.steps}
        self={step.id}
        defaultLabel={t('flows.nextDefault')}
        onChange={(v) => onChange({ ...step, else: v })}
      />
    </fieldset>
  );
}

interface BranchRowProps {
  flow: FlowConfig;
  step: FlowStepConfig;
  pointer: string;
  n: number;
  branch: Branch;
  onChange: (branch: Branch) => void;
  onRemove: () => void;
}

/** A value typed in the form, as the slot's type (numbers compare as numbers, yes/no as booleans). */
function typedValue(flow: FlowConfig, slot: string, text: string): string | number | boolean {
  const kind = slotKind(flow.slots?.[slot]?.schema);
  if ((kind === 'number' || kind === 'integer') && text.trim() !== '' && Number.isFinite(Number(text)))
    return Number(text);
  if (kind === 'boolean') return text === 'true';
  return text;
}

function BranchRow({ flow, step, pointer, n, branch, onChange, onRemove }: BranchRowProps) {
  const { t } = useI18n();
  const condition = parseCondition(branch.when);
  const [advanced, setAdvanced] = useState(!condition);
  const issues = useIssues(pointer);
  const id = fieldId(pointer);
  const setCondition = (patch: Partial<Condition>) => {
    const next = { ...(condition ?? { slot: '', op: 'filled' as const, value: '' }), ...patch };
    onChange({ ...branch, when: conditionSchema(next) });
  };
  const kind = condition ? slotKind(flow.slots?.[condition.slot]?.schema) : 'text';
  return (
    <div className={`flow-branch${issues.length ? ' field-invalid' : ''}`} id={id}>
      <p className="muted">{t('flows.branchN', { n: n + 1 })}</p>
      {advanced || !condition ? (
        <RawCondition id={`${id}-json`} value={branch.when} onChange={(when) => onChange({ ...branch, when })} />
      ) : (
        <div className="grid-3">
          <Field pointer={`${pointer}/slot`} label={t('flows.conditionSlot')}>
            {(control) => (
              <select {...control} value={condition.slot} onChange={(e) => setCondition({ slot: e.target.value })}>
                {Object.keys(flow.slots ?? {}).map((name) => (
                  <option key={name} value={name}>
                    {name}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field pointer={`${pointer}/op`} label={t('flows.conditionOp')}>
            {(control) => (
              <select
                {...control}
                value={condition.op}
                onChange={(e) => setCondition({ op: e.target.value as ConditionOp })}
              >
                {CONDITION_OPS.map((op) => (
                  <option key={op} value={op}>
                    {t(`flows.op.${op}`)}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {condition.op === 'filled' ? null : (
            <Field pointer={`${pointer}/value`} label={t('flows.conditionValue')}>
              {(control) =>
                kind === 'boolean' ? (
                  <select
                    {...control}
                    value={String(condition.value)}
                    onChange={(e) => setCondition({ value: e.target.value === 'true' })}
                  >
                    <option value="true">{t('flows.yes')}</option>
                    <option value="false">{t('flows.no')}</option>
                  </select>
                ) : (
                  <input
                    {...control}
                    value={String(condition.value)}
                    onChange={(e) => setCondition({ value: typedValue(flow, condition.slot, e.target.value) })}
                  />
                )
              }
            </Field>
          )}
        </div>
      )}
      <div className="inline">
        <StepPicker
          pointer={`${pointer}/goto`}
          label={t('flows.goto')}
          value={branch.goto || undefined}
          steps={flow.steps}
          self={step.id}
          defaultLabel={t('flows.pickStep')}
          onChange={(v) => onChange({ ...branch, goto: v ?? '' })}
        />
        <label className="kv-json-toggle">
          <input type="checkbox" checked={advanced || !condition} onChange={(e) => setAdvanced(e.target.checked)} />
          {t('flows.advanced')}
        </label>
        <button type="button" className="secondary small" onClick={onRemove}>
          {t('common.remove')}
        </button>
      </div>
      <IssueList issues={issues} id={`${id}-issues`} />
    </div>
  );
}

/** The condition as raw JSON Schema, for what the form cannot say; kept as typed until it parses. */
function RawCondition({
  id,
  value,
  onChange,
}: {
  id: string;
  value: unknown;
  onChange: (when: Record<string, unknown>) => void;
}) {
  const { t } = useI18n();
  const [text, setText] = useState(() => JSON.stringify(value ?? {}, null, 2));
  const [bad, setBad] = useState(false);
  return (
    <div className="field">
      <label htmlFor={id}>{t('flows.conditionJson')}</label>
      <textarea
        id={id}
        className="mono"
        rows={4}
        spellCheck={false}
        aria-invalid={bad}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          try {
            const parsed = JSON.parse(e.target.value);
            setBad(false);
            if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) onChange(parsed);
          } catch {
            setBad(true);
          }
        }}
      />
      {bad ? <p className="issues">{t('flows.conditionJsonBad')}</p> : null}
    </div>
  );
}
