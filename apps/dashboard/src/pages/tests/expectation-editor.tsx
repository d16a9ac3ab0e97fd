import type { AgentConfigDocument } from '@agentry/contract';
import type { Expectation, ExpectationType } from '@agentry/contract/schemas';
import { ConditionEditor } from '../../components/condition-editor.tsx';
import { Field } from '../../components/field.tsx';
import { PointerIssues } from '../../components/issue-list.tsx';
import { TextField } from '../../components/text-field.tsx';
import { blankExpectation, EXPECTATION_TYPES, flowSteps } from '../../config/agent-tests.ts';
import { fieldId } from '../../config/field-pointer.ts';
import type { Translate } from '../../config/plain-issues.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { argumentNames, textArgumentNames } from '../editor/permissions-form.tsx';
import { ToolPicker } from './tool-picker.tsx';

interface ExpectationEditorProps {
  /** Pointer of the expectation (`/test/turns/0/expect/1`): its fields' ids and issues. */
  pointer: string;
  /** Its position in the turn, for the row's label. */
  index: number;
  expectation: Expectation;
  config: AgentConfigDocument;
  onChange: (expectation: Expectation) => void;
  onRemove: () => void;
}

/**
 * One check of a turn: its kind from a select, then the fields of that kind (a tool from the
 * agent's, argument conditions as rows, a text, a pattern, a rubric, a flow and step).
 */
