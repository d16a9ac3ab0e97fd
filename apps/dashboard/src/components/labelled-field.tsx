import type { ReactNode } from 'react';

/** What the control needs to be tied to its label, help and error. */
export interface LabelledControl {
  id: string;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
}

interface LabelledFieldProps {
  /** The control's id (the label points at it); the help is `${id}-help`. */
  id: string;
  label: string;
  help?: ReactNode;
  /** A message for the field, announced as an alert; an empty string is no message. */
  error?: string;
  /** Default `${id}-error`. */
  errorId?: string;
  /** Invalid without a message of its own (the help says why). */
  invalid?: boolean;
  /** The help states the rule the value must follow, so while invalid it is shown as the issue. */
  helpIsRule?: boolean;
  /** Added to `field`. */
  className?: string;
  /** Below the help (an issue list). */
  after?: ReactNode;
  children: (control: LabelledControl) => ReactNode;
}

/**
 * A label, a control, its help and its error, wired for screen readers. `aria-invalid` is set
 * only on fields that can be invalid (given `invalid` or `error`).
 *
 * @example
 * <LabelledField id="login-password" label={t('login.password')} error={error} errorId="login-error">
 *   {(control) => <input {...control} type="password" value={password} onChange={…} />}
 * </LabelledField>
 */
export function LabelledField(props: LabelledFieldProps) {
  const { id, label, help, error, invalid, helpIsRule, className, after, children } = props;
  const errorId = props.errorId ?? `${id}-error`;
  const bad = Boolean(invalid) || Boolean(error);
  const described = [help ? `${id}-help` : '', error ? errorId : ''].filter(Boolean).join(' ');
  const control: LabelledControl = {
    id,
    ...(invalid !== undefined || error !== undefined ? { 'aria-invalid': bad } : {}),
    ...(described ? { 'aria-describedby': described } : {}),
  };
  return (
    <div className={`field${bad ? ' field-invalid' : ''}${className ? ` ${className}` : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children(control)}
      {help ? (
        <p className={helpIsRule && bad ? 'issues' : 'help'} id={`${id}-help`}>
          {help}
        </p>
      ) : null}
      {error ? (
        <p className="issues" id={errorId} role="alert">
          {error}
        </p>
      ) : null}
      {after}
    </div>
  );
}
