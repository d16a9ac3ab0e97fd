import { ProblemError } from '@agentry/contract';
import { type FormEvent, useState } from 'react';

/**
 * A form's submit handler that runs `action` once at a time and shows what went wrong: the page's
 * own words for the API problems it knows (`wordsFor` returns undefined for the rest), else the
 * problem's text.
 *
 * @example
 * const { busy, error, submit } = useFormSubmit(
 *   () => resetPassword(token, password),
 *   (problem) => (problem.code === 'password_reset_expired' ? t('reset.expired') : undefined),
 * );
 */
export function useFormSubmit(
  action: () => Promise<void>,
  wordsFor: (problem: ProblemError) => string | undefined,
  onError?: () => void,
) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError('');
    try {
      await action();
    } catch (e) {
      onError?.();
      const words = e instanceof ProblemError ? wordsFor(e) : undefined;
      setError(words ?? (e instanceof Error ? e.message : String(e)));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, submit };
}
