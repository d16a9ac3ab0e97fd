import { type Dispatch, type SetStateAction, useCallback, useEffect, useRef, useState } from 'react';

export interface Load<T> {
  data: T | undefined;
  error: unknown;
  /** Loads again; the old value stays until the new one arrives. */
  reload: () => Promise<void>;
  /** For pages that load more of the same (a next page of rows): both are reset when `key` changes. */
  setData: Dispatch<SetStateAction<T | undefined>>;
  setError: (error: unknown) => void;
}

interface LoadOptions {
  /**
   * What is loaded (an id, the filters as a query string): when it changes the old value is
   * dropped, being of something else, and a new load starts.
   */
  key?: string | number | undefined;
  /** When this changes the same thing is loaded again, keeping the old value on screen meanwhile. */
  refresh?: unknown;
}

/**
 * Loads a value on mount, when `key` changes, when `refresh` changes and on `reload()`; `error`
 * holds a failed load. Only the latest load lands, so a slow answer for old filters never
 * overwrites the answer for the new ones.
 *
 * @example
 * const { data, error, reload } = useLoad(() => keysApi.list());
 * const usage = useLoad(() => usageApi.get({ agentId }), { key: agentId });
 */
export function useLoad<T>(load: () => Promise<T>, { key, refresh }: LoadOptions = {}): Load<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<unknown>();
  // The loader closes over the latest props; reading it through a ref keeps `reload` stable.
  const loader = useRef(load);
  loader.current = load;
  const latest = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++latest.current;
    try {
      const value = await loader.current();
      if (mine !== latest.current) return;
      setData(() => value);
      setError(undefined);
    } catch (e) {
      if (mine === latest.current) setError(e);
    }
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` says what is loaded; the loader reads it
  useEffect(() => {
    setData(undefined);
    setError(undefined);
    void reload();
    return () => {
      latest.current++;
    };
  }, [key, reload]);
  const refreshed = useRef(refresh);
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a change of `refresh` asks for a reload
  useEffect(() => {
    if (Object.is(refreshed.current, refresh)) return;
    refreshed.current = refresh;
    void reload();
  }, [refresh]);
  return { data, error, reload, setData, setError };
}
