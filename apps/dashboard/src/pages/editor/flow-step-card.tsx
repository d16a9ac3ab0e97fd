import type { AgentConfigDocument, FlowConfig, FlowStepConfig } from '@agentry/contract';
import { Field } from '../../components/field.tsx';
import { PointerIssues } from '../../components/issue-list.tsx';
import { useIssueCount } from '../../components/issues-context.tsx';
import { MoveButtons } from '../../components/move-buttons.tsx';
import { SelectField, TextField } from '../../components/text-field.tsx';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { FlowBranchesEditor } from './flow-branches-editor.tsx';
import { STEP_TYPES, type StepType } from './flow-steps-editor.tsx';
import { FlowToolStep } from './flow-tool-step.tsx';
import { StepPicker } from './step-picker.tsx';

interface StepCardProps {
  config: AgentConfigDocument;
  flow: FlowConfig;
  step: FlowStepConfig;
  index: number;
  /** `/flows/<i>/steps/<k>`. */
  pointer: string;
  last: boolean;
  onChange: (step: FlowStepConfig) => void;
  onRename: (id: string) => void;
  onMove: (by: number) => void;
  onRemove: () => void;
}

/** Steps whose way on is `next` (confirm and branch have their own exits; end and handoff stop). */
const HAS_NEXT = new Set(['ask', 'tool', 'reply']);

/** One step: its id and type, then the fields of its type. */
export function FlowStepCard(props: StepCardProps) {
  const { step, index, pointer, last, onChange, onRename, onMove, onRemove } = props;
  const { t } = useI18n();
  const issues = useIssueCount(pointer);
  const set = (key: keyof FlowStepConfig, value: unknown) => onChange({ ...step, [key]: value });
  return (
    <section
      className={`card flow-step${issues ? ' card-invalid' : ''}`}
      aria-label={t('flows.stepCard', { n: index + 1, id: step.id })}
      data-step={step.id}
    >
      <header className="card-header">
        <strong>
          {index + 1}. {t(`flows.type.${step.type}`)}
        </strong>
        <div className="inline">
          <MoveButtons first={index === 0} last={last} onMove={onMove} />
          <button type="button" className="secondary small" onClick={onRemove}>
            {t('common.remove')}
          </button>
        </div>
      </header>
      <PointerIssues pointer={pointer} />
      <div className="grid-2">
        <TextField
          pointer={`${pointer}/id`}
          label={t('flows.stepId')}
          help={t('flows.stepIdHelp')}
          value={step.id}
          onChange={onRename}
        />
        <SelectField<StepType>
          pointer={`${pointer}/type`}
          label={t('flows.stepType')}
          value={step.type}
          options={STEP_TYPES.map((type) => ({ value: type, label: t(`flows.type.${type}`) }))}
          // A new type keeps the id and the way on; the old type's fields would not apply.
          onChange={(type) => onChange({ id: step.id, type, ...(step.next ? { next: step.next } : {}) })}
        />
      </div>
      <StepFields {...props} set={set} />
      {HAS_NEXT.has(step.type) ? (
        <StepPicker
          pointer={`${pointer}/next`}
          label={t('flows.next')}
          value={step.next}
          steps={props.flow.steps}
          self={step.id}
          defaultLabel={t('flows.nextDefault')}
          onChange={(v) => set('next', v)}
        />
      ) : null}
    </section>
  );
}

function StepFields({
  config,
  flow,
  step,
  pointer,
  onChange,
  set,
}: StepCardProps & { set: (key: keyof FlowStepConfig, value: unknown) => void }) {
  const { t } = useI18n();
  const templateHelp = t('flows.templateHelp', { example: `{{${Object.keys(flow.slots ?? {})[0] ?? 'value'}}}` });
  switch (step.type) {
    case 'ask':
      return (
        <div className="grid-2">
          <Field pointer={`${pointer}/slot`} label={t('flows.askSlot')}>
            {(control) => (
              <select {...control} value={step.slot ?? ''} onChange={(e) => set('slot', e.target.value || undefined)}>
                <option value="">{t('flows.pickSlot')}</option>
                {Object.keys(flow.slots ?? {}).map((name) => (
                  <option key={name} value={name}>
                    {name}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <TextField
            pointer={`${pointer}/prompt`}
            label={t('flows.question')}
            help={templateHelp}
            value={step.prompt}
            onChange={(v) => set('prompt', v)}
          />
        </div>
      );
    case 'confirm':
      return (
        <>
          <TextField
            pointer={`${pointer}/prompt`}
            label={t('flows.question')}
            help={templateHelp}
            value={step.prompt}
            onChange={(v) => set('prompt', v)}
          />
          <div className="grid-2">
            <TextField
              pointer={`${pointer}/yes_label`}
              label={t('flows.yesLabel')}
              placeholder={t('flows.yesLabelDefault')}
              value={step.yes_label}
              onChange={(v) => set('yes_label', v || undefined)}
            />
            <TextField
              pointer={`${pointer}/no_label`}
              label={t('flows.noLabel')}
              placeholder={t('flows.noLabelDefault')}
              value={step.no_label}
              onChange={(v) => set('no_label', v || undefined)}
            />
            <StepPicker
              pointer={`${pointer}/yes`}
              label={t('flows.afterYes')}
              value={step.yes}
              steps={flow.steps}
              self={step.id}
              defaultLabel={t('flows.nextDefault')}
              onChange={(v) => set('yes', v)}
            />
            <StepPicker
              pointer={`${pointer}/no`}
              label={t('flows.afterNo')}
              value={step.no}
              steps={flow.steps}
              self={step.id}
              defaultLabel={t('flows.endDefault')}
              onChange={(v) => set('no', v)}
            />
          </div>
        </>
      );
    case 'tool':
      return <FlowToolStep config={config} flow={flow} step={step} pointer={pointer} onChange={onChange} />;
    case 'branch':
      return <FlowBranchesEditor flow={flow} step={step} pointer={pointer} onChange={onChange} />;
    default:
      return (
        <TextField
          pointer={`${pointer}/message`}
          label={t('flows.message')}
          help={templateHelp}
          value={step.message}
          multiline
          onChange={(v) => set('message', v || undefined)}
        />
      );
  }
}
