import { useCallback, useState } from 'react';

export interface Action {
  /** True while an action runs (to disable its button). */
  busy: boolean;
  /** The last action's failure, cleared when the next one starts. */
  error: unknown;
  /** Runs `fn`, keeping its failure in `error` instead of throwing. */
  run: (fn: () => Promise<unknown>) => Promise<void>;
}

/**
 * A button's or form's call to the API: busy while it runs, its failure kept for an ErrorBanner.
 *
 * @example
 * const save = useAction();
 * <form onSubmit={(e) => { e.preventDefault(); void save.run(() => secretsApi.put(name, value)); }}>
 */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const run = useCallback(async (fn: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await fn();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run };
}
