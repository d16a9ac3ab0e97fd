import type { ReactNode } from 'react';
import { LabelledField } from '../../components/labelled-field.tsx';

/** The origins a publishable key may be used from, as typed: one a line or comma-separated. */
export function originList(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((o) => o.trim())
    .filter(Boolean);
}

interface OriginsFieldProps {
  id: string;
  label: string;
  help: string;
  value: string;
  onChange: (value: string) => void;
  placeholder?: string;
  /** The API's issues for the list (marks the field invalid). */
  issues?: ReactNode;
  invalid?: boolean;
}

/**
 * The text box for a publishable key's allowed origins.
 *
 * @example
 * <OriginsField id="widget-origins" label={t('widget.origins')} help={t('widget.originsHelp')} value={origins} onChange={setOrigins} />
 */
export function OriginsField({ id, label, help, value, onChange, placeholder, issues, invalid }: OriginsFieldProps) {
  return (
    <LabelledField id={id} label={label} help={help} after={issues} invalid={invalid}>
      {(control) => (
        <textarea
          {...control}
          rows={2}
          value={value}
          spellCheck={false}
          placeholder={placeholder}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
    </LabelledField>
  );
}