export function ExpectationEditor({ pointer, index, expectation, config, onChange, onRemove }: ExpectationEditorProps) {
  const { t } = useI18n();
  return (
    <div className="expectation-row" data-kind={expectation.type}>
      <div className="inline expectation-head">
        <Field pointer={`${pointer}/type`} label={t('tests.expect.kind', { n: index + 1 })}>
          {(control) => (
            <select
              {...control}
              value={expectation.type}
              onChange={(e) => onChange(blankExpectation(e.target.value as ExpectationType, config))}
            >
              {EXPECTATION_TYPES.map((type) => (
                <option key={type} value={type}>
                  {t(`tests.kind.${type}`)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <button
          type="button"
          className="secondary small"
          id={`${fieldId(pointer)}-remove`}
          aria-label={t('tests.expect.remove', { n: index + 1 })}
          onClick={onRemove}
        >
          {t('common.remove')}
        </button>
      </div>
      <PointerIssues pointer={pointer} />
      <ExpectationFields pointer={pointer} expectation={expectation} config={config} onChange={onChange} t={t} />
    </div>
  );
}

interface FieldsProps {
  pointer: string;
  expectation: Expectation;
  config: AgentConfigDocument;
  onChange: (expectation: Expectation) => void;
  t: Translate;
}

function ExpectationFields({ pointer, expectation: e, config, onChange, t }: FieldsProps) {
  switch (e.type) {
    case 'tool_called':
      return (
        <>
          <ToolPicker
            pointer={`${pointer}/tool`}
            label={t('tests.expect.tool')}
            value={e.tool}
            config={config}
            onChange={(tool) => onChange({ ...e, tool })}
          />
          <ConditionEditor
            pointer={`${pointer}/arguments`}
            value={e.arguments}
            argumentNames={argumentNames(config, e.tool)}
            textArguments={textArgumentNames(config, e.tool)}
            onChange={(schema) => {
              const { arguments: _old, ...rest } = e;
              onChange(schema ? { ...rest, arguments: schema } : rest);
            }}
            labels={{
              legend: t('tests.args.legend'),
              empty: t('tests.args.empty'),
              help: t('tests.args.help'),
              json: t('tests.args.json'),
              jsonHelp: t('tests.args.jsonHelp'),
              jsonInvalid: t('tests.jsonInvalid'),
            }}
          />
        </>
      );
    case 'tool_not_called':
      return (
        <ToolPicker
          pointer={`${pointer}/tool`}
          label={t('tests.expect.tool')}
          value={e.tool}
          config={config}
          onChange={(tool) => onChange({ ...e, tool })}
        />
      );
    case 'reply_contains':
    case 'reply_not_contains':
      return (
        <div className="grid-2">
          <TextField
            pointer={`${pointer}/text`}
            label={t('tests.expect.text')}
            value={e.text}
            onChange={(text) => onChange({ ...e, text })}
          />
          <CaseSensitive pointer={pointer} value={e.case_sensitive} onChange={(v) => onChange(withCase(e, v))} t={t} />
        </div>
      );
    case 'reply_matches':
      return (
        <div className="grid-2">
          <TextField
            pointer={`${pointer}/pattern`}
            label={t('tests.expect.pattern')}
            help={t('tests.expect.patternHelp')}
            value={e.pattern}
            onChange={(pattern) => onChange({ ...e, pattern })}
          />
          <CaseSensitive pointer={pointer} value={e.case_sensitive} onChange={(v) => onChange(withCase(e, v))} t={t} />
        </div>
      );
    case 'rubric':
      return (
        <TextField
          pointer={`${pointer}/rubric`}
          label={t('tests.expect.rubric')}
          help={t('tests.expect.rubricHelp')}
          multiline
          value={e.rubric}
          onChange={(rubric) => onChange({ ...e, rubric })}
        />
      );
    case 'flow_step':
      return <FlowStepFields pointer={pointer} expectation={e} config={config} onChange={onChange} t={t} />;
    case 'handoff_requested':
      return <p className="help">{t('tests.expect.handoffHelp')}</p>;
    case 'cited':
      return (
        <TextField
          pointer={`${pointer}/document`}
          label={t('tests.expect.document')}
          help={t('tests.expect.documentHelp')}
          value={e.document}
          onChange={(document) => onChange({ ...e, document })}
        />
      );
  }
}

type WithCase = Extract<Expectation, { case_sensitive?: boolean | undefined }>;

function withCase<E extends WithCase>(e: E, caseSensitive: boolean): E {
  const { case_sensitive: _old, ...rest } = e;
  return (caseSensitive ? { ...rest, case_sensitive: true } : rest) as E;
}

function CaseSensitive(props: {
  pointer: string;
  value: boolean | undefined;
  onChange: (v: boolean) => void;
  t: Translate;
}) {
  const { pointer, value, onChange, t } = props;
  return (
    <Field pointer={`${pointer}/case_sensitive`} label={t('tests.expect.caseSensitive')} className="field-checkbox">
      {(control) => (
        <input {...control} type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} />
      )}
    </Field>
  );
}

/** A flow and one of its steps, both from the agent's config (what is stored may name others: kept as a choice). */
function FlowStepFields({
  pointer,
  expectation: e,
  config,
  onChange,
  t,
}: FieldsProps & { expectation: Extract<Expectation, { type: 'flow_step' }> }) {
  const flows = flowSteps(config);
  const steps = flows.find((f) => f.flow === e.flow)?.steps ?? [];
  const withKept = (list: string[], value: string) => (value && !list.includes(value) ? [...list, value] : list);
  return (
    <div className="grid-2">
      <Field pointer={`${pointer}/flow`} label={t('tests.expect.flow')}>
        {(control) => (
          <select
            {...control}
            value={e.flow}
            onChange={(ev) => {
              const flow = ev.target.value;
              onChange({ ...e, flow, step: flows.find((f) => f.flow === flow)?.steps[0] ?? '' });
            }}
          >
            {withKept(
              flows.map((f) => f.flow),
              e.flow,
            ).map((flow) => (
              <option key={flow} value={flow}>
                {flow}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field pointer={`${pointer}/step`} label={t('tests.expect.step')}>
        {(control) => (
          <select {...control} value={e.step} onChange={(ev) => onChange({ ...e, step: ev.target.value })}>
            {withKept(steps, e.step).map((step) => (
              <option key={step} value={step}>
                {step}
              </option>
            ))}
          </select>
        )}
      </Field>
    </div>
  );
}
