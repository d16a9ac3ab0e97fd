import type { FlowStepConfig } from '@agentry/contract';
import { Field } from '../../components/field.tsx';

interface StepPickerProps {
  pointer: string;
  label: string;
  value: string | undefined;
  steps: readonly FlowStepConfig[];
  /** The first option: what happens when no step is picked (e.g. "the step below"). */
  defaultLabel: string;
  /** The step the picker belongs to (not offered: a step going to itself is a loop). */
  self?: string;
  onChange: (id: string | undefined) => void;
}

/** A dropdown of the flow's step ids; the empty choice keeps the default way on. */
export function StepPicker({ pointer, label, value, steps, defaultLabel, self, onChange }: StepPickerProps) {
  return (
    <Field pointer={pointer} label={label}>
      {(control) => (
        <select {...control} value={value ?? ''} onChange={(e) => onChange(e.target.value || undefined)}>
          <option value="">{defaultLabel}</option>
          {steps
            .filter((s) => s.id && s.id !== self)
            .map((s) => (
              <option key={s.id} value={s.id}>
                {s.id}
              </option>
            ))}
          {value && !steps.some((s) => s.id === value) ? <option value={value}>{value}</option> : null}
        </select>
      )}
    </Field>
  );
}
