import type { AgentConfigDocument, FlowConfig, FlowStepConfig } from '@agentry/contract';
import { PointerIssues } from '../../components/issue-list.tsx';
import { moveItem } from '../../config/config-edit.ts';
import { freeStepId, renameStep } from '../../config/flow-graph.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { FlowStepCard } from './flow-step-card.tsx';

export const STEP_TYPES = ['ask', 'confirm', 'tool', 'reply', 'branch', 'handoff', 'end'] as const;
export type StepType = (typeof STEP_TYPES)[number];

interface StepsProps {
  config: AgentConfigDocument;
  flow: FlowConfig;
  /** `/flows/<i>/steps`. */
  pointer: string;
  onChange: (steps: FlowStepConfig[]) => void;
}

/** The flow's steps as a list of forms: added by type, reordered with buttons, removed. */
export function FlowStepsEditor({ config, flow, pointer, onChange }: StepsProps) {
  const { t } = useI18n();
  const steps = flow.steps;
  const flowIndex = pointer.split('/')[2];
  const add = (type: StepType) => {
    const id = freeStepId(
      steps.map((s) => s.id),
      type,
    );
    // Added above a final end step, so the new step runs before the flow ends.
    const at = steps.at(-1)?.type === 'end' ? steps.length - 1 : steps.length;
    onChange([...steps.slice(0, at), { id, type }, ...steps.slice(at)]);
  };
  return (
    <fieldset className="flow-steps">
      <legend>{t('flows.steps')}</legend>
      <p className="help">{t('flows.stepsHelp')}</p>
      <PointerIssues pointer={pointer} />
      <ol className="stack flow-step-list">
        {steps.map((step, k) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: list position is the identity in the config
          <li key={k}>
            <FlowStepCard
              config={config}
              flow={flow}
              step={step}
              index={k}
              pointer={`${pointer}/${k}`}
              onChange={(next) => onChange(steps.map((s, i) => (i === k ? next : s)))}
              onRename={(id) => onChange(renameStep(steps, step.id, id))}
              onMove={(by) => onChange(moveItem(steps, k, k + by))}
              onRemove={() => onChange(steps.filter((_, i) => i !== k))}
              last={k === steps.length - 1}
            />
          </li>
        ))}
      </ol>
      <div className="inline wrap">
        <span className="muted">{t('flows.addStep')}:</span>
        {STEP_TYPES.map((type) => (
          <button
            key={type}
            type="button"
            className="secondary small"
            id={`add-step-${flowIndex}-${type}`}
            onClick={() => add(type)}
          >
            + {t(`flows.type.${type}`)}
          </button>
        ))}
      </div>
    </fieldset>
  );
}
