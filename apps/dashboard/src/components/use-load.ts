import { useCallback, useEffect, useState } from 'react';

/**
 * Loads a value on mount and on `reload()`; `error` holds a failed load.
 *
 * @example
 * const { data, error, reload } = useLoad(() => keysApi.list());
 */
export function useLoad<T>(load: () => Promise<T>): {
  data: T | undefined;
  error: unknown;
  reload: () => Promise<void>;
} {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<unknown>();
  // biome-ignore lint/correctness/useExhaustiveDependencies: the loader is fixed for the component's life
  const reload = useCallback(async () => {
    try {
      setData(await load());
      setError(undefined);
    } catch (e) {
      setError(e);
    }
  }, []);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { data, error, reload };
}
