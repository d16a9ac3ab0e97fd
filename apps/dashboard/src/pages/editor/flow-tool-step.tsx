import type { AgentConfigDocument, FlowConfig, FlowStepConfig } from '@agentry/contract';
import { Field } from '../../components/field.tsx';
import { KeyValueEditor } from '../../components/key-value-editor.tsx';
import { type PlaceholderChoice, tokenFor } from '../../config/placeholders.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { StepPicker } from './step-picker.tsx';

interface ToolStepProps {
  config: AgentConfigDocument;
  flow: FlowConfig;
  step: FlowStepConfig;
  pointer: string;
  onChange: (step: FlowStepConfig) => void;
}

/**
 * The arguments a newly picked tool gets: one row per parameter, filled with the slot of the same
 * name when the flow has one (the usual case), else left for the author.
 */
function prefilledArguments(config: AgentConfigDocument, flow: FlowConfig, tool: string): Record<string, string> {
  const parameters = Object.keys(config.tools?.find((t) => t.name === tool)?.parameters?.properties ?? {});
  const slots = new Set(Object.keys(flow.slots ?? {}));
  return Object.fromEntries(parameters.map((p) => [p, slots.has(p) ? tokenFor('parameter', p) : '']));
}

/** A tool step: which of the agent's tools, its arguments (templates over the slots), what to keep. */
export function FlowToolStep({ config, flow, step, pointer, onChange }: ToolStepProps) {
  const { t } = useI18n();
  const tools = (config.tools ?? []).filter((tool) => tool.type !== 'client' && tool.name);
  const slotChoices: PlaceholderChoice[] = Object.keys(flow.slots ?? {}).map((name) => ({
    kind: 'parameter',
    name,
    token: tokenFor('parameter', name),
  }));
  return (
    <>
      <div className="grid-2">
        <Field pointer={`${pointer}/tool`} label={t('flows.tool')}>
          {(control) => (
            <select
              {...control}
              value={step.tool ?? ''}
              onChange={(e) => {
                const tool = e.target.value || undefined;
                const { tool: _old, arguments: _args, ...rest } = step;
                onChange(tool ? { ...rest, tool, arguments: prefilledArguments(config, flow, tool) } : rest);
              }}
            >
              <option value="">{t('flows.pickTool')}</option>
              {tools.map((tool) => (
                <option key={tool.name} value={tool.name}>
                  {tool.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <StepPicker
          pointer={`${pointer}/on_error`}
          label={t('flows.onError')}
          value={step.on_error}
          steps={flow.steps}
          self={step.id}
          defaultLabel={t('flows.onErrorDefault')}
          onChange={(v) => onChange({ ...step, on_error: v })}
        />
      </div>
      <KeyValueEditor
        pointer={`${pointer}/arguments`}
        label={t('flows.arguments')}
        value={step.arguments}
        choices={slotChoices}
        keyPlaceholder={t('flows.argumentName')}
        onChange={(v) => onChange({ ...step, arguments: v })}
      />
      <KeyValueEditor
        pointer={`${pointer}/save`}
        label={t('flows.save')}
        value={step.save}
        choices={[]}
        keyPlaceholder={t('flows.saveSlot')}
        onChange={(v) => onChange({ ...step, save: v as Record<string, string> | undefined })}
      />
      <p className="help">{t('flows.saveHelp')}</p>
    </>
  );
}
