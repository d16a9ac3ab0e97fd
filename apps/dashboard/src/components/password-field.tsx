import { LabelledField } from './labelled-field.tsx';

interface PasswordFieldProps {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  /** `current-password`, `new-password`, or `off` for a key. */
  autoComplete: string;
  /** Default true. */
  required?: boolean;
  spellCheck?: boolean;
  placeholder?: string;
  help?: string | undefined;
  /** What is wrong, announced as an alert; an empty string is no error. */
  error?: string;
  errorId?: string;
  invalid?: boolean;
}

/**
 * A password or secret box, with its help and its error (sign-in, invitation, secrets).
 *
 * @example
 * <PasswordField id="login-password" label={t('login.password')} autoComplete="current-password"
 *   value={password} onChange={setPassword} error={error} errorId="login-error" />
 */
export function PasswordField({
  id,
  label,
  value,
  onChange,
  autoComplete,
  required = true,
  spellCheck,
  placeholder,
  help,
  error,
  errorId,
  invalid,
}: PasswordFieldProps) {
  return (
    <LabelledField id={id} label={label} help={help} error={error} errorId={errorId} invalid={invalid}>
      {(control) => (
        <input
          {...control}
          type="password"
          autoComplete={autoComplete}
          required={required}
          spellCheck={spellCheck}
          placeholder={placeholder}
          value={value}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
    </LabelledField>
  );
}
