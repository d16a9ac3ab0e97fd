import { Field } from './field.tsx';

interface TextFieldProps {
  pointer: string;
  label: string;
  value: string | undefined;
  onChange: (value: string) => void;
  multiline?: boolean;
  placeholder?: string;
  help?: string;
}

export function TextField({ pointer, label, value, onChange, multiline, placeholder, help }: TextFieldProps) {
  return (
    <Field pointer={pointer} label={label} {...(help ? { help } : {})}>
      {(control) =>
        multiline ? (
          <textarea
            {...control}
            rows={3}
            value={value ?? ''}
            placeholder={placeholder}
            onChange={(e) => onChange(e.target.value)}
          />
        ) : (
          <input
            {...control}
            value={value ?? ''}
            placeholder={placeholder}
            onChange={(e) => onChange(e.target.value)}
          />
        )
      }
    </Field>
  );
}

interface NumberFieldProps {
  pointer: string;
  label: string;
  value: number | undefined;
  onChange: (value: number | undefined) => void;
  min?: number;
  max?: number;
  step?: number;
  help?: string;
}

/** An empty box means "not set" (the loader's default applies), not zero. */
export function NumberField({ pointer, label, value, onChange, min, max, step, help }: NumberFieldProps) {
  return (
    <Field pointer={pointer} label={label} {...(help ? { help } : {})}>
      {(control) => (
        <input
          {...control}
          type="number"
          min={min}
          max={max}
          step={step ?? 'any'}
          value={value ?? ''}
          onChange={(e) => onChange(e.target.value === '' ? undefined : Number(e.target.value))}
        />
      )}
    </Field>
  );
}

interface SelectFieldProps<T extends string> {
  pointer: string;
  label: string;
  value: T | undefined;
  options: Array<{ value: T; label: string }>;
  onChange: (value: T) => void;
}

export function SelectField<T extends string>({ pointer, label, value, options, onChange }: SelectFieldProps<T>) {
  return (
    <Field pointer={pointer} label={label}>
      {(control) => (
        <select {...control} value={value ?? ''} onChange={(e) => onChange(e.target.value as T)}>
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}
