import { useEffect } from 'react';

/**
 * Calls `reload` every `intervalMs` while `active`, one call at a time (the next wait starts when
 * the previous call settled); nothing runs while `active` is false, so an idle page makes no requests.
 *
 * @example
 * const docs = useLoad(() => knowledgeApi.documents(id));
 * usePollWhile(hasPending(docs.data ?? []), docs.reload, 1000);
 */
export function usePollWhile(active: boolean, reload: () => Promise<unknown>, intervalMs: number): void {
  useEffect(() => {
    if (!active) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout>;
    const tick = async () => {
      await reload().catch(() => {});
      if (!stopped) timer = setTimeout(tick, intervalMs);
    };
    timer = setTimeout(tick, intervalMs);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [active, reload, intervalMs]);
}
